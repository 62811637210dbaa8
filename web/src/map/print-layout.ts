// `.js`: test/web/print-layout.test.ts imports this file, type-checked under NodeNext.
import type { Layer, RasterLayer } from '../api/types.js';
import { t } from '../i18n/index.js';
import { legendEntries } from './layer-style.js';

/**
 * The pure part of printing a picture of the map (room/print-dialog.tsx, map/print-file.ts): paper
 * sizes in mm and pixels at a dpi, where the title, the map, the legend, the scale bar and the
 * north arrow go on a page, the scale bar's length, the biggest canvas MapLibre draws, and the
 * file's name. No DOM, no MapLibre: unit-tested in test/web/print-layout.test.ts.
 */

/** Paper sizes in mm, portrait (ISO 216 and US Letter). */
export const PAPERS = {
  a4: { width: 210, height: 297 },
  a3: { width: 297, height: 420 },
  letter: { width: 215.9, height: 279.4 },
} as const;
export type Paper = keyof typeof PAPERS;
export type Orientation = 'portrait' | 'landscape';

/** A CSS pixel is 1/96 inch; an inch is 25.4 mm (both of the CSS and PDF specifications). */
export const CSS_DPI = 96;
export const MM_PER_INCH = 25.4;
/** The dpi of "300 dpi at a paper size" (print shops' usual resolution). */
export const PRINT_DPI = 300;
/** The dpi a PDF's map is drawn at: sharp on paper, and a file of a few MB rather than tens. */
export const PDF_DPI = 200;
/**
 * The biggest canvas side drawn: MapLibre's own default `maxCanvasSize` (4096 px), which every
 * WebGL implementation it supports can draw; a bigger picture is drawn at a lower pixel ratio.
 */
export const MAX_CANVAS_PX = 4096;

/** A page's size in mm, turned for landscape. */
export function pageMm(paper: Paper, orientation: Orientation): { width: number; height: number } {
  const { width, height } = PAPERS[paper];
  return orientation === 'landscape' ? { width: height, height: width } : { width, height };
}

/** Millimetres as pixels at a dpi. */
export const mmToPx = (mm: number, dpi: number): number => Math.round((mm / MM_PER_INCH) * dpi);

/** A box on a page, in the page's unit (mm for a PDF, px for a PNG), from its top-left corner. */
export interface Box {
  x: number;
  y: number;
  width: number;
  height: number;
}

/** Where each part of a printed page goes. */
export interface PageLayout {
  width: number;
  height: number;
  title: Box;
  map: Box;
  /** Under the map: the legend at the start, the scale bar and north arrow at the end, the attribution and date below. */
  legend: Box;
  scale: Box;
  north: Box;
  footer: Box;
}

const MARGIN_MM = 8;
const TITLE_MM = 10;
const FOOTER_MM = 6;
const ROW_MM = 5;
const NORTH_MM = 14;

/** The band under the map for a legend of `rows` rows, in mm: at least the north arrow's height. */
const bandMm = (rows: number): number => Math.max(NORTH_MM + 2, rows * ROW_MM + 4);

/**
 * The parts of a page `width` x `height` (any unit; `unit` is one mm in it, so the margins and
 * text bands keep their size on paper): a margin, the title on top, the map, and a band under
 * the map with the legend (its height grows with `legendRows`, at most a third of the page),
 * the scale bar and north arrow, and the attribution and date at the very bottom.
 */
export function pageLayout(width: number, height: number, unit: number, legendRows: number): PageLayout {
  return layoutWith(width, height, unit, Math.min(height / 3, bandMm(legendRows) * unit));
}

/** A page made around a map of `mapWidth` x `mapHeight` (a PNG at the screen's size): the same parts, the map exactly that size. */
export function pageAroundMap(mapWidth: number, mapHeight: number, unit: number, legendRows: number): PageLayout {
  const band = Math.min(mapHeight, bandMm(legendRows) * unit);
  const height = (MARGIN_MM + TITLE_MM + FOOTER_MM + MARGIN_MM) * unit + mapHeight + band;
  return layoutWith(mapWidth + 2 * MARGIN_MM * unit, height, unit, band);
}

