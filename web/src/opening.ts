// `.js`: test/web/opening.test.ts imports this file, type-checked under NodeNext.
import { Store } from './store.js';

/**
 * A room's or a deck's opening, in the order it usually goes (STEPS): its first reads sent
 * (src/early.ts), its content in, its map made, the content's preview drawn (optional: the
 * room's markers, the deck's first slide), the map's style ready, the content drawn by the map.
 * `failed` (the page shows a message instead) and `left` (another page opened) end it: no step
 * and no timer of it runs after them. The map may be made before the content is in (the content
 * slow to come), its style be ready before it, and a preview's frame come late (a busy page):
 * `steps` lists them in the order they came, `stage` is the furthest one of STEPS (what the
 * map's `data-opening` shows), which never goes back.
 */
const STEPS = ['reads-sent', 'content-in', 'map-made', 'previewed', 'style-ready', 'drawn', 'failed', 'left'] as const;
export type OpeningStep = (typeof STEPS)[number];

/** Where the opening is, and what it asks of the page now (each true once its moment has come). */
export interface OpeningState {
  stage: OpeningStep;
  steps: readonly OpeningStep[];
  /** The page makes its map now. */
  mapDue: boolean;
  /** The page puts its content on the map now (its style ready and the content in). */
  contentDue: boolean;
  /** What waits for the content to be drawn may go: it is drawn, or the opening has waited long enough. */
  settled: boolean;
}

/** The opening's timers, given to it (the browser's, ui/after-frame.ts; a test's own); each returns its cancel. */
export interface OpeningClock {
  after(ms: number, run: () => void): () => void;
  /** `run` as the browser draws its next frame (requestAnimationFrame). */
  onNextFrame(run: () => void): () => void;
  /** `run` in a task after the browser's next frame. */
  afterNextFrame(run: () => void): () => void;
}

/**
 * What waits for the content to be drawn (the room's markers read whole, the offline base map's
 * coastlines) waits at most this long without a map, and this long once the map is made (a busy
 * browser can take several seconds to draw it).
 */
const NO_MAP_MS = 5000;
const MAP_MS = 20_000;
/** How long a room waits for its content before it renders without it (its map first). */
const CONTENT_WAIT_MS = 300;
/** How long a deck's page waits for the deck before it makes a blank map (the world) meanwhile. */
const DECK_WAIT_MS = 300;
/** How long a deck's map waits to be made after the deck is in, for the preview to draw first (its tiles to come). */
const PREVIEW_WAIT_MS = 150;

/**
 * The one owner of a page's opening: the page, its map view and its model tell it what happened
 * (`mapMade`, `styleReady`, `drawn`, ...), subscribe to it (a `Store`) and do what it asks for
 * when it asks for it; every timer of the opening is its own, and goes when the opening ends.
 */
export class Opening<Content = unknown> extends Store<OpeningState> {
  private readonly reached = new Set<OpeningStep>(['reads-sent']);
  private readonly timers = new Set<() => void>();
  private fallback: () => void;
  /** The content, once in (`contentIn`). */
  content: Content | undefined;

  constructor(protected readonly clock: OpeningClock) {
    super({ stage: 'reads-sent', steps: ['reads-sent'], mapDue: false, contentDue: false, settled: false });
    this.fallback = this.timer('after', () => this.ask('settled'), NO_MAP_MS);
  }

  /** Whether the opening has reached `step`. */
  has(step: OpeningStep): boolean {
    return this.reached.has(step);
  }

  /** Whether it has ended (failed or left). */
  get over(): boolean {
    return this.has('failed') || this.has('left');
  }

  /** Calls `run` once, as soon as `ready` holds (now, if it does); returns the cancel. */
  when(ready: (state: OpeningState) => boolean, run: () => void): () => void {
    if (ready(this.get())) {
      run();
      return () => undefined;
    }
    // The state now, not the one heard: a step taken by another watcher may have come in between.
    const stop = this.subscribe(() => {
      if (!ready(this.get())) return;
      stop();
      run();
    });
    return stop;
  }

  /** Resolves once what waits for the content to be drawn may go (`settled`); never, for an opening that ended first. */
  settled(): Promise<void> {
    return new Promise((resolve) => this.when((state) => state.settled, resolve));
  }

  /** The content is in. */
  contentIn(content: Content) {
    if (this.over) return;
    this.content = content;
    this.reach('content-in');
    this.checkContent();
  }

  /** The page made its map: what waits for the drawing now waits longer for it. */
  mapMade() {
    if (this.over) return;
    this.fallback();
    this.fallback = this.timer('after', () => this.ask('settled'), MAP_MS);
    this.reach('map-made');
  }

  /** The page drew a preview of its content: `previewed` once the browser has drawn its frame. */
  previewShown() {
    this.timer('onNextFrame', () => this.reach('previewed'));
  }

  /** The map's style is loaded: content can be added to it. */
  styleReady() {
    this.reach('style-ready');
    this.checkContent();
  }

  /** The map has drawn the content. */
  drawn() {
    this.fallback();
    this.reach('drawn');
    this.ask('settled');
  }

