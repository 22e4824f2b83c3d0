import { Type, type Static } from 'typebox';
import { StringEnum } from '../../http/schemas.js';
import { SIGN_OUT_SCOPES } from '../sessions/sessions.service.js';

export const LoginBody = Type.Object(
  {
    username: Type.String({ minLength: 1, maxLength: 254, description: 'The email address of the account', example: 'ada@example.com' }),
    password: Type.String({ minLength: 1, maxLength: 1024 }),
    // OAuth2 password-grant form posts send these; accepted so OpenAPI "Authorize" buttons work.
    grant_type: Type.Optional(Type.Literal('password')),
    scope: Type.Optional(Type.String({ maxLength: 1000 })),
    client_id: Type.Optional(Type.String({ maxLength: 200 })),
    client_secret: Type.Optional(Type.String({ maxLength: 200 })),
  },
  { additionalProperties: false },
);
export type LoginBody = Static<typeof LoginBody>;

export const RefreshBody = Type.Object(
  {
    refresh_token: Type.String({ minLength: 1, maxLength: 200 }),
    grant_type: Type.Optional(Type.Literal('refresh_token')),
    scope: Type.Optional(Type.String({ maxLength: 1000 })),
    client_id: Type.Optional(Type.String({ maxLength: 200 })),
    client_secret: Type.Optional(Type.String({ maxLength: 200 })),
  },
  { additionalProperties: false },
);
export type RefreshBody = Static<typeof RefreshBody>;

export const TokenResponse = Type.Object(
  {
    access_token: Type.String({ description: 'EdDSA-signed JWT; send as Authorization: Bearer' }),
    token_type: Type.Literal('bearer'),
    expires_in: Type.Integer({ description: 'Seconds until the access token expires' }),
    refresh_token: Type.String({ description: 'Opaque; single use, rotated on every refresh' }),
    scope: Type.String(),
  },
  { $id: 'TokenResponse', additionalProperties: false },
);

export const LogoutBody = Type.Object(
  { scope: Type.Optional(StringEnum(SIGN_OUT_SCOPES, { default: 'current', description: 'Which sessions to end: this one (`current`), every other one (`others`), or `all`' })) },
  { additionalProperties: false },
);
export type LogoutBody = Static<typeof LogoutBody>;
