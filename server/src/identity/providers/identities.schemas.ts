import { Type, type Static } from 'typebox';
import { Timestamp } from '../../http/schemas.js';

const ProviderId = Type.String({ minLength: 1, maxLength: 32, pattern: '^[a-z0-9][a-z0-9-]*$', description: 'An OIDC_PROVIDERS id', example: 'google' });
const Code = Type.String({ minLength: 1, maxLength: 100, description: 'The one-time code (`gthc_…`) the redirect URI received; 2 minutes' });
/** RFC 7636: 43–128 characters of [A-Za-z0-9-._~]. */
const CodeVerifier = Type.String({ minLength: 43, maxLength: 128, pattern: '^[A-Za-z0-9._~-]+$', description: 'The PKCE verifier whose S256 challenge started the sign-in' });

export const ProviderParams = Type.Object({ provider: ProviderId });

export const AuthorizeQuery = Type.Object({
  redirect_uri: Type.String({ minLength: 1, maxLength: 2048, description: "Where the one-time code goes: this server's /oidc-callback (the dashboard), one of OIDC_REDIRECT_URIS, or under APP_LINK_URL", example: 'myapp://auth/oidc' }),
  code_challenge: Type.String({ minLength: 43, maxLength: 43, pattern: '^[A-Za-z0-9_-]+$', description: 'base64url(SHA-256(code_verifier))', example: 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM' }),
  code_challenge_method: Type.Literal('S256'),
  state: Type.Optional(Type.String({ minLength: 1, maxLength: 500, description: "The app's own value, handed back with the code" })),
}, { additionalProperties: false });
export type AuthorizeQuery = Static<typeof AuthorizeQuery>;

/** What a provider sends back (by query, or by form post for `response_mode=form_post`). */
export const CallbackParams = Type.Object({
  code: Type.Optional(Type.String({ maxLength: 4096 })),
  state: Type.Optional(Type.String({ maxLength: 500 })),
  iss: Type.Optional(Type.String({ maxLength: 2048 })),
  error: Type.Optional(Type.String({ maxLength: 200 })),
  error_description: Type.Optional(Type.String({ maxLength: 2000 })),
  error_uri: Type.Optional(Type.String({ maxLength: 2048 })),
  session_state: Type.Optional(Type.String({ maxLength: 500 })),
  scope: Type.Optional(Type.String({ maxLength: 2000 })),
  authuser: Type.Optional(Type.String({ maxLength: 100 })),
  prompt: Type.Optional(Type.String({ maxLength: 100 })),
  hd: Type.Optional(Type.String({ maxLength: 300 })),
  user: Type.Optional(Type.String({ maxLength: 4096, description: "Apple's first-sign-in name (form post)" })),
  // Providers add parameters of their own (Entra's client_info…): taken, and ignored.
}, { additionalProperties: Type.String({ maxLength: 4096 }) });
export type CallbackParams = Static<typeof CallbackParams>;

export const CodeExchangeBody = Type.Object({ code: Code, code_verifier: CodeVerifier }, { additionalProperties: false });
export type CodeExchangeBody = Static<typeof CodeExchangeBody>;

export const LinkIdentityBody = Type.Object({
  code: Code,
  code_verifier: CodeVerifier,
  password: Type.Optional(Type.String({ minLength: 1, maxLength: 1024, description: 'The current password; required when the account has one' })),
}, { additionalProperties: false });
export type LinkIdentityBody = Static<typeof LinkIdentityBody>;

export const SignInProvider = Type.Object({
  id: ProviderId,
  name: Type.String({ description: 'For the button' }),
  type: Type.Union([Type.Literal('oidc'), Type.Literal('github'), Type.Literal('apple'), Type.Literal('google')]),
  web: Type.Boolean({ description: 'Whether the browser flow is configured (GET /v1/auth/oidc/{provider}/authorize): show a button for it' }),
  native: Type.Boolean({ description: "Whether native apps' ID tokens are taken (POST /v1/auth/id-token)" }),
}, { $id: 'SignInProvider', additionalProperties: false });

export const IdTokenBody = Type.Object({
  provider: ProviderId,
  id_token: Type.String({ minLength: 1, maxLength: 8192, description: "The ID token the platform's native sign-in returned (Sign in with Apple's `identityToken`, Google's `idToken`)" }),
  nonce: Type.Optional(Type.String({ minLength: 1, maxLength: 512, description: 'The raw nonce the app made for this sign-in, when it gave the provider one (as it is, or hashed with SHA-256 in hex, as Apple asks)' })),
  name: Type.Optional(Type.String({ minLength: 1, maxLength: 200, description: "A new account's name when the token carries none (Apple tells the app the name on the first sign-in only, and puts it in no token)" })),
}, { additionalProperties: false });
export type IdTokenBody = Static<typeof IdTokenBody>;

export const Identity = Type.Object({
  id: Type.String({ description: '`idn_…`' }),
  provider: ProviderId,
  provider_name: Type.String(),
  email: Type.Union([Type.String(), Type.Null()], { description: 'The address the provider last reported' }),
  created_at: Timestamp,
  last_used_at: Type.Union([Timestamp, Type.Null()]),
}, { $id: 'Identity', additionalProperties: false });
