/**
 * One marker route run in process through Fastify's `inject` (no sockets, no HTTP parser):
 * `node --import tsx bench/inject-route.ts get|post [requests=20000] [rounds=3]`. Prints the
 * CPU time per request of each round (10 requests in flight, as autocannon's 10 connections).
 * Steadier than the HTTP runs on a busy machine: only the service's own work is counted,
 * and the rate of requests does not change the grouping, since the callers never wait for the
 * network. For comparing a change to the hot path with the code before it; not a figure
 * for the tables.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { buildApp } from '../src/app.js';
import { loadConfig } from '../src/config.js';

const [route = 'get', requests = '20000', rounds = '3'] = process.argv.slice(2);
const dataDir = mkdtempSync(path.join(os.tmpdir(), 'maproom-inject-'));
const { app } = await buildApp(loadConfig({ ...process.env, DATA_DIR: dataDir, LOG_LEVEL: 'warn' }));
const json = async (method: 'GET' | 'POST', url: string, body?: unknown, token?: string) => {
  const res = await app.inject({
    method,
    url,
    payload: body === undefined ? undefined : JSON.stringify(body),
    headers: {
      ...(body !== undefined && { 'content-type': 'application/json' }),
      ...(token && { authorization: `Bearer ${token}` }),
    },
  });
  if (res.statusCode >= 300) throw new Error(`${method} ${url}: ${res.statusCode} ${res.body}`);
  return res.json();
};
try {
  const { token: session } = await json('POST', '/api/auth/signup', {
    email: 'bench@example.com',
    password: 'bench-password-1',
    name: 'Bench',
  });
  await json('POST', '/api/rooms/bench-room', { name: 'Benchmark room' }, session);
  const { token } = await json(
    'POST',
    '/api/rooms/bench-room/api-tokens',
    { name: 'bench', permissions: ['read', 'write'], expiresInDays: 1 },
    session,
  );
  const body = JSON.stringify({ latitude: 45.764, longitude: 4.8357, title: 'Bench marker', tags: ['bench'] });
  const { marker } = await json('POST', '/api/rooms/bench-room/markers', JSON.parse(body), token);
  const headers = { authorization: `Bearer ${token}`, 'content-type': 'application/json' };
  const one =
    route === 'post'
      ? () => app.inject({ method: 'POST', url: '/api/rooms/bench-room/markers', payload: body, headers })
      : () => app.inject({ method: 'GET', url: `/api/rooms/bench-room/markers/${marker.id}`, headers });
  const run = async (count: number) => {
    let left = count;
    const worker = async () => {
      while (left-- > 0) {
        const res = await one();
        if (res.statusCode >= 300) throw new Error(`${res.statusCode} ${res.body}`);
      }
    };
    await Promise.all(Array.from({ length: 10 }, worker));
  };
  await run(Math.min(5000, Number(requests)));
  for (let round = 0; round < Number(rounds); round++) {
    const before = process.cpuUsage();
    await run(Number(requests));
    const used = process.cpuUsage(before);
    const us = (used.user + used.system) / Number(requests);
    console.log(
      `${route.toUpperCase()} marker (inject): ${us.toFixed(1)} µs CPU/request (user ${(used.user / Number(requests)).toFixed(1)})`,
    );
  }
} finally {
  await app.close();
  rmSync(dataDir, { recursive: true, force: true });
}
