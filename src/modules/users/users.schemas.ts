import { Type } from 'typebox';
import { Email } from '../../http/schemas.js';
import { LOCALES } from '../../locales.js';
import { Nullable } from '../../schema-types.js';

/** The language of a user's e-mails: one the web application speaks. */
const Locale = Type.Enum([...LOCALES], {
  description: "The language of the user's e-mails: en, de, fr, it, es or ar",
});

export const User = Type.Object({
  id: Type.String(),
  email: Type.String(),
  name: Nullable(Type.String()),
  emailVerified: Type.Boolean({
    description: 'Whether the address is confirmed; only a confirmed address accepts invitations',
  }),
});

/** The signed-in user, and whether they are an instance admin (the web app shows the Admin link to them). */
export const Me = Type.Object({
  user: Type.Object({
    ...User.properties,
    admin: Type.Boolean({
      description: 'Whether the user is an instance admin (ADMIN_EMAILS or the identity provider)',
    }),
    locale: Type.Union([Locale, Type.Null()], { description: "The language of the user's e-mails; null: English" }),
  }),
});

export const Session = Type.Object({
  token: Type.String({ description: 'Session JWT for `Authorization: Bearer`' }),
  user: User,
});

const Password = Type.String({ minLength: 8, maxLength: 1024 });

export const SignupBody = Type.Object(
  {
    email: Email,
    password: Password,
    name: Type.Optional(Type.String({ maxLength: 100 })),
    locale: Type.Optional(Locale),
  },
  { additionalProperties: false },
);

/** What the signed-in user changes about themselves with PATCH /api/auth/me. */
export const MeChangeBody = Type.Object(
  { locale: Type.Union([Locale, Type.Null()], { description: "The language of the user's e-mails; null: English" }) },
  { additionalProperties: false },
);

export const LoginBody = Type.Object(
  { email: Email, password: Type.String({ maxLength: 1024 }) },
  { additionalProperties: false },
);

export const VerifyEmailBody = Type.Object(
  { token: Type.String({ minLength: 1, maxLength: 200, description: 'The `token` of the link in the e-mail' }) },
  { additionalProperties: false },
);

const NewPassword = Type.String({ minLength: 8, maxLength: 1024, description: 'At least 8 characters' });
const CurrentPassword = Type.String({ maxLength: 1024, description: 'The current password of the account' });

export const PasswordResetBody = Type.Object({ email: Email }, { additionalProperties: false });

export const PasswordResetConfirmBody = Type.Object(
  {
    token: Type.String({ minLength: 1, maxLength: 200, description: 'The `token` of the link in the e-mail' }),
    password: NewPassword,
  },
  { additionalProperties: false },
);

export const PasswordChangeBody = Type.Object(
  { currentPassword: CurrentPassword, newPassword: NewPassword },
  { additionalProperties: false },
);

export const EmailChangeBody = Type.Object(
  { email: Email, password: CurrentPassword },
  { additionalProperties: false },
);

export const DeleteAccountBody = Type.Object(
  {
    password: Type.Optional(
      Type.String({
        maxLength: 1024,
        description:
          'The current password; accounts without one (identity provider) confirm by a fresh sign-in instead',
      }),
    ),
  },
  { additionalProperties: false },
);

/** `{}`: the answer to a request whose effect arrives by e-mail. */
export const Accepted = Type.Object({}, { additionalProperties: false, description: 'Accepted' });
