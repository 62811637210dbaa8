import type { OpeningClock } from '../opening';

/**
 * Calls `callback` once the browser has drawn its next frame (in a task after it), or after
 * `ms` in a tab that draws no frames (opened in the background). Returns the cancel.
 */
export function afterNextFrame(callback: () => void, ms = 100): () => void {
  let timer: ReturnType<typeof setTimeout> | undefined;
  let done = false;
  const run = () => {
    if (done) return;
    done = true;
    callback();
  };
  const frame = requestAnimationFrame(() => (timer = setTimeout(run)));
  const fallback = setTimeout(run, ms);
  return () => {
    done = true;
    cancelAnimationFrame(frame);
    clearTimeout(timer);
    clearTimeout(fallback);
  };
}

/** The browser's timers, for a page's opening (opening.ts). */
export const browserClock: OpeningClock = {
  after(ms, run) {
    const timer = setTimeout(run, ms);
    return () => clearTimeout(timer);
  },
  onNextFrame(run) {
    const frame = requestAnimationFrame(run);
    return () => cancelAnimationFrame(frame);
  },
  afterNextFrame: (run) => afterNextFrame(run),
};
