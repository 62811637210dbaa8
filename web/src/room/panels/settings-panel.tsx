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
        <label>
          Name{' '}
          <input
            value={name}
            onInput={(e) => setName(e.currentTarget.value)}
            {...inputLimits('PATCH /api/rooms/{roomId}', 'name')}
            required
          />
        </label>
        <button type="submit">Rename</button>
      </form>
      <label class="check">
        <input
          type="checkbox"
          checked={room.isPublic}
          onChange={(e) => attempt(() => setRoomPublic(model, e.currentTarget.checked), 'Visibility saved')}
        />
        Public: anyone with the link can view the room
      </label>
      <div class="row">
        <button
          type="button"
          onClick={() => {
            const v = viewOf(map.get()!);
            void attempt(
              () => setCameraSettings(model, { defaultView: { lat: v.lat, lng: v.lng, zoom: v.zoom } }),
              'Default view saved',
            );
          }}
        >
          Use this view as the default
        </button>
      </div>
      <label>
        Theme
        <select
          value={room.defaultTheme ?? ''}
          onChange={(e) =>
            attempt(
              () =>
                setCameraSettings(model, {
                  defaultTheme: (e.currentTarget.value || null) as 'light' | 'dark' | null,
                }),
              'Theme saved',
            )
          }
        >
          <option value="">Default</option>
          <option value="light">Light</option>
          <option value="dark">Dark</option>
        </select>
      </label>
      {offered.length > 0 && (
        <label>
          Base layer
          <select
            value={room.defaultBaseLayer ?? ''}
            onChange={(e) =>
              attempt(
                () =>
                  setCameraSettings(model, {
                    defaultBaseLayer: (e.currentTarget.value || null) as BaseLayerId | null,
                  }),
                'Base layer saved',
              )
            }
          >
            <option value="">Default</option>
            {offered.map((b) => (
              <option key={b.id} value={b.id}>
                {b.name}
              </option>
            ))}
          </select>
        </label>
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
