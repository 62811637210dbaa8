import { type Config, listSetting } from '../../config.js';
import { signupClosed } from '../../errors.js';

/** Whether an address has an invitation waiting (the members module's pending invitations). */
export interface InvitationLookup {
  hasPendingInvitation(email: string): Promise<boolean>;
}

/**
 * Who may create an account (`SIGNUP`, `SIGNUP_DOMAINS`): with a password and on a first sign-in
 * through an identity provider alike. A refusal is 403 signup_closed with a sentence that says
 * why, which the sign-up page shows.
 */
export class SignupPolicy {
  private readonly domains: string[];

  constructor(
    private readonly config: Pick<Config, 'signup' | 'signupDomains'>,
    private readonly invitations: InvitationLookup,
  ) {
    this.domains = listSetting(config.signupDomains).map((domain) => domain.replace(/^@/, ''));
  }

  /** What the sign-up page says before anyone types: `open`, `invite` or `closed`. */
  get mode(): Config['signup'] {
    return this.config.signup;
  }

  /** Throws 403 signup_closed unless an account may be made for this (normalised) address. */
  async check(email: string): Promise<void> {
    if (this.config.signup === 'closed')
      throw signupClosed('Sign-up is closed on this Maproom; ask its administrator for an account');
    const domain = email.slice(email.lastIndexOf('@') + 1).toLowerCase();
    if (this.domains.length > 0 && !this.domains.includes(domain))
      throw signupClosed(`Only addresses at ${this.domains.join(', ')} may sign up on this Maproom`);
    if (this.config.signup === 'invite' && !(await this.invitations.hasPendingInvitation(email)))
      throw signupClosed('Sign-up on this Maproom is by invitation: ask a room owner to invite this address');
  }
}
