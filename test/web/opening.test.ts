import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { DeckOpening, type Opening, type OpeningClock, RoomOpening } from '../../web/src/opening.js';

/**
 * The web application's opening of a room and of a deck (web/src/opening.ts): the order of its
 * steps and when it asks the page to make its map, to put its content on it and lets what waits
 * for the drawing go, for content fast and slow, a preview drawn or not, and a page left or
 * failed midway. The clock is the test's own: time passes and frames are drawn when it says.
 */

/** A clock whose time and frames move only when told (`tick`, `frame`). */
class TestClock implements OpeningClock {
  now = 0;
  private timers: { at: number; run: () => void }[] = [];
  private frames: (() => void)[] = [];
  private afterFrames: (() => void)[] = [];

  after(ms: number, run: () => void) {
    const timer = { at: this.now + ms, run };
    this.timers.push(timer);
    return () => void (this.timers = this.timers.filter((t) => t !== timer));
  }
  onNextFrame(run: () => void) {
    this.frames.push(run);
    return () => void (this.frames = this.frames.filter((f) => f !== run));
  }
  afterNextFrame(run: () => void) {
    this.afterFrames.push(run);
    return () => void (this.afterFrames = this.afterFrames.filter((f) => f !== run));
  }
  /** Moves the time on by `ms`, running the timers due on the way, in order. */
  tick(ms: number) {
    const end = this.now + ms;
    for (;;) {
      const next = this.timers.filter((t) => t.at <= end).sort((a, b) => a.at - b.at)[0];
      if (!next) break;
      this.timers = this.timers.filter((t) => t !== next);
      this.now = next.at;
      next.run();
    }
    this.now = end;
  }
  /** The browser draws a frame: its frame callbacks, then the tasks after it. */
  frame() {
    const [frames, after] = [this.frames, this.afterFrames];
    this.frames = [];
    this.afterFrames = [];
    for (const run of frames) run();
    for (const run of after) run();
  }
  get pending() {
    return this.timers.length + this.frames.length + this.afterFrames.length;
  }
}

/** Everything the opening says, in order: each step reached, and each thing it asks for (`map`, `content`, `settled`). */
function record(opening: Opening<unknown>): string[] {
  const heard: string[] = [];
  let last = opening.get();
  opening.subscribe((state) => {
    heard.push(...state.steps.slice(last.steps.length));
    if (state.mapDue && !last.mapDue) heard.push('map due');
    if (state.contentDue && !last.contentDue) heard.push('content due');
    if (state.settled && !last.settled) heard.push('settled');
    last = state;
  });
  return heard;
}

/** A promise and its resolve, as a read in flight. */
function reading<T>() {
  let resolve!: (value: T) => void;
  let reject!: (error: Error) => void;
  const promise = new Promise<T>((yes, no) => {
    resolve = yes;
    reject = no;
  });
  return { promise, resolve, reject };
}

const answered = () => new Promise((resolve) => setImmediate(resolve));

