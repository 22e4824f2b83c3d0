import { Type, type Static } from 'typebox';
import { Timestamp } from '../../http/schemas.js';
import { NameField } from '../users/users.schemas.js';

const ChallengeId = Type.String({ minLength: 1, maxLength: 100, description: 'From the options answer; one use, 5 minutes' });
const B64 = (max: number) => Type.String({ minLength: 1, maxLength: max, pattern: '^[A-Za-z0-9_-]*={0,2}$' });

/**
 * A credential as `PublicKeyCredential.toJSON()` (or @simplewebauthn/browser) gives it. The
 * members WebAuthn defines are checked here; the authenticator's own fields inside `response` and
 * `clientExtensionResults` may grow with the standard, so unknown members there are accepted.
 */
// A credential id is at most 1023 bytes (WebAuthn): 1364 base64url characters.
const CredentialBase = {
  id: B64(1364),
  rawId: B64(1364),
  type: Type.Literal('public-key'),
  clientExtensionResults: Type.Object({}, { additionalProperties: true }),
  authenticatorAttachment: Type.Optional(Type.String({ maxLength: 20 })),
};

export const RegistrationCredential = Type.Object(
  {
    ...CredentialBase,
    response: Type.Object(
      {
        clientDataJSON: B64(10_000),
        attestationObject: B64(100_000),
        transports: Type.Optional(Type.Array(Type.String({ maxLength: 20 }), { maxItems: 10 })),
      },
      { additionalProperties: true },
    ),
  },
  { additionalProperties: false },
);

export const AuthenticationCredential = Type.Object(
  {
    ...CredentialBase,
    response: Type.Object(
      {
        clientDataJSON: B64(10_000),
        authenticatorData: B64(10_000),
        signature: B64(2_000),
        userHandle: Type.Optional(B64(200)),
      },
      { additionalProperties: true },
    ),
  },
  { additionalProperties: false },
);

export const AddPasskeyBody = Type.Object(
  { challenge_id: ChallengeId, credential: RegistrationCredential, name: Type.Optional(NameField) },
  { additionalProperties: false },
);
export type AddPasskeyBody = Static<typeof AddPasskeyBody>;

export const PasskeyLoginBody = Type.Object({ challenge_id: ChallengeId, credential: AuthenticationCredential }, { additionalProperties: false });
export type PasskeyLoginBody = Static<typeof PasskeyLoginBody>;

export const RenamePasskeyBody = Type.Object({ name: NameField }, { additionalProperties: false });

export const PasskeyOptionsBody = Type.Object(
  { password: Type.Optional(Type.String({ minLength: 1, maxLength: 1024, description: 'The current password (required when the account has one): a stolen access token alone cannot add a passkey' })) },
  { additionalProperties: false },
);

export const CeremonyOptions = Type.Object(
  {
    challenge_id: Type.String(),
    options: Type.Object({ challenge: Type.String() }, { additionalProperties: true, description: 'Pass to navigator.credentials (through PublicKeyCredential.parse*OptionsFromJSON or @simplewebauthn/browser)' }),
  },
  { additionalProperties: false },
);

export const Passkey = Type.Object(
  {
    id: Type.String(),
    name: Type.String(),
    device_type: Type.String({ description: 'singleDevice or multiDevice (synced)' }),
    backed_up: Type.Boolean(),
    transports: Type.Array(Type.String()),
    created_at: Timestamp,
    last_used_at: Type.Union([Timestamp, Type.Null()]),
  },
  { $id: 'Passkey', additionalProperties: false },
);
