import type { jsPDF as JsPdf } from 'jspdf';
import { formatNumber, t } from '../i18n/index.js';
import {
  type Box,
  metresPerPixel,
  type Orientation,
  pageMm,
  type Paper,
  type PicturePlan,
  type PrintLegendItem,
  scaleBar,
} from './print-layout';
import type { RenderedMap } from './print-map';

/** What goes around the map on a picture: its title, legend and date (the attribution is the map's). */
export interface PrintDecor {
  title: string;
  legend: PrintLegendItem[];
  date: string;
}

/** Sizes of the page's words in mm (a PDF's in points: 1 mm is 72 / 25.4 pt). */
const TITLE_MM = 6;
const TEXT_MM = 3.2;
const SMALL_MM = 2.6;
const PT_PER_MM = 72 / 25.4;
/** A map text's size in CSS px, as the page's label style has it. */
const MAP_TEXT_PX = 12;

/** What draws a page: a 2D canvas (PNG) or a PDF, in the page's unit. */
interface Pen {
  text(
    x: number,
    y: number,
    text: string,
    sizeMm: number,
    options?: { bold?: boolean; align?: 'left' | 'right' | 'center' },
  ): void;
  rect(box: Box, fill: string | null, stroke?: string): void;
  /** A filled shape through `points`. */
  shape(points: [number, number][], fill: string): void;
}

/** The map's canvas with the page's HTML texts drawn on it (titles, counts, labels), as a canvas of its own. */
export function mapPicture(rendered: RenderedMap, pixelRatio: number): HTMLCanvasElement {
  const canvas = document.createElement('canvas');
  canvas.width = rendered.canvas.width;
  canvas.height = rendered.canvas.height;
  const context = canvas.getContext('2d');
  if (!context) throw new Error(t('print:errors.canvas'));
  context.drawImage(rendered.canvas, 0, 0);
  context.font = `600 ${MAP_TEXT_PX * pixelRatio}px system-ui, sans-serif`;
  context.textBaseline = 'middle';
  context.lineJoin = 'round';
  context.lineWidth = 3 * pixelRatio;
  context.strokeStyle = 'rgba(255,255,255,0.9)';
  context.fillStyle = '#1a1a1a';
  for (const text of rendered.texts) {
    context.textAlign = text.kind === 'title' ? 'left' : 'center';
    context.strokeText(text.text, text.x, text.y);
    context.fillText(text.text, text.x, text.y);
  }
  return canvas;
}

/** Draws the title, map, legend, scale bar, north arrow, attribution and date of one page. */
function drawPage(pen: Pen, plan: PicturePlan, rendered: RenderedMap, decor: PrintDecor, drawMap: (box: Box) => void) {
  const { page, unit } = plan;
  pen.text(page.title.x, page.title.y + page.title.height * 0.6, decor.title, TITLE_MM, { bold: true });
  drawMap(page.map);
  pen.rect(page.map, null, '#555555');
  drawLegend(pen, page.legend, unit, decor.legend);
  // The scale bar: a round length that fits its box, at the map's scale on the page.
  const unitsPerCssPx = page.map.width / plan.cssWidth;
  const bar = scaleBar(metresPerPixel(rendered.zoom, rendered.latitude), page.scale.width / unitsPerCssPx);
  const length = bar.pixels * unitsPerCssPx;
  const { x, y } = page.scale;
  pen.rect({ x, y: y + 3 * unit, width: length, height: 1.2 * unit }, '#222222');
  pen.rect({ x: x + length / 2, y: y + 3 * unit, width: length / 2, height: 1.2 * unit }, '#ffffff', '#222222');
  pen.text(x, y + 1 * unit, t('print:scale', { value: formatNumber(bar.value), unit: bar.unit }), SMALL_MM);
  drawNorth(pen, page.north, unit, rendered.bearing);
  const footerY = page.footer.y + page.footer.height / 2;
  pen.text(page.footer.x, footerY, rendered.attribution.join(' · '), SMALL_MM);
  pen.text(page.footer.x + page.footer.width, footerY, decor.date, SMALL_MM, { align: 'right' });
}

