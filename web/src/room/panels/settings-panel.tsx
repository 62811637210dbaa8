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
import { BasemapsSection } from './basemaps-section';
import { inputLimits } from '../../ui/limits';
import { confirmInPage } from '../../ui/confirm-dialog';
import { CheckField, SelectField, TextField } from '../../ui/fields';
import { t } from '../../i18n/index.js';

const NAME = inputLimits('PATCH /api/rooms/{roomId}', 'name');
const themes = () =>
  [
    ['', t('settings:room.themes.default')],
    ['light', t('settings:room.themes.light')],
    ['dark', t('settings:room.themes.dark')],
  ] as const;

/** The room's settings: the owner changes them; everyone sees export (and editors import). */
export function SettingsPanel() {
  const { isOwner } = useRoom();
  return (
    <div>
      <h2>{t('settings:panel.title')}</h2>
      {isOwner ? <RoomSettings /> : <p class="muted">{t('settings:panel.ownerOnly')}</p>}
      {isOwner && <BasemapsSection />}
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
      <h3 id="room-settings">{t('settings:room.title')}</h3>
      <form
        class="inline"
        onSubmit={(e) => {
          e.preventDefault();
          void attempt(() => renameRoom(model, name.trim()), t('settings:room.nameSaved'));
        }}
      >
        <TextField label={t('settings:room.name')} value={name} onInput={setName} {...NAME} required />
        <button type="submit">{t('settings:room.rename')}</button>
      </form>
      <CheckField
        label={t('settings:room.public')}
        checked={room.isPublic}
        onChange={(isPublic) => attempt(() => setRoomPublic(model, isPublic), t('settings:room.visibilitySaved'))}
      />
      <div class="row">
        <button
          type="button"
          onClick={() => {
            const v = viewOf(map.get()!);
            void save({ defaultView: { lat: v.lat, lng: v.lng, zoom: v.zoom } }, t('settings:room.viewSaved'));
          }}
        >
          {t('settings:room.useView')}
        </button>
      </div>
      <SelectField
        label={t('settings:room.theme')}
        value={room.defaultTheme ?? ''}
        options={themes()}
        onChange={(theme) =>
          save({ defaultTheme: (theme || null) as 'light' | 'dark' | null }, t('settings:room.themeSaved'))
        }
      />
      {offered.length > 0 && (
        <SelectField
          label={t('settings:room.baseLayer')}
          value={room.defaultBaseLayer ?? ''}
          options={[['', t('settings:room.baseLayerDefault')], ...offered.map((b) => [b.id, b.name] as const)]}
          onChange={(base) =>
            save({ defaultBaseLayer: (base || null) as BaseLayerId | null }, t('settings:room.baseLayerSaved'))
          }
        />
      )}
    </section>
  );
}

function DangerZone() {
  const { roomId, model, attempt } = useRoom();
  const [typed, setTyped] = useState('');
  const clear = async () => {
    if (!(await confirmInPage(t('settings:danger.clearQuestion'), t('settings:danger.clearConfirm')))) return;
    await attempt(() => clearRoom(model), t('settings:danger.cleared'));
  };
  const remove = () => attempt(() => deleteRoom(model).then(() => navigate('/')));
  return (
    <section aria-labelledby="danger" class="danger-zone">
      <h3 id="danger">{t('settings:danger.title')}</h3>
      <button type="button" class="danger" onClick={clear}>
        {t('settings:danger.clear')}
      </button>
      <label>
        {t('settings:danger.typeIdBefore')} <code>{roomId}</code> {t('settings:danger.typeIdAfter')}
        <input
          value={typed}
          onInput={(e) => setTyped(e.currentTarget.value)}
          aria-label={t('settings:danger.idLabel')}
        />
      </label>
      <button type="button" class="danger" disabled={typed !== roomId} onClick={remove}>
        {t('settings:danger.delete')}
      </button>
    </section>
  );
}
