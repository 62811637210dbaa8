import { useEffect, useState } from 'preact/hooks';
import { useModal } from '../ui/modal';
import type { Map as MapLibreMap } from 'maplibre-gl';
import type { Deck } from '../api/types';
import { formatDateTime, t } from '../i18n/index.js';
import { fitView } from '../map/slide-fit';
import { PdfBook, type PrintDecor, pngOf } from '../map/print-file';
import { slideObjects } from '../map/first-slide-tiles';
import {
  legendItems,
  legendRows,
  type Orientation,
  type Paper,
  picturePlan,
  type PrintFormat,
  type PrintLegendItem,
  printFileName,
} from '../map/print-layout';
import { baseOnly, mapImages, mapTexts, type PrintView, renderMap, slidePrepare } from '../map/print-map';

type Size = 'screen' | '2x' | 'paper';

/**
 * "Print / export": a picture of the map as a PNG (the screen's size, twice it, or a page at 300
 * dpi) or a PDF page, with a title, the legend, a scale bar, a north arrow, the attribution and
 * the date, drawn by a MapLibre map off the page and saved as a file. With a deck, a PDF has one
 * page per slide. Progress and failures are shown in the dialog.
 */
export function PrintDialog({
  map,
  name,
  legend,
  deck,
  perSlide = false,
  onClose,
}: {
  map: MapLibreMap;
  name: string;
  legend: PrintLegendItem[];
  /** The slides and what they show: a PDF may have one page per slide, each as the deck player shows it. */
  deck?: Deck;
  /** Whether one page per slide is chosen at first (the deck player's). */
  perSlide?: boolean;
  onClose: () => void;
}) {
  const { dialog, close } = useModal(onClose);
  const [kind, setKind] = useState<'png' | 'pdf'>('png');
  const [size, setSize] = useState<Size>('screen');
  const [paper, setPaper] = useState<Paper>('a4');
  const [orientation, setOrientation] = useState<Orientation>('landscape');
  const [title, setTitle] = useState(name);
  const [eachSlide, setEachSlide] = useState(perSlide);
  const [progress, setProgress] = useState<string | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [saved, setSaved] = useState<{ url: string; file: string } | null>(null);
  // The file's link is let go when another is made or the dialog closes.
  useEffect(() => () => saved && URL.revokeObjectURL(saved.url), [saved]);
  const format: PrintFormat =
    kind === 'pdf'
      ? { kind, paper, orientation }
      : size === 'paper'
        ? { kind, size, paper, orientation }
        : { kind, size };
  const container = map.getContainer();
  const screen = { width: container.clientWidth, height: container.clientHeight };
  const plan = picturePlan(format, screen, legendRows(legend));
  const slides = kind === 'pdf' && deck && eachSlide ? deck.slides : [];

  const run = async () => {
    setError(null);
    setSaved(null);
    setProgress(t('print:progress.rendering'));
    const now = new Date();
    const decor: PrintDecor = { title, legend, date: formatDateTime(now) };
    const style = map.getStyle();
    const images = mapImages(map);
    const liveView: PrintView = {
      center: map.getCenter().toArray() as [number, number],
      zoom: map.getZoom(),
      bearing: map.getBearing(),
      pitch: map.getPitch(),
    };
    // The live map's area fits the picture's map (its size on paper differs from the screen's).
    const fitted = fitView({ lat: 0, lng: 0, zoom: liveView.zoom, ...screen }, plan.cssWidth, plan.cssHeight);
    const view = { ...liveView, zoom: fitted.zoom };
    try {
      if (kind === 'png') {
        const rendered = await renderMap({ ...plan, style, images, view, texts: mapTexts(map) });
        try {
          setProgress(t('print:progress.saving'));
          save(await pngOf(plan, rendered, decor), printFileName(title, now, 'png'));
        } finally {
          rendered.remove();
        }
        return;
      }
      const book = await PdfBook.open(paper, orientation);
      if (slides.length === 0) {
        const rendered = await renderMap({ ...plan, style, images, view, texts: mapTexts(map) });
        try {
          await book.add(plan, rendered, decor);
        } finally {
          rendered.remove();
        }
      }
      for (const [index, slide] of slides.entries()) {
        setProgress(t('print:progress.slide', { number: index + 1, count: slides.length }));
        const { lat, lng, zoom, bearing, pitch } = fitView(slide.view, plan.cssWidth, plan.cssHeight);
        const rendered = await renderMap({
          ...plan,
          style: baseOnly(style),
          images,
          view: { center: [lng, lat], zoom, bearing: bearing ?? 0, pitch: pitch ?? 0 },
          prepare: slidePrepare(deck!, slide),
        });
        try {
          const shown = slideObjects(deck!, slide);
          const slideLegend = legendItems(
            shown.layers.filter((l) => l.style.visible),
            shown.rasters,
          );
          await book.add(plan, rendered, { ...decor, title: slide.title || title, legend: slideLegend });
        } finally {
          rendered.remove();
        }
      }
      setProgress(t('print:progress.saving'));
      save(book.blob(), printFileName(title, now, 'pdf'));
    } catch (failure) {
      setError(failure instanceof Error ? failure.message : String(failure));
    } finally {
      setProgress(null);
    }
  };

  const save = (blob: Blob, file: string) => {
    const url = URL.createObjectURL(blob);
    const link = document.createElement('a');
    link.href = url;
    link.download = file;
    link.click();
    setSaved({ url, file });
  };

  const busy = progress !== null;
  const paperShown = kind === 'pdf' || size === 'paper';
  return (
    <dialog
      ref={dialog}
      class="print-dialog"
      aria-labelledby="print-title"
      data-testid="print-dialog"
      onCancel={(event) => {
        event.preventDefault();
        if (!busy) close();
      }}
    >
      <h2 id="print-title">{t('print:title')}</h2>
      <form
        onSubmit={(event) => {
          event.preventDefault();
          void run();
        }}
      >
        <fieldset class="plain" disabled={busy}>
          <fieldset>
            <legend>{t('print:format')}</legend>
            <label class="check">
              <input type="radio" name="print-kind" checked={kind === 'png'} onChange={() => setKind('png')} />{' '}
              {t('print:png')}
            </label>
            <label class="check">
              <input type="radio" name="print-kind" checked={kind === 'pdf'} onChange={() => setKind('pdf')} />{' '}
              {t('print:pdf')}
            </label>
          </fieldset>
          {kind === 'png' && (
            <label class="field">
              <span id="print-size-label">{t('print:size')}</span>
              <select
                aria-labelledby="print-size-label"
                value={size}
                onChange={(e) => setSize(e.currentTarget.value as Size)}
              >
                <option value="screen">{t('print:sizes.screen')}</option>
                <option value="2x">{t('print:sizes.double')}</option>
                <option value="paper">{t('print:sizes.paper')}</option>
              </select>
            </label>
          )}
          {paperShown && (
            <div class="row">
              <label class="field">
                <span id="print-paper-label">{t('print:paper')}</span>
                <select
                  aria-labelledby="print-paper-label"
                  value={paper}
                  onChange={(e) => setPaper(e.currentTarget.value as Paper)}
                >
                  <option value="a4">{t('print:papers.a4')}</option>
                  <option value="a3">{t('print:papers.a3')}</option>
                  <option value="letter">{t('print:papers.letter')}</option>
                </select>
              </label>
              <label class="field">
                <span id="print-orientation-label">{t('print:orientation')}</span>
                <select
                  aria-labelledby="print-orientation-label"
                  value={orientation}
                  onChange={(e) => setOrientation(e.currentTarget.value as Orientation)}
                >
                  <option value="portrait">{t('print:orientations.portrait')}</option>
                  <option value="landscape">{t('print:orientations.landscape')}</option>
                </select>
              </label>
            </div>
          )}
          <label class="field">
            <span id="print-title-label">{t('print:titleField')}</span>
            <input
              aria-labelledby="print-title-label"
              value={title}
              onInput={(e) => setTitle(e.currentTarget.value)}
              maxLength={200}
            />
          </label>
          <p class="muted" data-testid="print-size">
            {t('print:pixels', {
              width: Math.round(plan.page.width * (kind === 'pdf' ? plan.dpi / 25.4 : 1)),
              height: Math.round(plan.page.height * (kind === 'pdf' ? plan.dpi / 25.4 : 1)),
              dpi: plan.dpi,
            })}
          </p>
          {plan.clamped && (
            <p class="note" data-testid="print-clamped">
              {t('print:clamped', { dpi: plan.dpi })}
            </p>
          )}
          {kind === 'pdf' && deck && deck.slides.length > 0 && (
            <label class="check">
              <input type="checkbox" checked={eachSlide} onChange={(e) => setEachSlide(e.currentTarget.checked)} />{' '}
              {t('print:slides', { count: deck.slides.length })}
            </label>
          )}
        </fieldset>
        {progress && (
          <p role="status" data-testid="print-progress">
            {progress}
          </p>
        )}
        {error && (
          <p role="alert" class="error" data-testid="print-error">
            {error}
          </p>
        )}
        {saved && (
          <p role="status">
            <a href={saved.url} download={saved.file} data-testid="print-saved">
              {t('print:saved', { file: saved.file })}
            </a>
          </p>
        )}
        <div class="row">
          <button type="submit" disabled={busy}>
            {t('print:export')}
          </button>
          <button type="button" onClick={close} disabled={busy}>
            {t('common:close')}
          </button>
        </div>
      </form>
    </dialog>
  );
}
