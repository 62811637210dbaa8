import { useState } from 'preact/hooks';
import { viewOf } from '../../map/create-map';
import { baseLayers } from '../../map/base-layers';
import type { BaseLayerId } from '../../api/types';
import { navigate } from '../../router';
import { useStore } from '../../store';
import { clearRoom, deleteRoom, renameRoom, setCameraSettings, setRoomPublic } from '../actions/room';
import { useRoom } from '../room-context';
import { MembersSection } from './members-section';
import { TokensSection } from './tokens-section';
import { ExportImportSection } from './export-import-section';
import { TimelineSettingsSection } from './timeline-settings-section';
import { inputLimits } from '../../ui/limits';
import { confirmInPage } from '../../ui/confirm-dialog';
import { CheckField, SelectField, TextField } from '../../ui/fields';

const NAME = inputLimits('PATCH /api/rooms/{roomId}', 'name');
const THEMES = [
  ['', 'Default'],
  ['light', 'Light'],
  ['dark', 'Dark'],
] as const;

/** The room's settings: the owner changes them; everyone sees export (and editors import). */
export function SettingsPanel() {
  const { isOwner } = useRoom();
  return (
    <div>
      <h2>Settings</h2>
      {isOwner ? (
        <RoomSettings />
      ) : (
        <p class="muted">Only the room's owner changes its settings, members and tokens.</p>
      )}
      {isOwner && <TimelineSettingsSection />}
      {isOwner && <MembersSection />}
      {isOwner && <TokensSection />}
      <ExportImportSection />
      {isOwner && <DangerZone />}
    </div>
  );
}

function RoomSettings() {
  const { model, attempt, map } = useRoom();
  const { room } = useStore(model)!;
  const [name, setName] = useState(room.name ?? '');
  const offered = baseLayers().filter((b) => b.id !== 'blank');
  const save = (change: Parameters<typeof setCameraSettings>[1], done: string) =>
    attempt(() => setCameraSettings(model, change), done);
  return (
    <section aria-labelledby="room-settings">
      <h3 id="room-settings">Room</h3>
      <form
        class="inline"
        onSubmit={(e) => {
          e.preventDefault();
          void attempt(() => renameRoom(model, name.trim()), 'Name saved');
        }}
      >
        <TextField label="Name" value={name} onInput={setName} {...NAME} required />
        <button type="submit">Rename</button>
      </form>
      <CheckField
        label="Public: anyone with the link can view the room"
        checked={room.isPublic}
        onChange={(isPublic) => attempt(() => setRoomPublic(model, isPublic), 'Visibility saved')}
      />
      <div class="row">
        <button
          type="button"
          onClick={() => {
            const v = viewOf(map.get()!);
            void save({ defaultView: { lat: v.lat, lng: v.lng, zoom: v.zoom } }, 'Default view saved');
          }}
        >
          Use this view as the default
        </button>
      </div>
      <SelectField
        label="Theme"
        value={room.defaultTheme ?? ''}
        options={THEMES}
        onChange={(theme) => save({ defaultTheme: (theme || null) as 'light' | 'dark' | null }, 'Theme saved')}
      />
      {offered.length > 0 && (
        <SelectField
          label="Base layer"
          value={room.defaultBaseLayer ?? ''}
          options={[['', 'Default'], ...offered.map((b) => [b.id, b.name] as const)]}
          onChange={(base) => save({ defaultBaseLayer: (base || null) as BaseLayerId | null }, 'Base layer saved')}
        />
      )}
    </section>
  );
}

function DangerZone() {
  const { roomId, model, attempt } = useRoom();
  const [typed, setTyped] = useState('');
  const clear = async () => {
    if (
      !(await confirmInPage(
        'Remove every marker, layer, drawing, comment and slide of this room? Members and tokens stay.',
        'Clear the room',
      ))
    )
      return;
    await attempt(() => clearRoom(model), 'The room is empty');
  };
  const remove = () => attempt(() => deleteRoom(model).then(() => navigate('/')));
  return (
    <section aria-labelledby="danger" class="danger-zone">
      <h3 id="danger">Clear or delete</h3>
      <button type="button" class="danger" onClick={clear}>
        Clear the room…
      </button>
      <label>
        Type the room id <code>{roomId}</code> to delete the room and everything in it
        <input
          value={typed}
          onInput={(e) => setTyped(e.currentTarget.value)}
          aria-label="Room id to confirm deletion"
        />
      </label>
      <button type="button" class="danger" disabled={typed !== roomId} onClick={remove}>
        Delete the room
      </button>
    </section>
  );
}
