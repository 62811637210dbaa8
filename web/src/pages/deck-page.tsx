import { useLayoutEffect, useRef, useState } from 'preact/hooks';
import type { Map as MapLibreMap } from 'maplibre-gl';
import { takeEarly } from '../api/early-reads';
import type { Deck } from '../api/types';
import { baseMapAfter, createMap, setBaseLayer, whenStyleReady } from '../map/create-map';
import { DeckContent, firstSlideSources } from '../map/deck-content';
import { firstSlideTiles } from '../map/first-slide-tiles';
import { fittedDeck } from '../map/slide-fit';
import { drawSlidePreview, previewable } from '../map/slide-preview';
import { DeckOpening } from '../opening';
import { navigate } from '../router';
import { DeckPlayer } from '../room/deck-player';
import { bindEmbedBridge } from '../embed/embed-bridge';
import { embedded } from '../session';
import { browserClock } from '../ui/after-frame';
import { InlineError, useInlineError } from '../ui/inline-error';
import { t } from '../i18n/index.js';

const WORLD = { lat: 20, lng: 0, zoom: 1.5 };

/** /p/:roomId: the published presentation, for anyone (even when the room itself is private). */
export function DeckPage({ roomId }: { roomId: string }) {
  // Presented from the room (its Slides panel): End goes back there.
  const [fromRoom] = useState(() => new URLSearchParams(location.search).get('from') === 'room');
  const [deck, setDeck] = useState<Deck | null>(null);
  const notPublic = t('auth:deckPage.notPublic');
  const { error, attempt } = useInlineError({ 401: notPublic, 403: notPublic, 404: notPublic });
  const [shown, setShown] = useState<{ map: MapLibreMap; content: DeckContent } | null>(null);
  const container = useRef<HTMLDivElement>(null);
  const preview = useRef<HTMLDivElement>(null);
  // A layout effect: it runs as soon as the page is rendered, not after a frame is drawn, which a
  // browser drawing in software draws late. The deck's opening (opening.ts, DeckOpening) says
  // when: the first slide's preview (map/slide-preview.ts) from the tiles read with the deck,
  // the map (at the first slide's view and with its sources, layers, markers, drawings, in the
  // style it loads first, which MapLibre reads before its first frame), the first slide's
  // layers on it; the preview goes as the map draws the slide.
  useLayoutEffect(() => {
    let made: MapLibreMap | undefined;
    const opening = new DeckOpening<Deck>(browserClock, (deck, wanted) => previewFirst(preview.current!, deck, wanted));
    let marked = false;
    const markShown = () => {
      if (!marked) performance.mark('maproom:slide-shown');
      marked = true;
    };
    const stops = [
      opening.showOn(container.current!),
      opening.when(
        (state) => state.mapDue,
        () => {
          const loaded = opening.content;
          made = createMap(
            container.current!,
            loaded?.slides[0]?.view ?? WORLD,
            'blank',
            null,
            loaded && firstSlideSources(loaded),
          );
          opening.mapMade();
          // In another site's page: the embed script's messages (embed/embed-bridge.ts).
          if (embedded) stops.push(bindEmbedBridge(made, roomId));
          // The first slide's content is drawn before the offline base map's coastlines are cut (BaseMap.after).
          baseMapAfter(made, opening.settled());
          whenStyleReady(made, () => opening.styleReady());
        },
      ),
      opening.when(
        (state) => state.contentDue,
        () => setShown({ map: made!, content: showFirstSlide(made!, opening.content!, () => opening.drawn()) }),
      ),
      // User Timing marks for the benchmark (bench/web.ts) and the browser's performance panel:
      // the first frame with the first slide drawn (the preview's or the map's), and the map's own.
      opening.when(() => opening.has('previewed'), markShown),
      opening.when(
        () => opening.has('drawn'),
        () => {
          preview.current?.replaceChildren();
          container.current!.dataset.ready = 'true';
          markShown();
          performance.mark('maproom:slide-map-drawn');
        },
      ),
    ];
    void attempt(() =>
      takeEarly('deck', roomId).then(
        (taken) => {
          // Each slide shows the area framed where it was made, whole, on this screen.
          const read = fittedDeck(taken);
          opening.contentIn(read);
          setDeck(read);
        },
        (error: unknown) => {
          // No map behind the message the page shows instead.
          opening.fail();
          throw error;
        },
      ),
    );
    return () => {
      opening.leave();
      for (const stop of stops) stop();
      made?.remove();
    };
  }, [roomId]);
  return (
    <>
      {error && (
        <main class="page narrow">
          <h1>{t('auth:deckPage.title')}</h1>
          <InlineError message={error} />
        </main>
      )}
      <div class="deck-page" hidden={!!error}>
        <div ref={container} class="map" role="application" aria-label={t('auth:deckPage.map')} data-testid="map" />
        <div ref={preview} class="slide-preview" aria-hidden="true" />
        {!deck && <p class="deck-caption">{t('auth:deckPage.loading')}</p>}
        {deck && shown && (
          <DeckPlayer
            map={shown.map}
            slides={deck.slides}
            deck={deck}
            onShow={(slide) => shown.content.show(slide)}
            onClose={fromRoom ? () => navigate(`/r/${roomId}`) : undefined}
          />
        )}
      </div>
    </>
  );
}

/** Draws the deck's first slide as a preview: whether it did; any failure (a tile refused, a bad PNG) is no preview. */
async function previewFirst(element: HTMLElement, deck: Deck, wanted: () => boolean): Promise<boolean> {
  try {
    if (!previewable(deck)) return false;
    const tiles = await firstSlideTiles(deck);
    return await drawSlidePreview(element, deck, tiles, wanted);
  } catch {
    return false;
  }
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
