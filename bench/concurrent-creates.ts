/**
 * Concurrent creates in one room (part of the HTTP bench): `clients` connections each POST
 * markers to the same room as fast as they can, while one live WebSocket client
 * listens. Counts acknowledged creates per second and the server's CPU per create, then
 * checks what the issue asks: every create acknowledged (201), the room's history holding
 * exactly those creates with versions strictly increasing and no gap, and the live client
 * having seen every one of them in version order. A failed check throws.
 */
import autocannon from 'autocannon';
import WebSocket from 'ws';
import { api, cpuMs, fmt, ROOM_ID, type Server, sleep } from './harness.js';

export interface ConcurrentCreates {
  creates: number;
  perSecond: number;
  cpuPerCreate: number;
}

interface LiveEvent {
  type: string;
  objectId: string;
  version: number;
}

/** Opens the room's live channel and resolves with the room's version (its hello) and what arrives after. */
async function listen(server: Server, token: string) {
  const url = `${server.url.replace(/^http/, 'ws')}/api/rooms/${ROOM_ID}/live?access_token=${encodeURIComponent(token)}`;
  const ws = new WebSocket(url);
  const events: LiveEvent[] = [];
  const version = await new Promise<number>((resolve, reject) => {
    ws.once('error', reject);
    ws.on('message', (raw) => {
      const message = JSON.parse(String(raw));
      if (message.type === 'hello') resolve(message.version);
      else if (typeof message.version === 'number') events.push(message);
      else reject(new Error(`live channel: ${String(raw)}`));
    });
  });
  return { version, events, close: () => ws.close() };
}

/** The history entries with versions above `after`, oldest first. */
async function historyAfter(server: Server, token: string, after: number) {
  const entries: LiveEvent[] = [];
  let before: number | undefined;
  for (;;) {
    const query = `limit=500${before === undefined ? '' : `&before=${before}`}`;
    const { events } = await api<{ events: LiveEvent[] }>(server.url, 'GET', `/api/rooms/${ROOM_ID}/history?${query}`, {
      token,
    });
    const newer = events.filter((e) => e.version > after);
    entries.push(...newer);
    if (newer.length < events.length || events.length < 500) break;
    before = events.at(-1)!.version;
  }
  return entries.reverse();
}

/** Checks that `seen` is exactly one `marker.created` per acknowledged id, versions `from + 1`, `from + 2`, ... */
function check(what: string, seen: LiveEvent[], from: number, acknowledged: Set<string>) {
  if (seen.length !== acknowledged.size)
    throw new Error(`${what}: ${seen.length} changes for ${acknowledged.size} acknowledged creates`);
  seen.forEach((event, i) => {
    if (event.version !== from + 1 + i)
      throw new Error(`${what}: change ${i + 1} has version ${event.version}, expected ${from + 1 + i}`);
    if (event.type !== 'marker.created' || !acknowledged.has(event.objectId))
      throw new Error(
        `${what}: version ${event.version} is ${event.type} of ${event.objectId}, not an acknowledged create`,
      );
  });
}

/**
 * `amount` creates over `clients` connections (autocannon, as light a client as the other
 * routes'; a fixed amount, so that every create sent is answered before the checks).
 */
export async function concurrentCreates(
  server: Server,
  token: string,
  clients: number,
  amount: number,
): Promise<ConcurrentCreates> {
  // Requests of the run before may still be on their way (autocannon's timed runs stop without waiting).
  await sleep(2000);
  const live = await listen(server, token);
  const acknowledged = new Set<string>();
  const failures: string[] = [];
  const cpu0 = cpuMs(server.pid);
  const result = await autocannon({
    url: `${server.url}/api/rooms/${ROOM_ID}/markers`,
    connections: clients,
    pipelining: 1,
    amount,
    requests: [
      {
        method: 'POST',
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
        body: JSON.stringify({ latitude: 45.764, longitude: 4.8357, title: 'Concurrent marker', tags: ['bench'] }),
        onResponse: (status, body) => {
          if (status !== 201) failures.push(`${status} ${body.slice(0, 200)}`);
          else acknowledged.add((JSON.parse(body) as { marker: { id: string } }).marker.id);
        },
      },
    ],
  });
  const cpu = cpuMs(server.pid) - cpu0;
  if (failures.length || result.errors || result.timeouts || acknowledged.size !== amount)
    throw new Error(
      `${amount - acknowledged.size} of ${amount} creates not acknowledged (${result.errors} errors, ` +
        `${result.timeouts} timeouts)${failures.length ? `, the first: ${failures[0]}` : ''}`,
    );

  check('history', await historyAfter(server, token, live.version), live.version, acknowledged);
  for (let wait = 0; live.events.length < acknowledged.size && wait < 100; wait++) await sleep(50);
  live.close();
  check('live channel', live.events, live.version, acknowledged);

  const out = {
    creates: acknowledged.size,
    perSecond: acknowledged.size / result.duration,
    cpuPerCreate: (cpu * 1000) / acknowledged.size,
  };
  console.log(
    `   maproom ${clients} clients creating markers in one room: ${fmt(out.perSecond)} creates/s ` +
      `(${fmt(out.creates)} in ${result.duration.toFixed(1)} s, server CPU ${fmt(out.cpuPerCreate)} µs/create); ` +
      'all acknowledged, history and live channel complete and in version order',
  );
  return out;
}
