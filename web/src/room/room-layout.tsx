import { useEffect, useState } from 'preact/hooks';
import { linkClick } from '../router';
import { session } from '../session';
import { useStore } from '../store';
import { t } from '../i18n/index.js';
import type { LiveChannel, LiveStatus } from './live';
import type { RoomInfo } from '../api/types';
import { Store } from '../store';
import { MapView } from './map-view';
import { Legend } from './legend';
import { PresenceAvatars } from './presence-avatars';
import { SearchBox } from './search-box';
import { bindPresence } from './presence-map';
import { useRoom } from './room-context';
import { SelectionPanel } from './panels/selection-panel';
import { MarkersPanel } from './panels/markers-panel';
import { LayersPanel } from './panels/layers-panel';
import { DrawPanel } from './panels/draw-panel';
import { SlidesPanel } from './panels/slides-panel';
import { HistoryPanel } from './panels/history-panel';
import { SettingsPanel } from './panels/settings-panel';
import { TimeBar } from './time-bar';
import { ShortcutsDialog, SkipToMap, useRoomKeys } from './keyboard';
import { showsPast } from './time-view';
import { SheetHandle, useSheet } from './bottom-sheet';
import { Announcer } from './announcer';
import { InView } from './in-view';
import { ShareDialog } from './share-dialog';
import { RoomPrint } from './print-button';

const TABS = [
  ['markers', () => t('room:layout.tabs.markers')],
  ['layers', () => t('room:layout.tabs.layers')],
  ['draw', () => t('room:layout.tabs.draw')],
  ['slides', () => t('room:layout.tabs.slides')],
  ['history', () => t('room:layout.tabs.history')],
  ['settings', () => t('room:layout.tabs.settings')],
] as const;
type Tab = (typeof TABS)[number][0];

const tabOf = (name: string | null): Tab => TABS.find(([id]) => id === name)?.[0] ?? 'markers';

const CONNECTING = new Store<LiveStatus>('connecting');

const LIVE_LABEL: Record<LiveStatus, () => string> = {
  connecting: () => t('room:layout.live.connecting'),
  live: () => t('room:layout.live.live'),
  offline: () => t('room:layout.live.offline'),
  refused: () => t('room:layout.live.refused'),
};

/** A member's role, as the header names it. */
const ROLE_LABEL: Record<'owner' | 'editor' | 'viewer', () => string> = {
  owner: () => t('room:layout.role.owner'),
  editor: () => t('room:layout.role.editor'),
  viewer: () => t('room:layout.role.viewer'),
};

/** The room: a header, the map, and a side panel (a bottom sheet over the map on a phone). */
export function RoomLayout({ live, info }: { live: LiveChannel | null; info: RoomInfo }) {
  const { model, opening, selection, canEdit, role, presence, map, mode, table } = useRoom();
  const state = useStore(model);
  const status = useStore(live?.status ?? CONNECTING);
  const selected = useStore(selection);
  const { user, lapsed } = useStore(session);
  // A link may open a tab (`?tab=settings`, from the account page's rooms to hand over).
  const [chosenTab, setTab] = useState<Tab>(() => tabOf(new URLSearchParams(location.search).get('tab')));
  // A past view is only looked at: the panels' controls are off, but for the timeline's.
  const past = showsPast(useStore(useRoom().timeView));
  const tabs = TABS.filter(([id]) => (id === 'draw' ? canEdit : true));
  // A tab that went away with the role (the owner made this page's person a viewer) falls back.
  const tab = tabs.some(([id]) => id === chosenTab) ? chosenTab : 'markers';
  useEffect(() => {
    if (!canEdit) mode.set('browse');
  }, [canEdit]);
  // A table opened from the search box shows in its layer's item, on the Layers tab.
  const openTable = useStore(table);
  const [sheet, setSheet] = useSheet();
  const openTab = (id: Tab) => {
    setTab(id);
    if (sheet === 'peek') setSheet('half');
  };
  useEffect(() => {
    if (openTable) openTab('layers');
  }, [openTable]);
  // The panels come a frame after the room's content: its markers are drawn first (the side
  // panel's first render is a long task, and in a browser drawing in software a costly frame).
  const [panelsShown, setPanelsShown] = useState(false);
  const loaded = state !== null;
  useEffect(() => (loaded && !panelsShown ? opening.afterNextFrame(() => setPanelsShown(true)) : undefined), [loaded]);
  const shownMap = useStore(map);
  useEffect(() => (shownMap ? bindPresence(shownMap, presence) : undefined), [shownMap, presence]);
  const [shortcuts, showShortcuts] = useRoomKeys();
  const [sharing, setSharing] = useState(false);
  return (
    <div class="room">
      <SkipToMap />
      <header class="room-header">
        <a href="/" onClick={linkClick} class="home" aria-label={t('room:layout.homeLabel')}>
          {t('room:layout.home')}
        </a>
        <h1>{state?.room.name ?? info.name ?? info.roomId}</h1>
        {state && <SearchBox />}
        <PresenceAvatars presence={presence} />
        {/* A lapsed session saves nothing until the person signs in again: the header does not say "Live". */}
        <span class={`live ${lapsed ? 'refused' : status}`} data-testid="live-status">
          {lapsed ? t('room:layout.signedOut') : LIVE_LABEL[status]()}
        </span>
        <span class="muted room-user">
          {user ? t('room:layout.user', { email: user.email, role: ROLE_LABEL[role]() }) : t('room:layout.visitor')}
        </span>
        {state && (
          <button type="button" class="share-button" onClick={() => setSharing(true)}>
            {t('share:button')}
          </button>
        )}
        {state && <RoomPrint />}
        <button
          type="button"
          class="shortcuts-button"
          aria-label={t('room:layout.shortcuts')}
          onClick={() => showShortcuts(true)}
        >
          ?
        </button>
      </header>
      {shortcuts && <ShortcutsDialog onClose={() => showShortcuts(false)} />}
      {sharing && <ShareDialog onClose={() => setSharing(false)} />}
      <Announcer live={live} />
      <main class="room-main">
        <MapView info={info} />
        {state && (
          <div class="map-corner">
            <InView />
            <Legend />
          </div>
        )}
        {state && <TimeBar />}
        <aside class="side" aria-label={t('room:layout.panels')} data-sheet={sheet}>
          {!(state && panelsShown) && <p>{t('room:layout.loading')}</p>}
          {state && panelsShown && (
            <>
              <SheetHandle sheet={sheet} onChange={setSheet} />
              {selected && !past && <SelectionPanel />}
              <div class="tabs" role="tablist">
                {tabs.map(([id, label]) => (
                  <button
                    key={id}
                    type="button"
                    role="tab"
                    id={`tab-${id}`}
                    aria-selected={tab === id}
                    aria-controls="panel"
                    onClick={() => openTab(id)}
                  >
                    {label()}
                  </button>
                ))}
              </div>
              <section id="panel" role="tabpanel" aria-labelledby={`tab-${tab}`} class="panel">
                <fieldset class="plain" disabled={past && tab !== 'history'}>
                  {tab === 'markers' && <MarkersPanel />}
                  {tab === 'layers' && <LayersPanel />}
                  {tab === 'draw' && <DrawPanel />}
                  {tab === 'slides' && <SlidesPanel />}
                  {tab === 'history' && <HistoryPanel />}
                  {tab === 'settings' && <SettingsPanel />}
                </fieldset>
              </section>
            </>
          )}
        </aside>
      </main>
    </div>
  );
}
