import { useEffect, useState } from 'preact/hooks';
import { blobUrl } from '../../api/client';
import type { Marker } from '../../api/types';
import { useStore } from '../../store';
import { addMarkerPhoto, deleteMarker, updateMarker } from '../actions/markers';
import { useRoom } from '../room-context';
import { offerUndoDelete } from '../undo-delete';
import { hasDetails } from '../room-state';
import { IconPicker } from './icon-picker';
import { colourInput } from '../../ui/colour';
import { fieldLimits, inputLimits } from '../../ui/limits';
import { ColourField, NumberField, SelectField, TextAreaField, TextField } from '../../ui/fields';
import { dateInput, dateOf, tagsOf } from '../../ui/field-values';
import { MarkerMedia } from './marker-media';
import { PlacingNote } from '../keyboard';
import { moveMarkerTo } from '../placing';
import { formatDateTime, t } from '../../i18n/index.js';

const PATCH = 'PATCH /api/rooms/{roomId}/markers/{markerId}';
/** A media size the service takes, as the page names it. */
function sizeName(size: string): string {
  switch (size) {
    case 'sm':
      return t('markers:form.sizes.sm');
    case 'md':
      return t('markers:form.sizes.md');
    case 'lg':
      return t('markers:form.sizes.lg');
    default:
      return size;
  }
}
/** An example of a link the media field takes (the same in every language). */
const MEDIA_EXAMPLE = 'https://www.youtube.com/watch?v=…';
const MEDIA_SIZES = (fieldLimits(PATCH, 'mediaSize').enum ?? []) as string[];

/** A marker's panel: what it says, its photo, and (for editors) a form to change or delete it. */
export function MarkerDetails({ markerId }: { markerId: string }) {
  const { model, canEdit, attempt, mode } = useRoom();
  const marker = useStore(model)!.markers.get(markerId)!;
  const [editing, setEditing] = useState(false);
  const moving = useStore(mode) === 'move-marker';
  const whole = hasDetails(marker);
  // The page drew the marker from the feed: its other fields are read now.
  useEffect(() => {
    if (!whole) void attempt(() => model.loadMarker(markerId));
  }, [markerId]);
  if (!whole)
    return (
      <div class="marker-details" data-testid="marker-details">
        <p class="muted">{t('markers:details.loading')}</p>
      </div>
    );
  return (
    <div class="marker-details" data-testid="marker-details">
      <h2 data-testid="marker-title">{marker.title}</h2>
      {marker.thumbnailKey && <Photo marker={marker} />}
      <MarkerMedia marker={marker} />
      {marker.description && <p class="description">{marker.description}</p>}
      {marker.tags && marker.tags.length > 0 && (
        <ul class="tags">
          {marker.tags.map((tag) => (
            <li key={tag}>{tag}</li>
          ))}
        </ul>
      )}
      {marker.eventDate != null && (
        <p class="muted">
          {t('markers:details.date', { date: formatDateTime(marker.eventDate, { dateStyle: 'medium' }) })}
        </p>
      )}
      <p class="muted">
        {marker.latitude?.toFixed(5)}, {marker.longitude?.toFixed(5)}
      </p>
      {canEdit && !editing && (
        <div class="row">
          <button type="button" onClick={() => setEditing(true)}>
            {t('markers:details.edit')}
          </button>
          <MoveButton marker={marker} />
        </div>
      )}
      {moving && <PlacingNote />}
      {canEdit && !editing && <PhotoPosition marker={marker} />}
      {canEdit && editing && <MarkerForm marker={marker} onDone={() => setEditing(false)} />}
    </div>
  );
}

/** Move: the map centres on the marker, and a click, a tap or Enter at the cross puts it where it goes (room/placing.ts). */
function MoveButton({ marker }: { marker: Marker }) {
  const { mode, map } = useRoom();
  const moving = useStore(mode) === 'move-marker';
  const start = () => {
    map.get()?.jumpTo({ center: [marker.longitude!, marker.latitude!] });
    mode.set('move-marker');
  };
  return (
    <button type="button" aria-pressed={moving} onClick={() => (moving ? mode.set('browse') : start())}>
      {moving ? t('markers:details.cancelMoving') : t('markers:details.move')}
    </button>
  );
}

/** A photo that says where it was taken (its EXIF position) offers to put the marker there. */
function PhotoPosition({ marker }: { marker: Marker }) {
  const room = useRoom();
  const gps = marker.imageMeta?.gps;
  // Already there: to about a centimetre (the seven decimals a marker keeps).
  const there =
    gps && Math.abs(gps.latitude - marker.latitude!) < 1e-7 && Math.abs(gps.longitude - marker.longitude!) < 1e-7;
  if (!gps || there) return null;
  return (
    <button type="button" onClick={() => void moveMarkerTo(room, marker.id, { lng: gps.longitude, lat: gps.latitude })}>
      {t('markers:details.placeAtPhoto', { latitude: gps.latitude.toFixed(5), longitude: gps.longitude.toFixed(5) })}
    </button>
  );
}

