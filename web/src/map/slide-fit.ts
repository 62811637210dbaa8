/** A slide's view: where and how the map looked, and the size in CSS px of the map it was framed on. */
export interface FramedView {
  lat: number;
  lng: number;
  zoom: number;
  bearing?: number;
  pitch?: number;
  width?: number;
  height?: number;
}

const MIN_ZOOM = 0;
const MAX_ZOOM = 24;

/**
 * A slide's view on a screen of `width` x `height` px: the area framed where the slide was made
 * (its view's width and height) fits the screen, a zoom level in or out per halving or doubling
 * of the smaller ratio; a view without a framed size keeps its zoom. The result is framed on
 * this screen, so fitting it to the same screen again changes nothing.
 */
export function fitView<View extends FramedView>(view: View, width: number, height: number): View {
  if (!view.width || !view.height || !(width > 0) || !(height > 0)) return view;
  const scale = Math.min(width / view.width, height / view.height);
  const zoom = Math.min(MAX_ZOOM, Math.max(MIN_ZOOM, view.zoom + Math.log2(scale)));
  return { ...view, zoom, width: Math.round(width), height: Math.round(height) };
}

const fitted = new WeakMap<object, unknown>();

/**
 * A deck with each slide's view fitted to this window, where the deck shows full screen: the same
 * object for the same deck read (the first slide's tiles read early are kept by it).
 */
export function fittedDeck<D extends { slides: { view: FramedView }[] }>(deck: D): D {
  let made = fitted.get(deck) as D | undefined;
  if (!made) {
    made = {
      ...deck,
      slides: deck.slides.map((slide) => ({ ...slide, view: fitView(slide.view, innerWidth, innerHeight) })),
    };
    fitted.set(deck, made);
  }
  return made;
}

/** The size of a map's container to record with a view made from it. */
export function framedSize(container: HTMLElement): { width: number; height: number } {
  return {
    width: Math.max(1, Math.round(container.clientWidth)),
    height: Math.max(1, Math.round(container.clientHeight)),
  };
}
