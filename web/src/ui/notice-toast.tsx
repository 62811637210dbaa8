import { useMemo, useState } from 'preact/hooks';
import { t } from '../i18n/index.js';
import type { NoticeAction, Notify } from './notices';

/** How long a notice that something worked stays (one with a button, such as Undo, longer); an error stays until it is dismissed. */
const INFO_MS = 5000;
const ACTION_MS = 10_000;

interface Notice {
  message: string;
  kind: 'info' | 'error';
  action?: NoticeAction;
}

/**
 * The room's notices: `notify` shows one (the newest replaces the one shown); render `toast`.
 * A success goes by itself after 5 s; an error stays until the person dismisses it, so that
 * it can be read (and a new error is not missed while the person looks elsewhere).
 */
export function useNotices(): { notify: Notify; toast: preact.JSX.Element | null } {
  const [notice, setNotice] = useState<Notice | null>(null);
  const notify = useMemo<Notify>(
    () =>
      (message, kind = 'info', action) => {
        const shown = { message, kind, action };
        setNotice(shown);
        if (kind === 'info') setTimeout(() => setNotice((n) => (n === shown ? null : n)), action ? ACTION_MS : INFO_MS);
      },
    [],
  );
  const toast = notice && (
    <div role={notice.kind === 'error' ? 'alert' : 'status'} class={`toast ${notice.kind}`}>
      <span>{notice.message}</span>
      {notice.action && (
        <button
          type="button"
          class="link"
          onClick={() => {
            setNotice(null);
            notice.action!.run();
          }}
        >
          {notice.action.label}
        </button>
      )}
      <button type="button" class="dismiss" aria-label={t('ui:notice.dismiss')} onClick={() => setNotice(null)}>
        ×
      </button>
    </div>
  );
  return { notify, toast };
}
