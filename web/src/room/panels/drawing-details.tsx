import { useEffect, useRef, useState } from 'preact/hooks';
import { api, messageOf, ok } from '../../api/client';
import { useStore } from '../../store';
import { useRoom } from '../room-context';
import { editShape } from '../drawing-tools';
import { colourInput } from '../../ui/colour';

/** A drawing: its label and style; editors change them, reshape it or delete it. */
export function DrawingDetails({ drawingId }: { drawingId: string }) {
  const { model, canEdit, roomId, notify, selection, map } = useRoom();
  const drawing = useStore(model)!.drawings.get(drawingId)!;
  const [label, setLabel] = useState(drawing.label ?? '');
  const [color, setColor] = useState(colourInput(drawing.style?.color, '#7b3fe4'));
  const [weight, setWeight] = useState(drawing.style?.strokeWeight ?? 3);
  const [reshaping, setReshaping] = useState<(() => GeoJSON.Geometry | null) | null>(null);
  const path = { params: { path: { roomId, drawingId } } };
  useEffect(() => () => reshapingRef.current?.(), []);
  const reshapingRef = useRef(reshaping);
  reshapingRef.current = reshaping;
  const saveShape = async () => {
    const geometry = reshaping?.();
    setReshaping(null);
    if (!geometry) return;
    try {
      model.putDrawing(
        (
          await ok(
            api.PATCH('/api/rooms/{roomId}/drawings/{drawingId}', { ...path, body: { geometry: geometry as never } }),
          )
        ).drawing,
      );
      notify('Shape saved');
    } catch (error) {
      notify(messageOf(error), 'error');
    }
  };
  const save = async (event: Event) => {
    event.preventDefault();
    try {
      const body = { label: label.trim() || null, style: { ...drawing.style, color, strokeWeight: weight } };
      model.putDrawing((await ok(api.PATCH('/api/rooms/{roomId}/drawings/{drawingId}', { ...path, body }))).drawing);
      notify('Drawing saved');
    } catch (error) {
      notify(messageOf(error), 'error');
    }
  };
  const remove = async () => {
    if (!confirm('Delete this drawing?')) return;
    try {
      await ok(api.DELETE('/api/rooms/{roomId}/drawings/{drawingId}', path));
      model.removeDrawing(drawingId);
      selection.set(null);
    } catch (error) {
      notify(messageOf(error), 'error');
    }
  };
  const kind = (drawing.geometry as { type: string }).type;
  return (
    <div>
      <h2>{drawing.label ?? kind}</h2>
      <p class="muted">{kind} drawing</p>
      {canEdit && (
        <form class="form" onSubmit={save} aria-label="Edit drawing">
          <label>
            Label <input name="label" value={label} onInput={(e) => setLabel(e.currentTarget.value)} maxLength={200} />
          </label>
          <label>
            Colour <input type="color" value={color} onInput={(e) => setColor(e.currentTarget.value)} />
          </label>
          <label>
            Line width{' '}
            <input
              type="number"
              min={1}
              max={20}
              value={weight}
              onInput={(e) => setWeight(Number(e.currentTarget.value))}
            />
          </label>
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