  /** The page shows a message instead (the content could not be read, or may not be seen). */
  fail() {
    this.end('failed');
  }

  /** The page is left. */
  leave() {
    this.end('left');
  }

  /** Shows the stage on `element` as `data-opening` (what the browser tests wait for); returns the undo. */
  showOn(element: { dataset: Record<string, string | undefined> }): () => void {
    const show = () => (element.dataset.opening = this.get().stage);
    show();
    return this.subscribe(show);
  }

  /** `run` in a task after the browser's next frame, unless the opening has ended by then; returns the cancel. */
  afterNextFrame(run: () => void): () => void {
    return this.timer('afterNextFrame', run);
  }

  /** The content goes on the map as soon as both are ready (the room's a frame later: RoomOpening). */
  protected contentReady() {
    this.ask('contentDue');
  }

  protected reach(step: OpeningStep) {
    if (this.over || this.reached.has(step)) return;
    this.reached.add(step);
    const { stage, steps } = this.get();
    this.set({
      ...this.get(),
      stage: STEPS.indexOf(step) > STEPS.indexOf(stage) ? step : stage,
      steps: [...steps, step],
    });
  }

  protected ask(what: 'mapDue' | 'contentDue' | 'settled') {
    if (this.over || this.get()[what]) return;
    this.set({ ...this.get(), [what]: true });
  }

  /** One of the opening's timers: cancelled when it ends. */
  protected timer(kind: keyof OpeningClock, run: () => void, ms = 0): () => void {
    if (this.over) return () => undefined;
    const fire = () => {
      this.timers.delete(cancel);
      if (!this.over) run();
    };
    const stop = kind === 'after' ? this.clock.after(ms, fire) : this.clock[kind](fire);
    const cancel = () => {
      this.timers.delete(cancel);
      stop();
    };
    this.timers.add(cancel);
    return cancel;
  }

  private checkContent() {
    if (this.has('content-in') && this.has('style-ready')) this.contentReady();
  }

  private end(step: 'failed' | 'left') {
    if (this.over) return;
    for (const cancel of [...this.timers]) cancel();
    this.reached.add(step);
    this.set({ ...this.get(), stage: step, steps: [...this.get().steps, step] });
  }
}

/**
 * A room's opening: its map is due once its content is in, or after CONTENT_WAIT_MS (a room
 * read in time shows its markers before or with the map's first frames, one slower to read its
 * map first: rendering the room is a long task, and the reads' answers would otherwise wait
 * behind it and the map's frames). A room read in time at a view known beforehand has its
 * markers' preview drawn first and its map made in the task after that frame (MapView,
 * room/map-view.tsx). The map's own sources get the content a frame after both are ready:
 * after the preview's frame (handing the markers to MapLibre's worker is a long task).
 */
export class RoomOpening<Content = unknown> extends Opening<Content> {
  /** The room's content is being read (`loading`). */
  read(loading: Promise<Content>) {
    const waited = this.timer('after', () => this.ask('mapDue'), CONTENT_WAIT_MS);
    loading.then(
      (content) => {
        waited();
        this.contentIn(content);
        this.ask('mapDue');
      },
      () => undefined,
    );
  }

  protected override contentReady() {
    this.timer('afterNextFrame', () => this.ask('contentDue'));
  }
}

/**
 * A deck's opening. Once the deck is in (its request left before the application's scripts ran:
 * it is usually in), its first slide is drawn at once as a preview (`preview`: map/slide-preview.ts)
 * and the map is made in the task after that frame (making it holds the page for a few hundred
 * ms: its WebGL context), at the first slide's view and with its sources. A deck slow to read
 * gets a blank map after DECK_WAIT_MS; a preview slow to draw (its tiles slow to come), the map
 * after PREVIEW_WAIT_MS; no preview, the map at once. The first slide goes on the map as soon as
 * both the deck and the map's style are in.
 */
export class DeckOpening<Content = unknown> extends Opening<Content> {
  private readonly stopSlow: () => void;

  /**
   * `preview` draws the content's preview and answers whether it did (`wanted` says whether it
   * is still wanted once drawn: not when the page was left or the map drew first).
   */
  constructor(
    clock: OpeningClock,
    private readonly preview: (content: Content, wanted: () => boolean) => Promise<boolean>,
  ) {
    super(clock);
    this.stopSlow = this.timer('after', () => this.ask('mapDue'), DECK_WAIT_MS);
  }

  override contentIn(content: Content) {
    if (this.over) return;
    this.stopSlow();
    const waited = this.timer('after', () => this.ask('mapDue'), PREVIEW_WAIT_MS);
    // A preview that failed (a tile refused, a bad PNG) is no preview.
    const drawing = this.preview(content, () => !this.over && !this.has('drawn')).catch(() => false);
    void drawing.then((drawn) => {
      waited();
      if (this.over) return;
      if (!drawn) return this.ask('mapDue');
      this.previewShown();
      this.timer('afterNextFrame', () => this.ask('mapDue'));
    });
    super.contentIn(content);
  }
}
