/**
 * One Maproom server, one marker route, for measuring a change to the hot path by itself:
 * `node --import tsx bench/one-route.ts get|post [seconds=8] [rounds=1]` prints the server CPU
 * per request (and req/s) after a 2 s warm-up. With BENCH_CPU_PROF=<dir> the server writes a
 * CPU profile on exit (read it with `node bench/profile-top.mjs <file> 20 -<seconds+1>`).
 * BENCH_HTTP_DBS=postgres runs it on a fresh PostgreSQL database.
 */
import { readFileSync } from 'node:fs';
import autocannon from 'autocannon';
import { api, cleanUp, cpuMs, fmt, freshPostgres, ROOM_ID, setUp, startMaproom, stopServer } from './harness.js';

const [route = 'get', seconds = '8', rounds = '1'] = process.argv.slice(2);
const postgres = process.env.BENCH_HTTP_DBS === 'postgres' ? await freshPostgres() : undefined;
const server = await startMaproom('maproom', postgres?.env ?? {});
try {
  const token = await setUp(server.url);
  const body = { latitude: 45.764, longitude: 4.8357, title: 'Bench marker', tags: ['bench'] };
  const { marker } = await api(server.url, 'POST', `/api/rooms/${ROOM_ID}/markers`, { token, body });
  const headers = { authorization: `Bearer ${token}` };
  const options: autocannon.Options =
    route === 'post'
      ? {
          url: `${server.url}/api/rooms/${ROOM_ID}/markers`,
          method: 'POST',
          headers: { ...headers, 'content-type': 'application/json' },
          body: JSON.stringify(body),
        }
      : { url: `${server.url}/api/rooms/${ROOM_ID}/markers/${marker.id}`, headers };
  const base = { connections: 10, pipelining: 1, ...options };
  await autocannon({ ...base, duration: 2 });
  for (let round = 0; round < Number(rounds); round++) {
    const cpu0 = cpuMs(server.pid);
    const user0 = userMs(server.pid);
    const r = await autocannon({ ...base, duration: Number(seconds) });
    const cpu = cpuMs(server.pid) - cpu0;
    const user = userMs(server.pid) - user0;
    console.log(
      `${route.toUpperCase()} marker: ${fmt(r.requests.average)} req/s, server CPU ${fmt((cpu * 1000) / r.requests.total)} µs/request` +
        ` (user ${fmt((user * 1000) / r.requests.total)} µs)` +
        ` (${r.requests.total} requests, ${r.non2xx} non-2xx, ${r.errors} errors)`,
    );
  }
} finally {
  await stopServer(server);
  await postgres?.drop();
  await cleanUp();
}

/** The user part of a process's CPU time, in ms (its system part is mostly the sockets'). */
function userMs(pid: number) {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[11]) * 10;
}
