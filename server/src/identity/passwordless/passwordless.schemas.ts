import { Type, type Static } from 'typebox';
import { EmailField } from '../users/users.schemas.js';

export const PasswordlessStartBody = Type.Object(
  {
    email: EmailField,
    create_account: Type.Optional(Type.Boolean({ default: true, description: 'Whether proving the code may make an account for an address that has none. `false`: such an address gets no mail (the answer is the same).' })),
  },
  { additionalProperties: false },
);
export type PasswordlessStartBody = Static<typeof PasswordlessStartBody>;

export const PasswordlessVerifyBody = Type.Object(
  {
    email: Type.Optional(EmailField),
    code: Type.Optional(Type.String({ pattern: '^[0-9]{6}$', description: 'The 6-digit code from the mail; send with `email`' })),
    token: Type.Optional(Type.String({ minLength: 1, maxLength: 200, description: "The token of the mail's link (`?token=`); send alone" })),
  },
  { additionalProperties: false, description: 'Either `email` and `code`, or `token`.' },
);
export type PasswordlessVerifyBody = Static<typeof PasswordlessVerifyBody>;