function layoutWith(width: number, height: number, unit: number, band: number): PageLayout {
  const margin = MARGIN_MM * unit;
  const inner = width - 2 * margin;
  const mapTop = margin + TITLE_MM * unit;
  const mapHeight = Math.max(unit, height - mapTop - band - FOOTER_MM * unit - margin);
  const bandTop = mapTop + mapHeight + 2 * unit;
  const side = NORTH_MM * unit;
  const scaleWidth = Math.min(50 * unit, inner / 3);
  return {
    width,
    height,
    title: { x: margin, y: margin, width: inner, height: TITLE_MM * unit },
    map: { x: margin, y: mapTop, width: inner, height: mapHeight },
    legend: { x: margin, y: bandTop, width: inner - scaleWidth - side - 4 * unit, height: band - 2 * unit },
    scale: {
      x: width - margin - side - 2 * unit - scaleWidth,
      y: bandTop + side - 5 * unit,
      width: scaleWidth,
      height: 5 * unit,
    },
    north: { x: width - margin - side, y: bandTop, width: side, height: side },
    footer: { x: margin, y: height - margin - FOOTER_MM * unit + 2 * unit, width: inner, height: FOOTER_MM * unit },
  };
}

/** Metres on the ground per CSS pixel of a Web Mercator map (MapLibre's 512 px tiles) at a zoom and latitude. */
export function metresPerPixel(zoom: number, latitude: number): number {
  const EARTH_CIRCUMFERENCE = 40_075_016.686;
  return (EARTH_CIRCUMFERENCE * Math.cos((latitude * Math.PI) / 180)) / (512 * 2 ** zoom);
}

/**
 * The scale bar: the longest round length (1, 2 or 5 times a power of ten metres) that fits
 * `maxPixels`, its length in pixels, and its words (m below a kilometre, else km).
 */
export function scaleBar(
  metresPerPx: number,
  maxPixels: number,
): { metres: number; pixels: number; value: number; unit: 'm' | 'km' } {
  const most = metresPerPx * maxPixels;
  if (!(most > 0) || !Number.isFinite(most)) return { metres: 0, pixels: 0, value: 0, unit: 'm' };
  const power = 10 ** Math.floor(Math.log10(most));
  const metres = [5, 2, 1].map((n) => n * power).find((m) => m <= most) ?? power;
  return {
    metres,
    pixels: metres / metresPerPx,
    value: metres >= 1000 ? metres / 1000 : metres,
    unit: metres >= 1000 ? 'km' : 'm',
  };
}

/**
 * The canvas of a map `width` x `height` CSS px at `pixelRatio`, within MapLibre's biggest canvas:
 * the ratio lowered when a side would be larger, and whether it was.
 */
export function clampedRatio(
  width: number,
  height: number,
  pixelRatio: number,
  max = MAX_CANVAS_PX,
): { pixelRatio: number; clamped: boolean; width: number; height: number } {
  const most = max / Math.max(width, height, 1);
  const ratio = Math.min(pixelRatio, most);
  return {
    pixelRatio: ratio,
    clamped: ratio < pixelRatio,
    width: Math.floor(width * ratio),
    height: Math.floor(height * ratio),
  };
}

/** What a picture is made as: a PNG at the screen's size, twice it, or a page (PNG at 300 dpi, or PDF). */
export type PrintFormat =
  | { kind: 'png'; size: 'screen' | '2x' }
  | { kind: 'png'; size: 'paper'; paper: Paper; orientation: Orientation }
  | { kind: 'pdf'; paper: Paper; orientation: Orientation };

/** How a picture is laid out and drawn: its page (in `unit`s per mm), the map's CSS size and pixel ratio, whether the size was lowered. */
export interface PicturePlan {
  page: PageLayout;
  /** One mm in the page's unit (px for a PNG, 1 for a PDF in mm). */
  unit: number;
  cssWidth: number;
  cssHeight: number;
  pixelRatio: number;
  clamped: boolean;
  dpi: number;
}

