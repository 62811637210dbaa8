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

/** A failure's message, announced to screen readers; nothing when there is none. */
export function InlineError({ message }: { message: string }) {
  return message ? (
    <p role="alert" class="error">
      {message}
    </p>
  ) : null;
}