describe('a room opening', () => {
  test('content in time: the map after it, the preview, the style, the sources a frame later, drawn', async () => {
    const clock = new TestClock();
    const opening = new RoomOpening(clock);
    const heard = record(opening);
    assert.equal(opening.get().stage, 'reads-sent');
    const content = reading<void>();
    opening.read(content.promise);
    clock.tick(100);
    content.resolve();
    await answered();
    assert.deepEqual(heard, ['content-in', 'map due'], 'the map is made as soon as the content is in');
    opening.mapMade();
    opening.previewShown();
    clock.frame();
    opening.styleReady();
    assert.equal(opening.get().contentDue, false, 'the map gets its content a frame after its style is ready');
    clock.frame();
    opening.drawn();
    assert.deepEqual(heard, [
      'content-in',
      'map due',
      'map-made',
      'previewed',
      'style-ready',
      'content due',
      'drawn',
      'settled',
    ]);
    assert.equal(opening.get().stage, 'drawn');
    clock.tick(60_000);
    assert.equal(clock.pending, 0, 'no timer left');
  });

  test("a preview's frame after the drawing (a busy page) is a step, but the stage stays drawn", async () => {
    const clock = new TestClock();
    const opening = new RoomOpening(clock);
    const heard = record(opening);
    const content = reading<void>();
    opening.read(content.promise);
    content.resolve();
    await answered();
    opening.mapMade();
    opening.styleReady();
    assert.equal(opening.get().stage, 'style-ready', 'the furthest step so far');
    clock.frame();
    opening.drawn();
    assert.deepEqual(heard.slice(-4), ['style-ready', 'content due', 'drawn', 'settled']);
    assert.equal(opening.get().stage, 'drawn');
    // The preview's frame comes last (the content was given to the map by the frame's fallback).
    opening.previewShown();
    clock.frame();
    assert.equal(heard.at(-1), 'previewed');
    assert.equal(opening.get().stage, 'drawn', 'the stage never goes back');
  });

  test('content slow: the map after CONTENT_WAIT_MS, its style, then the content and its sources a frame later', async () => {
    const clock = new TestClock();
    const opening = new RoomOpening(clock);
    const heard = record(opening);
    const content = reading<void>();
    opening.read(content.promise);
    clock.tick(299);
    assert.equal(opening.get().mapDue, false);
    clock.tick(1);
    assert.deepEqual(heard, ['map due']);
    opening.mapMade();
    opening.styleReady();
    clock.frame();
    content.resolve();
    await answered();
    assert.deepEqual(heard, ['map due', 'map-made', 'style-ready', 'content-in']);
    clock.frame();
    assert.deepEqual(heard.slice(4), ['content due']);
  });

  test('what waits for the drawing goes after 5 s without a map, 20 s after the map is made, at once when drawn', () => {
    const noMap = new TestClock();
    const alone = new RoomOpening(noMap);
    noMap.tick(4999);
    assert.equal(alone.get().settled, false);
    noMap.tick(1);
    assert.equal(alone.get().settled, true, 'no map: after 5 s');

    const withMap = new TestClock();
    const mapped = new RoomOpening(withMap);
    withMap.tick(1000);
    mapped.mapMade();
    withMap.tick(19_999);
    assert.equal(mapped.get().settled, false, 'a map being made: the wait starts again, longer');
    withMap.tick(1);
    assert.equal(mapped.get().settled, true, 'after 20 s');
    assert.equal(mapped.get().stage, 'map-made', 'waiting long enough is not being drawn');

    const drawn = new RoomOpening(new TestClock());
    drawn.mapMade();
    drawn.drawn();
    assert.equal(drawn.get().settled, true);
  });

  test('left midway: no timer runs after it and nothing more is reached', async () => {
    const clock = new TestClock();
    const opening = new RoomOpening(clock);
    const heard = record(opening);
    const content = reading<void>();
    opening.read(content.promise);
    opening.leave();
    clock.tick(60_000);
    content.resolve();
    await answered();
    opening.mapMade();
    opening.styleReady();
    clock.frame();
    opening.drawn();
    assert.deepEqual(heard, ['left']);
    assert.equal(clock.pending, 0);
    let settled = false;
    void opening.settled().then(() => (settled = true));
    await answered();
    assert.equal(settled, false, 'what waited for the drawing does not go for a page left');
  });

  test('a read that fails asks for no map; the page fails the opening', async () => {
    const clock = new TestClock();
    const opening = new RoomOpening(clock);
    const heard = record(opening);
    const content = reading<void>();
    opening.read(content.promise);
    content.reject(new Error('refused'));
    await answered();
    opening.fail();
    clock.tick(60_000);
    assert.deepEqual(heard, ['failed']);
  });

  test('a frame-timed step of the page runs after the next frame, not once the opening has ended', () => {
    const clock = new TestClock();
    const opening = new RoomOpening(clock);
    const ran: string[] = [];
    opening.afterNextFrame(() => ran.push('first'));
    clock.frame();
    opening.afterNextFrame(() => ran.push('second'));
    opening.leave();
    clock.frame();
    assert.deepEqual(ran, ['first']);
  });
});

