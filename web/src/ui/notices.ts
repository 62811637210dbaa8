import { messageOf } from '../api/client';

/** Shows a short message to the person (a failed save, a finished upload). */
export type Notify = (message: string, kind?: 'info' | 'error') => void;

/** What the room's panels use to run a request: see `attemptWith`. */
export type Attempt = <T>(work: () => Promise<T>, done?: string) => Promise<T | undefined>;

/**
 * The one error catch of the room's panels: runs `work`; a failure becomes an error notice with
 * the service's message, a success the `done` notice when one is given. Resolves to the work's
 * result, or undefined when it failed.
 */
export function attemptWith(notify: Notify): Attempt {
  return async (work, done) => {
    try {
      const result = await work();
      if (done) notify(done);
      return result;
    } catch (error) {
      notify(messageOf(error), 'error');
      return undefined;
    }
  };
}
