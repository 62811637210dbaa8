import type { ComponentChildren } from 'preact';
import { useEffect, useRef, useState } from 'preact/hooks';
import { useStore } from '../../store';
import { drawShape, type ShapeKind } from '../drawing-tools';
import { createDrawing } from '../actions/drawings';
import { useRoom } from '../room-context';
import { describeMeasure } from '../../map/measure';
import { attributesOf, fieldLimits, inputLimits } from '../../ui/limits';
import { ColourField, NumberField, TextField } from '../../ui/fields';
import { t } from '../../i18n/index.js';
import { geometryName } from './drawing-details';

const LABEL = inputLimits('POST /api/rooms/{roomId}/drawings', 'label');
const WEIGHT = attributesOf(fieldLimits('POST /api/rooms/{roomId}/drawings', 'style').fields?.strokeWeight);

const KINDS: [ShapeKind | 'label', () => string][] = [
  ['point', () => t('draw:drawPanel.kinds.point')],
  ['linestring', () => t('draw:drawPanel.kinds.line')],
  ['polygon', () => t('draw:drawPanel.kinds.polygon')],
  ['label', () => t('draw:drawPanel.kinds.label')],
];

/** Draw a point, line, polygon or label on the map (terra-draw), with a colour and line width. */
export function DrawPanel() {
  const { map, model, notify, attempt, selection, mode } = useRoom();
  const { drawings } = useStore(model)!;
  const [active, setActive] = useState<ShapeKind | 'label' | 'measure-line' | 'measure-area' | null>(null);
  /** The shape being drawn or measured, measured (geodesic, metric and imperial). */
  const [measure, setMeasure] = useState('');
  /** The measured shape is finished: it stays on the map until Close. */
  const [measured, setMeasured] = useState(false);
  const [label, setLabel] = useState('');
  const [color, setColor] = useState('#7b3fe4');
  const [weight, setWeight] = useState(3);
  /** Clears what the tool shows: the shape being drawn, or the measured one (until Close). */
  const cancel = useRef<(() => void) | null>(null);
  /** A shape is being drawn or measured (not yet finished). */
  const drawing = useRef(false);
  useEffect(
    () => () => {
      cancel.current?.();
      mode.set('browse');
    },
    [],
  );
  // Escape (room/keyboard.tsx) or another panel ends the mode: the shape being drawn goes.
  useEffect(() => mode.subscribe((now) => now === 'browse' && drawing.current && stop()), []);

  const start = (kind: ShapeKind | 'label') => {
    cancel.current?.();
    if (kind === 'label' && !label.trim()) {
      notify(t('draw:drawPanel.labelFirst'), 'error');
      return;
    }
    setActive(kind);
    setMeasure('');
    mode.set('draw');
    const measured = (geometry: GeoJSON.Geometry) => setMeasure(describeMeasure(geometry));
    cancel.current = drawShape(
      map.get()!,
      kind === 'label' ? 'point' : kind,
      async (geometry) => {
        cancel.current = null;
        drawing.current = false;
        setActive(null);
        setMeasure('');
        mode.set('browse');
        const style = { color, strokeWeight: weight };
        const body = { geometry: geometry as never, label: label.trim() || null, style };
        const saved = await attempt(() => createDrawing(model, body));
        if (!saved) return;
        selection.set({ kind: 'drawing', id: saved.id });
        setLabel('');
      },
      measured,
    );
    drawing.current = true;
  };
  /** The measure tool: draws a line or an area only to measure it; nothing is saved, and closing clears it. */
  const startMeasure = (kind: 'linestring' | 'polygon') => {
    cancel.current?.();
    setActive(kind === 'linestring' ? 'measure-line' : 'measure-area');
    setMeasure('');
    setMeasured(false);
    mode.set('draw');
    const measureIt = (geometry: GeoJSON.Geometry) => setMeasure(describeMeasure(geometry));
    cancel.current = drawShape(
      map.get()!,
      kind,
      (geometry) => {
        drawing.current = false;
        measureIt(geometry);
        setMeasured(true);
        mode.set('browse');
      },
      measureIt,
      true,
    );
    drawing.current = true;
  };
  const stop = () => {
    cancel.current?.();
    cancel.current = null;
    drawing.current = false;
    setActive(null);
    setMeasure('');
    mode.set('browse');
  };
  const measuring = active === 'measure-line' || active === 'measure-area';
  return (
    <div>
      <h2>{t('draw:drawPanel.title')}</h2>
      <div class="row" role="group" aria-label={t('draw:drawPanel.shapeGroup')}>
        {KINDS.map(([kind, name]) => (
          <button key={kind} type="button" aria-pressed={active === kind} onClick={() => start(kind)}>
            {name()}
          </button>
        ))}
      </div>
      {active && !measuring && (
        <DrawHint kind={active === 'label' ? 'point' : active} onCancel={stop}>
          {measure && <span class="measure"> {measure}</span>}
        </DrawHint>
      )}
      <div class="row" role="group" aria-label={t('draw:drawPanel.measureGroup')}>
        <button type="button" aria-pressed={active === 'measure-line'} onClick={() => startMeasure('linestring')}>
          {t('draw:drawPanel.measureDistance')}
        </button>
        <button type="button" aria-pressed={active === 'measure-area'} onClick={() => startMeasure('polygon')}>
          {t('draw:drawPanel.measureArea')}
        </button>
      </div>
      {measuring && (
        <p class="note" role="status" data-testid="measure-result" data-state={measured ? 'done' : 'drawing'}>
          {measure && <span>{measure}</span>}
          {measure && !measured && ' · '}
          {!measured && t('draw:drawPanel.measureHint')}{' '}
          <button type="button" onClick={stop}>
            {t('draw:drawPanel.close')}
          </button>
        </p>
      )}
      <TextField label={t('draw:drawPanel.labelField')} value={label} onInput={setLabel} {...LABEL} />
      <ColourField value={color} onInput={setColor} />
      <NumberField label={t('draw:drawPanel.lineWidth')} {...WEIGHT} value={weight} onInput={setWeight} />
      <h3>{t('draw:drawPanel.drawings', { number: drawings.size })}</h3>
      <ul class="list">
        {[...drawings.values()].map((d) => (
          <li key={d.id}>
            <button type="button" class="link" onClick={() => selection.set({ kind: 'drawing', id: d.id })}>
              {d.label ?? geometryName((d.geometry as { type: string }).type)}
            </button>
          </li>
        ))}
      </ul>
    </div>
  );
}

/** How to draw a shape of this kind, with Cancel (and what follows, as the measure). */
export function DrawHint({
  kind,
  onCancel,
  children,
}: {
  kind: ShapeKind;
  onCancel: () => void;
  children?: ComponentChildren;
}) {
  return (
    <p class="note" role="status">
      {kind === 'polygon'
        ? t('draw:drawPanel.hintPolygon')
        : kind === 'linestring'
          ? t('draw:drawPanel.hintLine')
          : t('draw:drawPanel.hintPoint')}{' '}
      <button type="button" onClick={onCancel}>
        {t('draw:drawPanel.cancel')}
      </button>
      {children}
    </p>
  );
}
