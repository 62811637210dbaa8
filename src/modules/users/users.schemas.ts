import { Type } from 'typebox';
import { Email } from '../../http/schemas.js';
import { Nullable } from '../../schema-types.js';

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
  }),
});

export const Session = Type.Object({
  token: Type.String({ description: 'Session JWT for `Authorization: Bearer`' }),
  user: User,
});

const Password = Type.String({ minLength: 8, maxLength: 1024 });

export const SignupBody = Type.Object(
  { email: Email, password: Password, name: Type.Optional(Type.String({ maxLength: 100 })) },
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
