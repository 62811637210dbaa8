import { useEffect, useRef, useState } from 'preact/hooks';
import { useStore } from '../../store';
import { deleteDrawing, updateDrawing } from '../actions/drawings';
import { useRoom } from '../room-context';
import { offerUndoDelete } from '../undo-delete';
import { editShape, type ShapeEdit } from '../drawing-tools';
import { colourInput } from '../../ui/colour';
import { describeMeasure } from '../../map/measure';
import { attributesOf, fieldLimits, inputLimits } from '../../ui/limits';
import { ColourField, NumberField, TextField } from '../../ui/fields';
import { t } from '../../i18n/index.js';

const LABEL = inputLimits('PATCH /api/rooms/{roomId}/drawings/{drawingId}', 'label');
const WEIGHT = attributesOf(
  fieldLimits('PATCH /api/rooms/{roomId}/drawings/{drawingId}', 'style').fields?.strokeWeight,
);

/** A drawing: its label and style; editors change them, reshape it or delete it. */
export function DrawingDetails({ drawingId }: { drawingId: string }) {
  const room = useRoom();
  const { model, canEdit, attempt, selection, map } = room;
  const drawing = useStore(model)!.drawings.get(drawingId)!;
  const [label, setLabel] = useState(drawing.label ?? '');
  const [color, setColor] = useState(colourInput(drawing.style?.color, '#7b3fe4'));
  const [weight, setWeight] = useState(drawing.style?.strokeWeight ?? 3);
  const [reshaping, setReshaping] = useState<ShapeEdit | null>(null);
  useEffect(() => () => void reshapingRef.current?.end(), []);
  const reshapingRef = useRef(reshaping);
  reshapingRef.current = reshaping;
  const saveShape = async () => {
    const geometry = reshaping?.end();
    setReshaping(null);
    if (!geometry) return;
    await attempt(
      () => updateDrawing(model, drawingId, { geometry: geometry as never }),
      t('draw:drawingDetails.shapeSaved'),
    );
  };
  const save = async (event: Event) => {
    event.preventDefault();
    const body = { label: label.trim() || null, style: { ...drawing.style, color, strokeWeight: weight } };
    await attempt(() => updateDrawing(model, drawingId, body), t('draw:drawingDetails.drawingSaved'));
  };
  const remove = async () => {
    if (!(await attempt(() => deleteDrawing(model, drawingId)))) return;
    selection.set(null);
    offerUndoDelete(
      room,
      drawing.label
        ? t('draw:drawingDetails.undoNamed', { label: drawing.label })
        : t('draw:drawingDetails.undoUnnamed'),
      'drawing',
      drawingId,
    );
  };
  const kind = (drawing.geometry as { type: string }).type;
  return (
    <div>
      <h2>{drawing.label ?? geometryName(kind)}</h2>
      <p class="muted">{kindOfDrawing(kind)}</p>
      {kind !== 'Point' && (
        <p class="measure" data-testid="drawing-measure">
          {describeMeasure(drawing.geometry as unknown as GeoJSON.Geometry)}
        </p>
      )}
      {canEdit && (
        <form class="form" onSubmit={save} aria-label={t('draw:drawingDetails.form')}>
          <TextField label={t('draw:drawingDetails.label')} name="label" value={label} onInput={setLabel} {...LABEL} />
          <ColourField value={color} onInput={setColor} />
          <NumberField label={t('draw:drawingDetails.lineWidth')} {...WEIGHT} value={weight} onInput={setWeight} />
          <div class="row">
            <button type="submit">{t('draw:drawingDetails.save')}</button>
            {!reshaping && (
              <button
                type="button"
                onClick={() => setReshaping(editShape(map.get()!, drawing.geometry as unknown as GeoJSON.Geometry))}
              >
                {t('draw:drawingDetails.editShape')}
              </button>
            )}
            {reshaping && (
              <button type="button" onClick={saveShape}>
                {t('draw:drawingDetails.saveShape')}
              </button>
            )}
            <button type="button" class="danger" onClick={remove}>
              {t('draw:drawingDetails.delete')}
            </button>
          </div>
        </form>
      )}
    </div>
  );
}

/** A drawing's geometry type as a person reads it ("Polygon"); an unknown one as it is. */
export function geometryName(type: string): string {
  switch (type) {
    case 'Point':
      return t('draw:geometry.point');
    case 'LineString':
      return t('draw:geometry.lineString');
    case 'Polygon':
      return t('draw:geometry.polygon');
    default:
      return type;
  }
}

/** What kind of drawing it is, in words: "Polygon drawing". */
function kindOfDrawing(type: string): string {
  switch (type) {
    case 'Point':
      return t('draw:drawingDetails.kind.point');
    case 'LineString':
      return t('draw:drawingDetails.kind.lineString');
    case 'Polygon':
      return t('draw:drawingDetails.kind.polygon');
    default:
      return t('draw:drawingDetails.kind.other', { type });
  }
}