function drawLegend(pen: Pen, box: Box, unit: number, items: PrintLegendItem[]) {
  const row = 5 * unit;
  const swatch = 3 * unit;
  let y = box.y;
  const fits = () => y + row <= box.y + box.height;
  const line = (indent: number, color: string | null, words: string, bold = false) => {
    if (color)
      pen.rect({ x: box.x + indent, y: y + (row - swatch) / 2, width: swatch, height: swatch }, color, '#555555');
    pen.text(box.x + indent + (color ? swatch + 1.5 * unit : 0), y + row * 0.62, words, TEXT_MM, { bold });
    y += row;
  };
  for (const item of items) {
    if (!fits()) break;
    const single = item.entries.length === 1 ? item.entries[0]!.color : null;
    line(0, single, item.note ? `${item.name} (${item.note})` : item.name, true);
    if (item.entries.length > 1)
      for (const entry of item.entries) {
        if (!fits()) break;
        line(4 * unit, entry.color, entry.label);
      }
  }
}

/** A north arrow turned with the map: north points up only when the map's bearing is 0. */
function drawNorth(pen: Pen, box: Box, unit: number, bearing: number) {
  const cx = box.x + box.width / 2;
  const cy = box.y + box.height / 2 + 1.5 * unit;
  const angle = (-bearing * Math.PI) / 180;
  const turn = (dx: number, dy: number): [number, number] => [
    cx + dx * Math.cos(angle) - dy * Math.sin(angle),
    cy + dx * Math.sin(angle) + dy * Math.cos(angle),
  ];
  const r = 4.5 * unit;
  pen.shape([turn(0, -r), turn(r * 0.45, r * 0.6), turn(0, r * 0.25), turn(-r * 0.45, r * 0.6)], '#222222');
  const [nx, ny] = turn(0, -r - 2.2 * unit);
  pen.text(nx, ny + 1 * unit, t('print:north'), TEXT_MM, { bold: true, align: 'center' });
}

/** A page as a PNG: the page drawn on a canvas, then its file (`toBlob`, off the page's thread in Chromium). */
export async function pngOf(plan: PicturePlan, rendered: RenderedMap, decor: PrintDecor): Promise<Blob> {
  const canvas = document.createElement('canvas');
  canvas.width = Math.round(plan.page.width);
  canvas.height = Math.round(plan.page.height);
  const context = canvas.getContext('2d');
  if (!context) throw new Error(t('print:errors.canvas'));
  context.fillStyle = '#ffffff';
  context.fillRect(0, 0, canvas.width, canvas.height);
  context.textBaseline = 'middle';
  const pen: Pen = {
    text(x, y, text, sizeMm, options = {}) {
      context.font = `${options.bold ? '700 ' : ''}${sizeMm * plan.unit}px system-ui, sans-serif`;
      context.textAlign = options.align ?? 'left';
      context.fillStyle = '#1a1a1a';
      context.fillText(text, x, y);
    },
    rect(box, fill, stroke) {
      if (fill) {
        context.fillStyle = fill;
        context.fillRect(box.x, box.y, box.width, box.height);
      }
      if (stroke) {
        context.strokeStyle = stroke;
        context.lineWidth = Math.max(1, 0.25 * plan.unit);
        context.strokeRect(box.x, box.y, box.width, box.height);
      }
    },
    shape(points, fill) {
      context.beginPath();
      for (const [x, y] of points) context.lineTo(x, y);
      context.closePath();
      context.fillStyle = fill;
      context.fill();
    },
  };
  const picture = mapPicture(rendered, plan.pixelRatio);
  drawPage(pen, plan, rendered, decor, (box) => context.drawImage(picture, box.x, box.y, box.width, box.height));
  return blobOf(canvas, 'image/png');
}

const blobOf = (canvas: HTMLCanvasElement, type: string, quality?: number) =>
  new Promise<Blob>((resolve, reject) =>
    canvas.toBlob((blob) => (blob ? resolve(blob) : reject(new Error(t('print:errors.canvas')))), type, quality),
  );

/** Words the PDF's standard fonts can write: printable Latin-1 (English, German, French, Italian, Spanish). */
const LATIN_1 = /^[\u0020-\u007e\u00a0-\u00ff]*$/;
/** Pixels per mm of words drawn as a picture in a PDF (about 250 dpi: sharp on paper). */
const TEXT_PX_PER_MM = 10;

