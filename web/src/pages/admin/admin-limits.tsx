import { useEffect, useState } from 'preact/hooks';
import { api, ok } from '../../api/client';
import type { Limits } from '../../api/types';
import { InlineError, useInlineError } from '../../ui/inline-error';
import { bytesText } from './admin-format';

/** Limits: the settings per user, with the largest use of any one user. */
export function LimitsSection() {
  const [limits, setLimits] = useState<Limits | null>(null);
  const { error, attempt } = useInlineError();
  useEffect(() => void attempt(async () => setLimits(await ok(api.GET('/api/admin/limits')))), []);
  return (
    <section aria-labelledby="limits-heading">
      <h2 id="limits-heading">Limits</h2>
      <InlineError message={error} />
      {limits && (
        <dl class="limits">
          <dt>Rooms per user (MAX_ROOMS_PER_USER)</dt>
          <dd>
            {limits.maxRoomsPerUser === 0 ? 'No limit' : limits.maxRoomsPerUser}
            <span class="muted"> · most owned by one user: {limits.mostRoomsOwned}</span>
          </dd>
          <dt>Storage per user (STORAGE_QUOTA_BYTES)</dt>
          <dd>
            {bytesText(limits.storageQuotaBytes)}
            <span class="muted"> · most used by one user: {bytesText(limits.mostStorageBytes)}</span>
          </dd>
        </dl>
      )}
      <p class="muted">
        A room beyond the limit is refused when it is created (and so when a clone or import needs a new one); a file
        beyond the storage limit is refused when it is stored. Each user's use is in the Users list.
      </p>
    </section>
  );
}
