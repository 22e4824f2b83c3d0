import { Type, type Static } from 'typebox';
import { EmailField, NameField, PasswordField } from '../users/users.schemas.js';

export const UpgradeGuestBody = Type.Object(
  {
    email: EmailField,
    password: Type.Optional(PasswordField),
    name: Type.Optional(NameField),
  },
  { additionalProperties: false, description: 'The address the guest takes (confirmed by mail), and optionally a password and a name' },
);
export type UpgradeGuestBody = Static<typeof UpgradeGuestBody>;
