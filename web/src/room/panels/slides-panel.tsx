import { useState } from 'preact/hooks';
import { viewOf } from '../../map/create-map';
import { framedSize } from '../../map/slide-fit';
import { useStore } from '../../store';
import { linkClick } from '../../router';
import { createSlide, deleteSlide, publishDeck, reorderSlides } from '../actions/slides';
import { useRoom } from '../room-context';
import { offerUndoDelete } from '../undo-delete';
import { inputLimits } from '../../ui/limits';
import { TextAreaField, TextField } from '../../ui/fields';
import { t } from '../../i18n/index.js';

const NEW = 'POST /api/rooms/{roomId}/presentation/slides';

/** The room's slides: make one from the current view and selection, reorder, present, publish. */
export function SlidesPanel() {
  const context = useRoom();
  const { model, roomId, canEdit, attempt, map, selection, hidden } = context;
  const { slides, room, layers, rasters } = useStore(model)!;
  const [title, setTitle] = useState('');
  const [body, setBody] = useState('');
  const create = (event: Event) => {
    event.preventDefault();
    const selected = selection.get();
    const shown = hidden.get();
    void attempt(async () => {
      await createSlide(model, {
        title: title.trim() || t('draw:slides.defaultTitle', { number: slides.length + 1 }),
        body: body.trim() || null,
        view: { ...viewOf(map.get()!), ...framedSize(map.get()!.getContainer()) },
        markerIds: selected?.kind === 'marker' ? [selected.id] : [],
        drawingIds: selected?.kind === 'drawing' ? [selected.id] : [],
        layerIds: layers.filter((l) => l.style.visible && !shown.has(l.id)).map((l) => l.id),
        rasterLayerIds: rasters.filter((r) => !shown.has(r.id)).map((r) => r.id),
      });
      setTitle('');
      setBody('');
    });
  };
  const move = (index: number, by: number) => {
    const ids = slides.map((s) => s.id);
    const [moved] = ids.splice(index, 1);
    ids.splice(index + by, 0, moved!);
    void attempt(() => reorderSlides(model, ids));
  };
  const publish = (isPublic: boolean) => attempt(() => publishDeck(model, isPublic));
  return (
    <div>
      <h2>{t('draw:slides.heading', { number: slides.length })}</h2>
      <ol class="slides" data-testid="slide-list">
        {slides.map((s, i) => (
          <li key={s.id}>
            <button
              type="button"
              class="link"
              onClick={() => map.get()?.flyTo({ center: [s.view.lng, s.view.lat], zoom: s.view.zoom })}
            >
              {s.title}
            </button>
            {canEdit && (
              <span class="row">
                <button
                  type="button"
                  aria-label={t('draw:slides.moveUp', { title: s.title })}
                  disabled={i === 0}
                  onClick={() => move(i, -1)}
                >
                  ↑
                </button>
                <button
                  type="button"
                  aria-label={t('draw:slides.moveDown', { title: s.title })}
                  disabled={i === slides.length - 1}
                  onClick={() => move(i, 1)}
                >
                  ↓
                </button>
                <button
                  type="button"
                  aria-label={t('draw:slides.delete', { title: s.title })}
                  class="danger"
                  onClick={async () =>
                    (await attempt(() => deleteSlide(model, s.id))) &&
                    offerUndoDelete(context, t('draw:slides.undoWhat', { title: s.title }), 'slide', s.id)
                  }
                >
                  ×
                </button>
              </span>
            )}
          </li>
        ))}
      </ol>
      {slides.length > 0 && (
        <p>
          {/* The deck's own page: what a visitor of the published deck sees, slide for slide. */}
          <a href={`/p/${roomId}?from=room`} onClick={linkClick} class="button">
            {t('draw:slides.present')}
          </a>{' '}
          <span class="muted">{t('draw:slides.presentNote')}</span>
        </p>
      )}
      {canEdit && (
        <form class="form" onSubmit={create} aria-label={t('draw:slides.newForm')}>
          <h3>{t('draw:slides.newHeading')}</h3>
          <TextField
            label={t('draw:slides.title')}
            name="slide-title"
            value={title}
            onInput={setTitle}
            {...inputLimits(NEW, 'title')}
          />
          <TextAreaField
            label={t('draw:slides.text')}
            value={body}
            onInput={setBody}
            rows={2}
            {...inputLimits(NEW, 'body')}
          />
          <p class="muted">{t('draw:slides.newNote')}</p>
          <button type="submit">{t('draw:slides.add')}</button>
        </form>
      )}
      {canEdit && (
        <fieldset>
          <legend>{t('draw:slides.publishing')}</legend>
          <label class="check">
            <input
              type="checkbox"
              checked={room.presentationIsPublic}
              onChange={(e) => publish(e.currentTarget.checked)}
            />{' '}
            {t('draw:slides.publicToggle')}
          </label>
          {room.presentationIsPublic && (
            <p>
              {t('draw:slides.publicLink')}{' '}
              <a href={`/p/${roomId}`} target="_blank" rel="noopener">
                {`${location.origin}/p/${roomId}`}
              </a>
            </p>
          )}
        </fieldset>
      )}
    </div>
  );
}
