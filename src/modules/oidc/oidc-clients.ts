import * as client from 'openid-client';
import type { OidcProviderSetting } from '../../config.js';
import { notFound, providerUnavailable } from '../../errors.js';

interface Logger {
  warn(details: object, message: string): void;
}

/**
 * The configured identity providers and their discovered metadata (openid-client's
 * `Configuration`). Discovery happens on first use, not at start, so that a provider that is
 * down does not stop the service; a failed discovery is tried again on the next sign-in.
 * Providers are reached over HTTPS with the system's CAs and NODE_EXTRA_CA_CERTS.
 */
export class OidcClients {
  private readonly byId: Map<string, OidcProviderSetting>;
  private readonly discovered = new Map<string, Promise<client.Configuration>>();

  /** `discoveryTimeoutSeconds`: how long one discovery request may take before the provider counts as unreachable. */
  constructor(
    providers: OidcProviderSetting[],
    private readonly log: Logger,
    private readonly discoveryTimeoutSeconds: number,
  ) {
    this.byId = new Map(providers.map((provider) => [provider.id, provider]));
  }

  /** What the login page lists: id and button label, in the settings' order. */
  list(): { id: string; name: string }[] {
    return [...this.byId.values()].map(({ id, name }) => ({ id, name }));
  }

  /** The provider's settings, or 404 when no provider has this id. */
  provider(id: string): OidcProviderSetting {
    const provider = this.byId.get(id);
    if (!provider) throw notFound('Identity provider');
    return provider;
  }

  /** The provider's discovered configuration; 502 provider_unavailable while it cannot be read. */
  async configuration(provider: OidcProviderSetting): Promise<client.Configuration> {
    let pending = this.discovered.get(provider.id);
    if (!pending) {
      pending = client.discovery(new URL(provider.issuer), provider.clientId, provider.clientSecret, undefined, {
        timeout: this.discoveryTimeoutSeconds,
      });
      this.discovered.set(provider.id, pending);
    }
    try {
      return await pending;
    } catch (error) {
      // Forget the failure: the next sign-in asks again.
      if (this.discovered.get(provider.id) === pending) this.discovered.delete(provider.id);
      this.log.warn(
        { err: error, provider: provider.id, issuer: provider.issuer },
        'the identity provider cannot be discovered',
      );
      throw providerUnavailable(provider.name);
    }
  }
}
