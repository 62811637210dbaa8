import { useEffect, useState } from 'preact/hooks';
import { api, ok } from '../../api/client';
import type { AuditEntry } from '../../api/types';
import { t } from '../../i18n/index.js';
import { session } from '../../session';
import { useStore } from '../../store';
import { InlineError, useInlineError } from '../../ui/inline-error';
import { timeText } from './admin-format';

/** What each action of the audit list is called on the page. */
const ACTION_WORDS: Record<AuditEntry['action'], () => string> = {
  'user.disable': () => t('admin:audit.actions.userDisable'),
  'user.enable': () => t('admin:audit.actions.userEnable'),
  'user.delete': () => t('admin:audit.actions.userDelete'),
  'user.password-reset': () => t('admin:audit.actions.userPasswordReset'),
  'room.transfer': () => t('admin:audit.actions.roomTransfer'),
  'room.delete': () => t('admin:audit.actions.roomDelete'),
  'job.retry': () => t('admin:audit.actions.jobRetry'),
  'job.cancel': () => t('admin:audit.actions.jobCancel'),
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
      <h2 id="audit-heading">{t('admin:tabs.audit')}</h2>
      <InlineError message={error} />
      {entries === null ? (
        <p>{t('common:loading')}</p>
      ) : entries.length === 0 ? (
        <p>{t('admin:audit.empty')}</p>
      ) : (
        <ul class="list" aria-label={t('admin:audit.list')}>
          {entries.map((entry) => (
            <li key={`${entry.at}-${entry.action}-${entry.target}`}>
              <span>
                {ACTION_WORDS[entry.action]()} <code>{entry.target}</code>
              </span>
              <span class="muted">
                {entry.adminId === user?.id
                  ? t('admin:audit.byYou', { time: timeText(entry.at) })
                  : t('admin:audit.by', { time: timeText(entry.at), admin: entry.adminId })}
              </span>
            </li>
          ))}
        </ul>
      )}
      {next && (
        <button type="button" onClick={() => void load(next)}>
          {t('admin:audit.more')}
        </button>
      )}
    </section>
  );
}
