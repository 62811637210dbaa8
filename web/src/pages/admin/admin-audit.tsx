import { useEffect, useState } from 'preact/hooks';
import { api, ok } from '../../api/client';
import type { AuditEntry } from '../../api/types';
import { session } from '../../session';
import { useStore } from '../../store';
import { InlineError, useInlineError } from '../../ui/inline-error';
import { timeText } from './admin-format';

/** What each action of the audit list is called on the page. */
const ACTION_WORDS: Record<AuditEntry['action'], string> = {
  'user.disable': 'Disabled user',
  'user.enable': 'Enabled user',
  'user.delete': 'Deleted user',
  'user.password-reset': 'Sent a reset link to user',
  'room.transfer': 'Handed over room',
  'room.delete': 'Deleted room',
  'job.retry': 'Retried job',
  'job.cancel': 'Cancelled job',
};

/** The audit list: every admin action, newest first. */
export function AuditSection() {
  const { user } = useStore(session);
  const [entries, setEntries] = useState<AuditEntry[] | null>(null);
  const [next, setNext] = useState<string | null>(null);
  const { error, attempt } = useInlineError();
  const load = (after?: string) =>
    attempt(async () => {
      const page = await ok(api.GET('/api/admin/audit', { params: { query: after ? { after } : {} } }));
      setEntries((shown) => (after ? [...(shown ?? []), ...page.entries] : page.entries));
      setNext(page.next);
    });
  useEffect(() => void load(), []);
  return (
    <section aria-labelledby="audit-heading">
      <h2 id="audit-heading">Audit</h2>
      <InlineError message={error} />
      {entries === null ? (
        <p>Loading…</p>
      ) : entries.length === 0 ? (
        <p>No admin actions yet.</p>
      ) : (
        <ul class="list" aria-label="Audit list">
          {entries.map((entry) => (
            <li key={`${entry.at}-${entry.action}-${entry.target}`}>
              <span>
                {ACTION_WORDS[entry.action]} <code>{entry.target}</code>
              </span>
              <span class="muted">
                {timeText(entry.at)} by {entry.adminId === user?.id ? 'you' : entry.adminId}
              </span>
            </li>
          ))}
        </ul>
      )}
      {next && (
        <button type="button" onClick={() => void load(next)}>
          More entries
        </button>
      )}
    </section>
  );
}
