import { useLayoutEffect, useMemo, useState } from 'preact/hooks';
import type { Map as MapLibreMap } from 'maplibre-gl';
import { takeEarly } from '../api/early-reads';
import type { MyInvitation, RoomInfo } from '../api/types';
import { RoomOpening } from '../opening';
import { linkClick } from '../router';
import { session } from '../session';
import { Store, useStore } from '../store';
import { LiveChannel } from '../room/live';
import { RoomMembers } from '../room/actions/members';
import { RoomContext, type Mode, type OpenTable, type RoomContextValue, type Selection } from '../room/room-context';
import { RoomModel } from '../room/room-model';
import { RoomPresence } from '../room/presence';
import { RoomLayout } from '../room/room-layout';
import { EmbedLayout } from '../embed/embed-layout';
import type { EmbedOptions } from '../embed-options';
import type { TimeView } from '../room/time-view';
import type { Located } from '../room/locate';
import { UndoHistory } from '../room/undo';
import { browserClock } from '../ui/after-frame';
import { InlineError } from '../ui/inline-error';
import { attemptWith, explain } from '../ui/notices';
import { useNotices } from '../ui/notice-toast';
import { SignIn } from './sign-in';
import { myInvitationTo, RoomInvitation } from './confirm-address';
import { t } from '../i18n/index.js';

type Access =
  | { state: 'checking' }
  | { state: 'login'; info: RoomInfo }
  | { state: 'refused'; info?: RoomInfo; message: string }
  | { state: 'invited'; info: RoomInfo; invitation: MyInvitation }
  | { state: 'open'; info: RoomInfo };

/** /r/:roomId: checks who may open the room, loads it, listens live, shows the map. */
export function RoomPage({ roomId }: { roomId: string }) {
  // The room is opened again for another person, not for a renewed token or a sign-in again in place.
  const userId = useStore(session).user?.id;
  const [access, setAccess] = useState<Access>({ state: 'checking' });
  const [live, setLive] = useState<LiveChannel | null>(null);
  const opening = useMemo(() => new RoomOpening(browserClock), [roomId, userId]);
  const model = useMemo(() => new RoomModel(roomId, opening), [opening]);
  const presence = useMemo(() => new RoomPresence(roomId), [model]);

  // A layout effect: the room's reads are taken up at once, not after the first frame is drawn.
  useLayoutEffect(() => {
    let live: LiveChannel | null = null;
    let info: RoomInfo;
    setAccess({ state: 'checking' });
    // The room renders (its map made) when its opening asks for it (opening.ts, RoomOpening).
    const stopOpening = opening.when(
      (state) => state.mapDue,
      () => setAccess({ state: 'open', info }),
    );
    (async () => {
      // The room's info, and its version and content (RoomModel.load), were usually sent before
      // the application's scripts ran (api/early-reads.ts).
      info = await takeEarly('info', roomId);
      const { token } = session.get();
      if (info.requiresAuth) {
        // Someone invited (whose address may wait for its confirmation) hears how to get in, not to ask for an invitation.
        const invitation = token ? await myInvitationTo(roomId) : undefined;
        opening.fail();
        setAccess(
          !token
            ? { state: 'login', info }
            : invitation
              ? { state: 'invited', info, invitation }
              : {
                  state: 'refused',
                  info,
                  message: t('auth:roomPage.private'),
                },
        );
        return;
      }
      const loading = model.load();
      opening.read(loading);
      await loading;
      // A page left meanwhile (another room opened) opens no channel that nothing would close.
      if (opening.over) return;
      live = new LiveChannel(model, presence, Boolean(info.isPublic));
      live.open();
      setLive(live);
    })().catch((error) => {
      opening.fail();
      setAccess({ state: 'refused', message: explain(error, { 404: t('auth:roomPage.notFound') }) });
    });
    return () => {
      stopOpening();
      opening.leave();
      live?.close();
    };
  }, [model]);

  if (access.state === 'checking')
    return (
      <main class="page narrow">
        <p>{t('auth:roomPage.opening')}</p>
      </main>
    );
  if (access.state !== 'open') {
    const info = access.info;
    return (
      <main class="page narrow">
        <h1>{t('auth:roomPage.title', { roomId })}</h1>
        {access.state === 'refused' && <InlineError message={access.message} />}
        {access.state === 'login' && <p>{t('auth:roomPage.logIn')}</p>}
        {access.state === 'invited' && (
          <RoomInvitation invitation={access.invitation} onAccepted={() => location.reload()} />
        )}
        {info?.presentationIsPublic && (
          <p>
            {t('auth:roomPage.presentationBefore')}{' '}
            <a href={`/p/${roomId}`} onClick={linkClick}>
              {t('auth:roomPage.presentationLink')}
            </a>
            {t('auth:roomPage.presentationAfter')}
          </p>
        )}
        {access.state === 'login' && <SignIn />}
        <p>
          <a href="/" onClick={linkClick}>
            {t('auth:roomPage.yourRooms')}
          </a>
        </p>
      </main>
    );
  }
  return <OpenRoom model={model} opening={opening} presence={presence} live={live} info={access.info} />;
}

/** The open room: its context, and its layout (an embed page's, given `embed`). */
export function OpenRoom({
  model,
  opening,
  presence,
  live,
  info,
  embed,
}: {
  model: RoomModel;
  opening: RoomOpening;
  presence: RoomPresence;
  live: LiveChannel | null;
  info: RoomInfo;
  embed?: EmbedOptions;
}) {
  const state = useStore(model);
  const { notify, toast } = useNotices();
  // An embed page only reads, whoever looks at it.
  const role = (embed ? 'viewer' : (state?.room.userRole ?? 'viewer')) as RoomContextValue['role'];
  const members = useMemo(() => new RoomMembers(model.roomId), [model]);
  const timeView = useMemo(() => new Store<TimeView>({ mode: 'current' }), [model]);
  const undo = useMemo(() => new UndoHistory(model, () => session.get().user?.id ?? null), [model]);
  // The page's own stores outlive a change of role (the owner may change it while the page is open).
  const stores = useMemo(
    () => ({
      map: new Store<MapLibreMap | null>(null),
      selection: new Store<Selection>(null),
      mode: new Store<Mode>('browse'),
      hidden: new Store(new Set<string>()),
      table: new Store<OpenTable>(null),
      located: new Store<Located | null>(null),
    }),
    [model],
  );
  const context = useMemo<RoomContextValue>(() => {
    return {
      roomId: model.roomId,
      model,
      opening,
      members,
      presence,
      ...stores,
      timeView,
      undo,
      role,
      canEdit: role === 'owner' || role === 'editor',
      isOwner: role === 'owner',
      notify,
      attempt: attemptWith(notify),
      embed,
    };
  }, [model, opening, members, presence, stores, timeView, undo, role, notify, embed]);
  return (
    <RoomContext.Provider value={context}>
      {embed ? <EmbedLayout live={live} info={info} /> : <RoomLayout live={live} info={info} />}
      {toast}
    </RoomContext.Provider>
  );
}