function Photo({ marker }: { marker: Marker }) {
  const { roomId } = useRoom();
  const [url, setUrl] = useState<string | null>(null);
  useEffect(() => {
    let created: string | null = null;
    blobUrl(`/api/rooms/${roomId}/markers/image?key=${encodeURIComponent(marker.thumbnailKey!)}`)
      .then((u) => setUrl((created = u)))
      .catch(() => setUrl(null));
    return () => created && URL.revokeObjectURL(created);
  }, [marker.thumbnailKey]);
  const openFull = async () => {
    const full = await blobUrl(`/api/rooms/${roomId}/markers/image?key=${encodeURIComponent(marker.imageKey!)}`);
    window.open(full, '_blank', 'noopener');
    setTimeout(() => URL.revokeObjectURL(full), 60_000);
  };
  return url ? (
    <button type="button" class="photo" onClick={openFull} aria-label={t('markers:details.openPhoto')}>
      <img
        src={url}
        alt={
          marker.title == null
            ? t('markers:details.photoOfMarker')
            : t('markers:details.photoOf', { title: marker.title })
        }
        data-testid="marker-photo"
      />
    </button>
  ) : null;
}

function MarkerForm({ marker, onDone }: { marker: Marker; onDone: () => void }) {
  const room = useRoom();
  const { model, attempt, selection } = room;
  const [title, setTitle] = useState(marker.title ?? '');
  const [description, setDescription] = useState(marker.description ?? '');
  const [tags, setTags] = useState((marker.tags ?? []).join(', '));
  const [date, setDate] = useState(dateInput(marker.eventDate));
  const [color, setColor] = useState(colourInput(marker.color, '#3388ff'));
  const [iconId, setIconId] = useState(marker.markerIconId ?? null);
  const [iconSize, setIconSize] = useState(marker.markerIconSize ?? 32);
  const [media, setMedia] = useState(marker.embeddedMediaUrl ?? '');
  const [mediaSize, setMediaSize] = useState(marker.mediaSize ?? 'md');
  const [progress, setProgress] = useState<number | null>(null);

  const save = async (event: Event) => {
    event.preventDefault();
    const body = {
      title: title.trim() || t('markers:form.untitled'),
      description: description.trim() || null,
      tags: tagsOf(tags),
      eventDate: dateOf(date),
      color,
      markerIconId: iconId,
      markerIconSize: iconId ? iconSize : null,
      embeddedMediaUrl: media.trim() || null,
      mediaSize: media.trim() ? mediaSize : null,
    };
    if (await attempt(() => updateMarker(model, marker.id, body))) onDone();
  };
  const uploadPhoto = async (file: File) => {
    setProgress(0);
    await attempt(() => addMarkerPhoto(model, marker.id, file, setProgress), t('markers:form.photoAdded'));
    setProgress(null);
  };
  const removePhoto = () => attempt(() => updateMarker(model, marker.id, { imageKey: null, thumbnailKey: null }));
  const remove = async () => {
    if (!(await attempt(() => deleteMarker(model, marker.id)))) return;
    selection.set(null);
    const what = marker.title
      ? t('markers:details.undoWhatNamed', { title: marker.title })
      : t('markers:details.undoWhat');
    offerUndoDelete(room, what, 'marker', marker.id);
  };
  return (
    <form class="form" onSubmit={save} aria-label={t('markers:form.label')}>
      <TextField
        label={t('markers:form.title')}
        name="title"
        value={title}
        onInput={setTitle}
        {...inputLimits(PATCH, 'title')}
      />
      <TextAreaField
        label={t('markers:form.description')}
        name="description"
        value={description}
        onInput={setDescription}
        rows={3}
        {...inputLimits(PATCH, 'description')}
      />
      <TextField label={t('markers:form.tags')} name="tags" value={tags} onInput={setTags} />
      <label>
        {t('markers:form.date')}{' '}
        <input type="date" name="eventDate" value={date} onInput={(e) => setDate(e.currentTarget.value)} />
      </label>
      <ColourField name="color" value={color} onInput={setColor} />
      <IconPicker iconId={iconId} onChange={setIconId} />
      {iconId && (
        <NumberField
          label={t('markers:form.iconSize')}
          {...inputLimits(PATCH, 'markerIconSize')}
          value={iconSize}
          onInput={setIconSize}
        />
      )}
      <TextField
        label={t('markers:form.media')}
        type="url"
        name="embeddedMediaUrl"
        placeholder={MEDIA_EXAMPLE}
        value={media}
        onInput={setMedia}
        {...inputLimits(PATCH, 'embeddedMediaUrl')}
      />
      {media.trim() && (
        <SelectField
          label={t('markers:form.mediaSize')}
          name="mediaSize"
          value={mediaSize}
          options={MEDIA_SIZES.map((size) => [size, sizeName(size)] as const)}
          onChange={(size) => setMediaSize(size as typeof mediaSize)}
        />
      )}
      <label>
        {t('markers:form.photo')}
        <input
          type="file"
          name="photo"
          accept="image/*"
          onChange={(e) => e.currentTarget.files?.[0] && uploadPhoto(e.currentTarget.files[0])}
        />
      </label>
      {progress !== null && <progress value={progress} max={1} aria-label={t('markers:form.photoUpload')} />}
      {marker.imageKey && (
        <button type="button" onClick={removePhoto}>
          {t('markers:form.removePhoto')}
        </button>
      )}
      <div class="row">
        <button type="submit">{t('markers:form.save')}</button>
        <button type="button" onClick={onDone}>
          {t('markers:form.cancel')}
        </button>
        <button type="button" class="danger" onClick={remove}>
          {t('markers:form.delete')}
        </button>
      </div>
    </form>
  );
}