/** Words in any script (Arabic, a date's narrow spaces) as a picture, drawn by the browser, with its size in mm. */
function textPicture(text: string, sizeMm: number, bold: boolean) {
  const canvas = document.createElement('canvas');
  const context = canvas.getContext('2d');
  if (!context) throw new Error(t('print:errors.canvas'));
  const font = `${bold ? '700 ' : ''}${sizeMm * TEXT_PX_PER_MM}px system-ui, sans-serif`;
  context.font = font;
  const width = Math.max(1, Math.ceil(context.measureText(text).width));
  const height = Math.ceil(sizeMm * TEXT_PX_PER_MM * 1.4);
  canvas.width = width;
  canvas.height = height;
  // The canvas's size set, its context starts again.
  context.font = font;
  context.direction = document.documentElement.dir === 'rtl' ? 'rtl' : 'ltr';
  context.textAlign = 'left';
  context.textBaseline = 'middle';
  context.fillStyle = '#1a1a1a';
  context.fillText(text, 0, height / 2);
  return { canvas, width: width / TEXT_PX_PER_MM, height: height / TEXT_PX_PER_MM };
}

/** The JPEG quality of a PDF's map: photographic tiles and flat colours both look right, the file stays small. */
const JPEG_QUALITY = 0.92;

/**
 * A PDF of one page per picture (a room, or each slide of a deck), built as they come. jsPDF is
 * loaded when the first PDF is made (its own chunk: the room's first load does not carry it).
 * The map goes in as a JPEG (jsPDF stores it as it is, with no work on the page's thread), the
 * words, legend, scale bar and north arrow as PDF text and shapes.
 */
export class PdfBook {
  private pages = 0;
  private constructor(
    private readonly doc: JsPdf,
    private readonly size: { width: number; height: number },
  ) {}

  static async open(paper: Paper, orientation: Orientation): Promise<PdfBook> {
    const { jsPDF } = await import('jspdf');
    const size = pageMm(paper, orientation);
    const doc = new jsPDF({ unit: 'mm', format: [size.width, size.height], orientation, compress: false });
    return new PdfBook(doc, size);
  }

  async add(plan: PicturePlan, rendered: RenderedMap, decor: PrintDecor): Promise<void> {
    const { doc } = this;
    if (this.pages++ > 0)
      doc.addPage([this.size.width, this.size.height], this.size.width > this.size.height ? 'l' : 'p');
    const jpeg = new Uint8Array(
      await (await blobOf(mapPicture(rendered, plan.pixelRatio), 'image/jpeg', JPEG_QUALITY)).arrayBuffer(),
    );
    const pen: Pen = {
      text(x, y, text, sizeMm, options = {}) {
        if (!LATIN_1.test(text)) {
          // The PDF's own fonts (Helvetica) have Latin-1 letters only: other words go in as a picture.
          const picture = textPicture(text, sizeMm, !!options.bold);
          const left =
            options.align === 'right' ? x - picture.width : options.align === 'center' ? x - picture.width / 2 : x;
          doc.addImage(picture.canvas, 'PNG', left, y - picture.height / 2, picture.width, picture.height);
          return;
        }
        doc.setFont('helvetica', options.bold ? 'bold' : 'normal');
        doc.setFontSize(sizeMm * PT_PER_MM);
        doc.setTextColor('#1a1a1a');
        doc.text(text, x, y, { align: options.align ?? 'left', baseline: 'middle' });
      },
      rect(box, fill, stroke) {
        if (fill) doc.setFillColor(fill);
        if (stroke) {
          doc.setDrawColor(stroke);
          doc.setLineWidth(0.25);
        }
        doc.rect(box.x, box.y, box.width, box.height, fill && stroke ? 'FD' : fill ? 'F' : 'S');
      },
      shape(points, fill) {
        doc.setFillColor(fill);
        const [first, ...rest] = points;
        const steps = rest.map(([x, y], i) => [x - (points[i]![0] ?? 0), y - (points[i]![1] ?? 0)]);
        doc.lines(steps, first![0], first![1], [1, 1], 'F', true);
      },
    };
    drawPage(pen, plan, rendered, decor, (box) => doc.addImage(jpeg, 'JPEG', box.x, box.y, box.width, box.height));
  }

  blob(): Blob {
    return this.doc.output('blob');
  }
}
