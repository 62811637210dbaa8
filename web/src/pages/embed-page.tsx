import { useLayoutEffect, useMemo, useState } from 'preact/hooks';
import { takeEarly } from '../api/early-reads';
import type { RoomInfo } from '../api/types';
import { embedOptionsOf } from '../embed-options';
import { t } from '../i18n/index.js';
import { RoomOpening } from '../opening';
import { LiveChannel } from '../room/live';
import { RoomModel } from '../room/room-model';
import { RoomPresence } from '../room/presence';
import { browserClock } from '../ui/after-frame';
import { explain } from '../ui/notices';
import { OpenRoom } from './room-page';

type Access = { state: 'checking' } | { state: 'refused'; message: string } | { state: 'open'; info: RoomInfo };

/**
 * /e/:roomId: the room's map for another site's page, read with the address's embed key or
 * none, then kept live. With a key it is read at the version the live channel's hello names
 * (an embed key may not read the room's history).
 */
export function EmbedPage({ roomId }: { roomId: string }) {
  const embed = useMemo(() => embedOptionsOf(location.search), []);
  const [access, setAccess] = useState<Access>({ state: 'checking' });
  const [live, setLive] = useState<LiveChannel | null>(null);
  const opening = useMemo(() => new RoomOpening(browserClock), [roomId]);
  const model = useMemo(() => new RoomModel(roomId, opening), [opening]);
  const presence = useMemo(() => new RoomPresence(roomId), [model]);

  useLayoutEffect(() => {
    let channel: LiveChannel | null = null;
    let info: RoomInfo;
    const stopOpening = opening.when(
      (state) => state.mapDue,
      () => setAccess({ state: 'open', info }),
    );
    const loaded = new Promise<void>((resolve) => {
      const stop = model.subscribe((state) => {
        if (!state) return;
        stop();
        resolve();
      });
    });
    (async () => {
      info = await takeEarly('info', roomId);
      if (info.requiresAuth) {
        opening.fail();
        setAccess({ state: 'refused', message: t('share:embed.private') });
        return;
      }
      // Without a key, read as a public room's page is (its first reads sent early); a key reads
      // the room at the version the live channel's hello names.
      if (embed.key) opening.read(loaded);
      else {
        const loading = model.load();
        opening.read(loading);
        await loading;
        if (opening.over) return;
      }
      channel = new LiveChannel(model, undefined, true);
      channel.open();
      setLive(channel);
    })().catch((error) => {
      opening.fail();
      setAccess({
        state: 'refused',
        message: explain(error, { 401: t('share:embed.keyRefused'), 404: t('share:embed.notFound') }),
      });
    });
    return () => {
      stopOpening();
      opening.leave();
      channel?.close();
    };
  }, [model]);

  if (access.state === 'checking') return <p class="embed-note">{t('auth:roomPage.opening')}</p>;
  if (access.state === 'refused')
    return (
      <p class="embed-note" role="alert">
        {access.message}
      </p>
    );
  return <OpenRoom model={model} opening={opening} presence={presence} live={live} info={access.info} embed={embed} />;
}
