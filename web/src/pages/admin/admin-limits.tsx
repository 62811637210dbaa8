import { useEffect, useState } from 'preact/hooks';
import { api, ok } from '../../api/client';
import type { Limits } from '../../api/types';
import { t } from '../../i18n/index.js';
import { InlineError, useInlineError } from '../../ui/inline-error';
import { bytesText } from './admin-format';

/** Limits: the settings per user, with the largest use of any one user. */
export function LimitsSection() {
  const [limits, setLimits] = useState<Limits | null>(null);
  const { error, attempt } = useInlineError();
  useEffect(() => void attempt(async () => setLimits(await ok(api.GET('/api/admin/limits')))), []);
  return (
    <section aria-labelledby="limits-heading">
      <h2 id="limits-heading">{t('admin:tabs.limits')}</h2>
      <InlineError message={error} />
      {limits && (
        <dl class="limits">
          <dt>{t('admin:limits.roomsPerUser')}</dt>
          <dd>
            {limits.maxRoomsPerUser === 0 ? t('admin:limits.noLimit') : limits.maxRoomsPerUser}
            <span class="muted"> · {t('admin:limits.mostRooms', { rooms: limits.mostRoomsOwned })}</span>
          </dd>
          <dt>{t('admin:limits.storagePerUser')}</dt>
          <dd>
            {bytesText(limits.storageQuotaBytes)}
            <span class="muted">
              {' '}
              · {t('admin:limits.mostStorage', { storage: bytesText(limits.mostStorageBytes) })}
            </span>
          </dd>
        </dl>
      )}
      <p class="muted">{t('admin:limits.explained')}</p>
    </section>
  );
}
