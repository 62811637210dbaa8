import { useMemo, useState } from 'preact/hooks';
import { type Attempt, attemptWith, type WordsByStatus } from './notices';

/**
 * How the pages outside a room (log in, your rooms, a deck, confirming an address) show a
 * failure: inline, in place of a notice. `attempt` clears the last message, runs the work, and
 * on a failure keeps its message in `error` (see `attemptWith`); render it with `<InlineError>`.
 */
export function useInlineError(byStatus?: WordsByStatus): { error: string; attempt: Attempt } {
  const [error, setError] = useState('');
  const attempt = useMemo<Attempt>(() => {
    const run = attemptWith((message, kind) => kind === 'error' && setError(message), byStatus);
    return (work, done) => {
      setError('');
      return run(work, done);
    };
  }, []);
  return { error, attempt };
}

/**
 * A form's submit with its failure inline: `submit(event, work)` keeps the page where it is,
 * marks the form `busy` while the work runs and gives the work's result (undefined on a
 * failure, whose message is then in `error`, as with `useInlineError`).
 */
export function useInlineSubmit(byStatus?: WordsByStatus) {
  const { error, attempt } = useInlineError(byStatus);
  const [busy, setBusy] = useState(false);
  const submit = async <T,>(event: Event, work: () => Promise<T>): Promise<T | undefined> => {
    event.preventDefault();
    setBusy(true);
    const result = await attempt(work);
    setBusy(false);
    return result;
  };
  return { error, busy, submit };
}

/** A failure's message, announced to screen readers; nothing when there is none. */
export function InlineError({ message }: { message: string }) {
  return message ? (
    <p role="alert" class="error">
      {message}
    </p>
  ) : null;
}
