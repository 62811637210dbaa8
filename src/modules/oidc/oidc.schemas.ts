import { Type } from 'typebox';
import { RETURN_TO_MAX } from './return-to.js';

export const SignInOptions = Type.Object(
  {
    localAccounts: Type.Boolean({
      description: 'Whether e-mail and password sign-up and log-in are offered (LOCAL_ACCOUNTS)',
    }),
    signup: Type.Enum(['open', 'invite', 'closed'], {
      description: 'Who may create an account (SIGNUP): anyone, addresses with a pending invitation, nobody',
    }),
    providers: Type.Array(
      Type.Object({
        id: Type.String({ description: 'The provider id of the sign-in routes' }),
        name: Type.String({ description: "The button's label" }),
      }),
      { description: 'The identity providers, in the order of the settings' },
    ),
  },
  { description: 'How one may sign in to this Maproom' },
);

export const ProviderParams = Type.Object({
  providerId: Type.String({
    minLength: 1,
    maxLength: 40,
    description: 'A provider id of GET /api/auth/providers',
  }),
});

export const StartQuery = Type.Object(
  {
    returnTo: Type.Optional(
      Type.String({
        maxLength: RETURN_TO_MAX,
        description: 'The path of this site to open once signed in; anything but a path of this site becomes `/`',
      }),
    ),
  },
  { additionalProperties: false },
);

export const Redirect = Type.Null({ description: 'A redirect (Location header); see the description' });
