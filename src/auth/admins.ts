import { type Config, listSetting } from '../config.js';

/**
 * Who the instance admins are: the addresses of `ADMIN_EMAILS`, and the users whose identity
 * provider's claim (`OIDC_ADMIN_CLAIM`, a provider's `adminClaim`) named them at their last
 * sign-in. A deleted or disabled account is never one.
 */
export class InstanceAdmins {
  private readonly emails: Set<string>;

  constructor(config: Pick<Config, 'adminEmails'>) {
    this.emails = new Set(listSetting(config.adminEmails));
  }

  isAdmin(user: {
    email: string;
    email_verified_at: number | null;
    provider_admin: number;
    disabled_at: number | null;
    deleted_at: number | null;
  }): boolean {
    if (user.disabled_at !== null || user.deleted_at !== null) return false;
    if (user.provider_admin === 1) return true;
    // An address in ADMIN_EMAILS counts once it is proven: anyone can sign up with any address.
    return user.email_verified_at !== null && this.emails.has(user.email.toLowerCase());
  }
}
