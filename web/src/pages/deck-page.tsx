import { useLayoutEffect, useRef, useState } from 'preact/hooks';
import type { Map as MapLibreMap } from 'maplibre-gl';
import { takeEarly } from '../api/early-reads';
import type { Deck } from '../api/types';
import { baseMapAfter, createMap, setBaseLayer, whenStyleReady } from '../map/create-map';
import { DeckContent, firstSlideSources } from '../map/deck-content';
import { firstSlideTiles } from '../map/first-slide-tiles';
import { drawSlidePreview, previewable } from '../map/slide-preview';
import { DeckPlayer } from '../room/deck-player';
import { afterNextFrame } from '../ui/after-frame';
import { InlineError, useInlineError } from '../ui/inline-error';

const NOT_PUBLIC = 'This presentation is not public, or does not exist.';
/** How long the page waits for the deck before it shows a blank map (the world) meanwhile. */
const DECK_WAIT_MS = 300;
/** How long the map waits to be made after the deck is read, for the preview to draw first (its tiles to come). */
const PREVIEW_WAIT_MS = 150;
const WORLD = { lat: 20, lng: 0, zoom: 1.5 };

/** /p/:roomId: the published presentation, for anyone (even when the room itself is private). */
export function DeckPage({ roomId }: { roomId: string }) {
  const [deck, setDeck] = useState<Deck | null>(null);
  const { error, attempt } = useInlineError({ 401: NOT_PUBLIC, 403: NOT_PUBLIC, 404: NOT_PUBLIC });
  const [shown, setShown] = useState<{ map: MapLibreMap; content: DeckContent } | null>(null);
  const container = useRef<HTMLDivElement>(null);
  const preview = useRef<HTMLDivElement>(null);
  // A layout effect: it runs as soon as the page is rendered, not after a frame is drawn, which a
  // browser drawing in software draws late. Once the deck is read (its request left before the
  // application's scripts ran: it is usually in), the first slide is drawn at once as a preview
  // (map/slide-preview.ts) from the tiles read with it, and the map is made in the task after
  // that frame (making it holds the page for a few hundred ms: its WebGL context), at the first
  // slide's view and with its sources (layers, markers, drawings) in the style it loads first,
  // which MapLibre reads before its first frame. A deck slow to read gets a blank map after
  // DECK_WAIT_MS; tiles slow to come, the map after PREVIEW_WAIT_MS. The first slide's layers go
  // on the map in whichever comes last, the deck or the map's style; the preview goes as the
  // map draws the slide.
  useLayoutEffect(() => {
    let made: MapLibreMap | undefined;
    let loaded: Deck | undefined;
    let styled = false;
    let removed = false;
    let mapDrawn = false;
    let marked = false;
    const markShown = () => {
      if (!marked) performance.mark('maproom:slide-shown');
      marked = true;
    };
    const cancels: (() => void)[] = [];
    // The first slide's content is drawn before the offline base map's coastlines are cut (BaseMap.after).
    let firstShown!: () => void;
    const drawnFirst = new Promise<void>((resolve) => (firstShown = resolve));
    const make = () => {
      if (made || removed) return;
      const first = loaded?.slides[0];
      const map = createMap(
        container.current!,
        first?.view ?? WORLD,
        'blank',
        null,
        loaded && firstSlideSources(loaded),
      );
      made = map;
      baseMapAfter(map, drawnFirst);
      whenStyleReady(map, () => {
        styled = true;
        present();
      });
    };
    const present = () => {
      if (!made || !loaded || !styled || removed) return;
      const content = showFirstSlide(made, loaded, () => {
        mapDrawn = true;
        preview.current?.replaceChildren();
        container.current!.dataset.ready = 'true';
        // User Timing marks for the benchmark (bench/web.ts) and the browser's performance panel:
        // the first frame with the first slide drawn (the preview's or the map's), and the map's own.
        markShown();
        performance.mark('maproom:slide-map-drawn');
        firstShown();
      });
      setShown({ map: made, content });
    };
    // Whether the preview was drawn; any failure (a tile refused, a bad PNG) is no preview.
    const previewFirst = async (deck: Deck) => {
      try {
        if (!previewable(deck)) return false;
        const tiles = await firstSlideTiles(deck);
        if (!(await drawSlidePreview(preview.current!, deck, tiles, () => !removed && !mapDrawn))) return false;
        const frame = requestAnimationFrame(markShown);
        cancels.push(() => cancelAnimationFrame(frame));
        return true;
      } catch {
        return false;
      }
    };
    const slow = setTimeout(make, DECK_WAIT_MS);
    void attempt(() =>
      takeEarly('deck', roomId).then(
        (read) => {
          loaded = read;
          clearTimeout(slow);
          const waited = setTimeout(make, PREVIEW_WAIT_MS);
          void previewFirst(read).then((drawn) => {
            clearTimeout(waited);
            if (removed) return;
            if (drawn) cancels.push(afterNextFrame(make));
            else make();
          });
          cancels.push(() => clearTimeout(waited));
          present();
          setDeck(read);
        },
        (error: unknown) => {
          // No map behind the message the page shows instead.
          clearTimeout(slow);
          throw error;
        },
      ),
    );
    return () => {
      removed = true;
      clearTimeout(slow);
      for (const cancel of cancels) cancel();
      made?.remove();
    };
  }, [roomId]);
  return (
    <>
      {error && (
        <main class="page narrow">
          <h1>Presentation</h1>
          <InlineError message={error} />
        </main>
      )}
      <div class="deck-page" hidden={!!error}>
        <div ref={container} class="map" role="application" aria-label="Presentation map" data-testid="map" />
        <div ref={preview} class="slide-preview" aria-hidden="true" />
        {!deck && <p class="deck-caption">Loading the presentation…</p>}
        {deck && shown && (
          <DeckPlayer map={shown.map} slides={deck.slides} onShow={(slide) => shown.content.show(slide)} />
        )}
      </div>
    </>
  );
}

/** Moves the map to the deck's first slide and shows its objects; `drawn` hears when they are drawn. */
function showFirstSlide(map: MapLibreMap, deck: Deck, drawn: () => void): DeckContent {
  const first = deck.slides[0];
  if (first)
    map.jumpTo({
      center: [first.view.lng, first.view.lat],
      zoom: first.view.zoom,
      bearing: first.view.bearing ?? 0,
      pitch: first.view.pitch ?? 0,
    });
  setBaseLayer(map, first?.baseLayer ?? null, null);
  return new DeckContent(map, deck, drawn);
}