describe('a deck opening', () => {
  /** A deck opening whose preview answers when the test says (`previewed.resolve(drawn)`). */
  function deckOpening() {
    const clock = new TestClock();
    const previewed = reading<boolean>();
    let wanted: () => boolean = () => false;
    const opening = new DeckOpening<string>(clock, (_deck, stillWanted) => {
      wanted = stillWanted;
      return previewed.promise;
    });
    return { clock, opening, previewed, heard: record(opening), wanted: () => wanted() };
  }

  test('a preview drawn: its frame, then the map in the task after it, its style, the slide at once, drawn', async () => {
    const { clock, opening, previewed, heard, wanted } = deckOpening();
    clock.tick(50);
    opening.contentIn('deck');
    assert.equal(opening.content, 'deck');
    assert.equal(wanted(), true);
    previewed.resolve(true);
    await answered();
    assert.deepEqual(heard, ['content-in'], 'the map waits for the preview’s frame');
    clock.frame();
    assert.deepEqual(heard, ['content-in', 'previewed', 'map due']);
    opening.mapMade();
    opening.styleReady();
    opening.drawn();
    assert.equal(wanted(), false, 'a preview is not wanted once the map has drawn');
    assert.deepEqual(heard.slice(3), ['map-made', 'style-ready', 'content due', 'drawn', 'settled']);
    clock.tick(60_000);
    assert.equal(clock.pending, 0);
  });

  test('a preview slow to draw: the map after PREVIEW_WAIT_MS; its late preview is still drawn', async () => {
    const { clock, opening, previewed, heard } = deckOpening();
    opening.contentIn('deck');
    clock.tick(149);
    assert.equal(opening.get().mapDue, false);
    clock.tick(1);
    assert.deepEqual(heard, ['content-in', 'map due']);
    opening.mapMade();
    previewed.resolve(true);
    await answered();
    clock.frame();
    assert.deepEqual(heard, ['content-in', 'map due', 'map-made', 'previewed']);
  });

  test('no preview: the map at once', async () => {
    const { opening, previewed, heard } = deckOpening();
    opening.contentIn('deck');
    previewed.resolve(false);
    await answered();
    assert.deepEqual(heard, ['content-in', 'map due']);
  });

  test('a preview that throws is no preview', async () => {
    const { opening, previewed, heard } = deckOpening();
    opening.contentIn('deck');
    previewed.reject(new Error('a bad PNG'));
    await answered();
    assert.deepEqual(heard, ['content-in', 'map due']);
  });

  test('a deck slow to read: a blank map after DECK_WAIT_MS, the slide on it as soon as the deck is in', async () => {
    const { clock, opening, previewed, heard } = deckOpening();
    clock.tick(299);
    assert.equal(opening.get().mapDue, false);
    clock.tick(1);
    opening.mapMade();
    opening.styleReady();
    assert.equal(opening.get().contentDue, false, 'no content to put on the map yet');
    opening.contentIn('deck');
    assert.deepEqual(heard, ['map due', 'map-made', 'style-ready', 'content-in', 'content due']);
    previewed.resolve(true);
    await answered();
    clock.frame();
    assert.deepEqual(heard.slice(5), ['previewed'], 'asked once for its map');
  });

  test('a deck that cannot be read: no map, and no timer left', () => {
    const { clock, opening, heard } = deckOpening();
    clock.tick(100);
    opening.fail();
    clock.tick(60_000);
    assert.deepEqual(heard, ['failed']);
    assert.equal(clock.pending, 0);
  });

  test('left while the preview draws: no map, and the preview is no longer wanted', async () => {
    const { clock, opening, previewed, heard, wanted } = deckOpening();
    opening.contentIn('deck');
    opening.leave();
    assert.equal(wanted(), false);
    previewed.resolve(true);
    await answered();
    clock.frame();
    clock.tick(60_000);
    assert.deepEqual(heard, ['content-in', 'left']);
  });
});