/**
 * How a format is drawn: a screen PNG has the live map's size (at 1 or 2) with the title above
 * and the legend band below; a page (PNG at 300 dpi, PDF at 200) has its map box at 96 dpi as the
 * map's CSS size (so symbols keep their size on paper) drawn at the page's dpi. Either is lowered
 * to MapLibre's biggest canvas (`clamped`).
 */
export function picturePlan(
  format: PrintFormat,
  screen: { width: number; height: number },
  legendRows: number,
): PicturePlan {
  if (format.kind === 'png' && format.size !== 'paper') {
    const fit = clampedRatio(screen.width, screen.height, format.size === '2x' ? 2 : 1);
    const dpi = CSS_DPI * fit.pixelRatio;
    const unit = dpi / MM_PER_INCH;
    return {
      page: pageAroundMap(fit.width, fit.height, unit, legendRows),
      unit,
      cssWidth: screen.width,
      cssHeight: screen.height,
      pixelRatio: fit.pixelRatio,
      clamped: fit.clamped,
      dpi: Math.round(dpi),
    };
  }
  const mm = pageMm(format.paper, format.orientation);
  const inMm = pageLayout(mm.width, mm.height, 1, legendRows);
  const cssWidth = Math.round((inMm.map.width / MM_PER_INCH) * CSS_DPI);
  const cssHeight = Math.round((inMm.map.height / MM_PER_INCH) * CSS_DPI);
  const wanted = format.kind === 'pdf' ? PDF_DPI : PRINT_DPI;
  const fit = clampedRatio(cssWidth, cssHeight, wanted / CSS_DPI);
  const dpi = CSS_DPI * fit.pixelRatio;
  // A PDF is laid out in mm; a PNG page in its pixels at the dpi it is drawn at.
  const unit = format.kind === 'pdf' ? 1 : dpi / MM_PER_INCH;
  return {
    page: format.kind === 'pdf' ? inMm : pageLayout(mm.width * unit, mm.height * unit, unit, legendRows),
    unit,
    cssWidth,
    cssHeight,
    pixelRatio: fit.pixelRatio,
    clamped: fit.clamped,
    dpi: Math.round(dpi),
  };
}

/** A file name for a picture: the room's name (without characters file systems refuse) and the day, `Alps 2026-11-30.png`. */
export function printFileName(name: string, when: Date, extension: 'png' | 'pdf'): string {
  const day = [when.getFullYear(), when.getMonth() + 1, when.getDate()]
    .map((n) => String(n).padStart(2, '0'))
    .join('-');
  const safe =
    name
      .replace(/[\u0000-\u001f<>:"/\\|?*]+/g, ' ')
      .replace(/\s+/g, ' ')
      .trim()
      .slice(0, 100) || 'map';
  return `${safe} ${day}.${extension}`;
}

/** One entry of a printed legend: a layer (its swatches) or a raster (a line of words). */
export interface PrintLegendItem {
  name: string;
  note?: string;
  entries: { label: string; color: string }[];
}

/** How many rows a legend takes: one per layer or raster, one per entry of a layer with several. */
export const legendRows = (items: PrintLegendItem[]): number =>
  items.reduce((rows, item) => rows + 1 + (item.entries.length > 1 ? item.entries.length : 0), 0);

/**
 * The printed legend of what the map shows (as room/legend.tsx lists it): each visible layer with
 * its symbols, then each raster with its band and colour ramp (or its RGB bands), in words.
 * `layers` and `rasters` are those shown, top first.
 */
export function legendItems(layers: Layer[], rasters: RasterLayer[]): PrintLegendItem[] {
  return [
    ...layers.map((layer) => ({
      name: layer.name,
      note: layer.style.classify ? t('room:legend.by', { field: layer.style.classify.field }) : undefined,
      entries: legendEntries(layer.style),
    })),
    ...rasters.map(({ name, display }) => ({
      name,
      note:
        display.renderMode === 'rgb'
          ? t('room:legend.rgb', { bands: (display.rgbBands ?? [1, 2, 3]).join(', ') })
          : t('room:legend.band', { band: display.band ?? 1, colormap: display.colormap }),
      entries: [],
    })),
  ];
}
