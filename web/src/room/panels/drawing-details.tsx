import { useEffect, useRef, useState } from 'preact/hooks';
import { useStore } from '../../store';
import { deleteDrawing, updateDrawing } from '../actions/drawings';
import { useRoom } from '../room-context';
import { offerUndoDelete } from '../undo-delete';
import { editShape } from '../drawing-tools';
import { colourInput } from '../../ui/colour';
import { describeMeasure } from '../../map/measure';
import { attributesOf, fieldLimits, inputLimits } from '../../ui/limits';
import { ColourField, NumberField, TextField } from '../../ui/fields';

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
  const [reshaping, setReshaping] = useState<(() => GeoJSON.Geometry | null) | null>(null);
  useEffect(() => () => reshapingRef.current?.(), []);
  const reshapingRef = useRef(reshaping);
  reshapingRef.current = reshaping;
  const saveShape = async () => {
    const geometry = reshaping?.();
    setReshaping(null);
    if (!geometry) return;
    await attempt(() => updateDrawing(model, drawingId, { geometry: geometry as never }), 'Shape saved');
  };
  const save = async (event: Event) => {
    event.preventDefault();
    const body = { label: label.trim() || null, style: { ...drawing.style, color, strokeWeight: weight } };
    await attempt(() => updateDrawing(model, drawingId, body), 'Drawing saved');
  };
  const remove = async () => {
    if (!(await attempt(() => deleteDrawing(model, drawingId)))) return;
    selection.set(null);
    offerUndoDelete(room, drawing.label ? `the drawing "${drawing.label}"` : 'the drawing', 'drawing', drawingId);
  };
  const kind = (drawing.geometry as { type: string }).type;
  return (
    <div>
      <h2>{drawing.label ?? kind}</h2>
      <p class="muted">{kind} drawing</p>
      {kind !== 'Point' && (
        <p class="measure" data-testid="drawing-measure">
          {describeMeasure(drawing.geometry as unknown as GeoJSON.Geometry)}
        </p>
      )}
      {canEdit && (
        <form class="form" onSubmit={save} aria-label="Edit drawing">
          <TextField label="Label" name="label" value={label} onInput={setLabel} {...LABEL} />
          <ColourField value={color} onInput={setColor} />
          <NumberField label="Line width" {...WEIGHT} value={weight} onInput={setWeight} />
          <div class="row">
            <button type="submit">Save</button>
            {!reshaping && (
              <button type="button" onClick={() => setReshaping(() => editShape(map.get()!, drawing))}>
                Edit shape
              </button>
            )}
            {reshaping && (
              <button type="button" onClick={saveShape}>
                Save shape
              </button>
            )}
            <button type="button" class="danger" onClick={remove}>
              Delete drawing
            </button>
          </div>
        </form>
      )}
    </div>
  );
}
