import { ApiError, messageOf } from '../api/client';
import { errorWords } from './error-words';

/** A button of a notice ("Undo"). */
export interface NoticeAction {
  label: string;
  run: () => void;
}

/** Shows a short message to the person (a failed save, a finished upload), with a button when given. */
export type Notify = (message: string, kind?: 'info' | 'error', action?: NoticeAction) => void;

/** What the room's panels use to run a request: see `attemptWith`. */
export type Attempt = <T>(work: () => Promise<T>, done?: string) => Promise<T | undefined>;

/** Words of a page for some of the service's error statuses (a 404 that means "no such room"). */
export type WordsByStatus = Partial<Record<number, string>>;

/**
 * The message of a failure for a person to read: the page's words for its status, else the
 * service's answer in words (the field named as the page calls it, sizes in MB: error-words.ts).
 */
export function explain(error: unknown, byStatus: WordsByStatus = {}): string {
  if (!(error instanceof ApiError)) return messageOf(error);
  return byStatus[error.status] || errorWords(error.code, error.message, error.details);
}

/**
 * The one error catch of the web app (the room's panels; the pages through ui/inline-error.tsx): runs `work`; a failure becomes an error notice with
 * the service's message, a success the `done` notice when one is given. Resolves to the work's
 * result, or undefined when it failed.
 */
export function attemptWith(notify: Notify, byStatus?: WordsByStatus): Attempt {
  return async (work, done) => {
    try {
      const result = await work();
      if (done) notify(done);
      return result;
    } catch (error) {
      notify(explain(error, byStatus), 'error');
      return undefined;
    }
  };
}
