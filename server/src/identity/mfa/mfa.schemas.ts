import { Type, type Static } from 'typebox';
import { fieldError } from '../../kernel/errors.js';
import { StringEnum, Timestamp } from '../../http/schemas.js';
import type { FactorProof } from './mfa.service.js';

const Code = Type.String({ minLength: 1, maxLength: 12, description: 'The 6-digit code the authenticator app shows now', example: '492039' });
const RecoveryCode = Type.String({ minLength: 1, maxLength: 24, description: 'One of the recovery codes (each works once)', example: 'k7m2p-x9q4r' });

/** A second factor in a request: `code` or `recovery_code`, exactly one. */
export const ProofBody = Type.Object({ code: Type.Optional(Code), recovery_code: Type.Optional(RecoveryCode) }, { additionalProperties: false });
export type ProofBody = Static<typeof ProofBody>;

export const MfaVerifyBody = Type.Object(
  {
    mfa_token: Type.String({ minLength: 1, maxLength: 100, description: 'From the 403 mfa_required answer of POST /v1/auth/login' }),
    code: Type.Optional(Code),
    recovery_code: Type.Optional(RecoveryCode),
  },
  { additionalProperties: false },
);
export type MfaVerifyBody = Static<typeof MfaVerifyBody>;

export const ConfirmTotpBody = Type.Object({ code: Code }, { additionalProperties: false });

export const EnrolTotpBody = Type.Object(
  { password: Type.Optional(Type.String({ minLength: 1, maxLength: 1024, description: 'The current password (required when the account has one): a stolen access token alone cannot add an authenticator' })) },
  { additionalProperties: false },
);

export const DisableTotpBody = Type.Object(
  {
    code: Type.Optional(Code),
    recovery_code: Type.Optional(RecoveryCode),
    password: Type.Optional(Type.String({ minLength: 1, maxLength: 1024, description: 'Instead of a code: the password, if this session proved its factor within MFA_STEP_UP_SECONDS' })),
  },
  { additionalProperties: false },
);
export type DisableTotpBody = Static<typeof DisableTotpBody>;

export const MfaStatus = Type.Object(
  {
    totp: Type.Object({
      status: StringEnum(['disabled', 'pending', 'enabled'] as const),
      enabled_at: Type.Union([Timestamp, Type.Null()]),
    }, { additionalProperties: false }),
    recovery_codes_remaining: Type.Integer({ minimum: 0 }),
    step_up_expires_at: Type.Union([Timestamp, Type.Null()], { description: 'Until when this session may make sensitive changes without proving its factor again' }),
  },
  { $id: 'MfaStatus', additionalProperties: false },
);

export const TotpEnrolment = Type.Object(
  {
    secret: Type.String({ description: 'Base32; for entering by hand' }),
    otpauth_url: Type.String({ description: 'otpauth://totp/… for authenticator apps' }),
    qr_svg: Type.String({ description: 'The otpauth_url as a QR code, an SVG document' }),
  },
  { additionalProperties: false },
);

export const RecoveryCodes = Type.Object(
  { recovery_codes: Type.Array(Type.String(), { description: 'Ten one-time codes, shown this once: store them somewhere safe' }) },
  { additionalProperties: false },
);

export const StepUp = Type.Object({ step_up_expires_at: Timestamp }, { additionalProperties: false });

/** Exactly one of `code` and `recovery_code`. */
export function proofOf(body: { code?: string; recovery_code?: string }): FactorProof {
  if (body.code !== undefined && body.recovery_code !== undefined) {
    throw fieldError('/recovery_code', 'one_of', 'Send code or recovery_code, not both.');
  }
  if (body.code !== undefined) return { code: body.code };
  if (body.recovery_code !== undefined) return { recovery_code: body.recovery_code };
  throw fieldError('/code', 'required', 'Send code (from the authenticator app) or recovery_code.');
}
