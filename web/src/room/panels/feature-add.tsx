import { useEffect, useRef, useState } from 'preact/hooks';
import type { Layer } from '../../api/types';
import { t } from '../../i18n/index.js';
import { createFeature } from '../actions/features';
import { drawShape, type ShapeKind } from '../drawing-tools';
import { useRoom } from '../room-context';
import { DrawHint } from './draw-panel';

/** The shapes a layer takes: its geometry type's (a `Mixed` layer any). */
function kindsOf(layer: Layer): ShapeKind[] {
  switch (layer.geometryType) {
    case 'Point':
      return ['point'];
    case 'LineString':
      return ['linestring'];
    case 'Polygon':
      return ['polygon'];
    default:
      return ['point', 'linestring', 'polygon'];
  }
}

const KIND_WORDS: Record<ShapeKind, () => string> = {
  point: () => t('layers:add.point'),
  linestring: () => t('layers:add.line'),
  polygon: () => t('layers:add.polygon'),
};

/**
 * Adds a feature to a vector layer: the shape is drawn on the map with the drawings' tool (of
 * the layer's geometry type), then sent; the new feature is selected, its attributes shown.
 * Escape or Cancel ends the drawing, nothing added.
 */
export function AddFeature({ layer }: { layer: Layer }) {
  const { map, mode, attempt, notify, selection } = useRoom();
  const [active, setActive] = useState<ShapeKind | null>(null);
  const cancel = useRef<(() => void) | null>(null);
  const stop = () => {
    cancel.current?.();
    cancel.current = null;
    setActive(null);
    if (mode.get() === 'draw') mode.set('browse');
  };
  useEffect(() => {
    // Escape (room/keyboard.tsx) or another panel's mode ends the drawing.
    const stopMode = mode.subscribe((now) => now !== 'draw' && cancel.current && stop());
    return () => {
      stopMode();
      stop();
    };
  }, []);
  const start = (kind: ShapeKind) => {
    cancel.current?.();
    setActive(kind);
    mode.set('draw');
    cancel.current = drawShape(map.get()!, kind, async (geometry) => {
      cancel.current = null;
      setActive(null);
      mode.set('browse');
      const created = await attempt(() => createFeature(layer.id, geometry));
      if (!created) return;
      notify(t('layers:add.added', { id: created.id }));
      selection.set({ kind: 'layer', id: layer.id, featureId: created.id });
    });
  };
  return (
    <div class="feature-add">
      <div class="row" role="group" aria-label={t('layers:add.label')}>
        {kindsOf(layer).map((kind) => (
          <button key={kind} type="button" aria-pressed={active === kind} onClick={() => start(kind)}>
            {KIND_WORDS[kind]()}
          </button>
        ))}
      </div>
      {active && <DrawHint kind={active} onCancel={stop} />}
    </div>
  );
}
