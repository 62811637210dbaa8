/**
 * Webhook delivery (`BENCH_ONLY=webhooks`): one Maproom on SQLite, a receiver on loopback and
 * 50 marker creations a second for BENCH_WEBHOOK_SECONDS (20) s, each delivered to one hook.
 * For each change it measures the time from the POST's acknowledgement to its delivery's
 * arrival (an arrival before the acknowledgement counts 0 ms). Lost: changes never delivered.
 * The target: p99 under 1 s, none lost, none delivered twice.
 */
import { randomBytes } from 'node:crypto';
import { WebhookReceiver } from '../test/support/webhook-receiver.js';
import { api, fmt, type Row, sleep, startMaproom, stopServer } from './harness.js';

const env = process.env;
const RATE = 50;
const SECONDS = Number(env.BENCH_WEBHOOK_SECONDS ?? 20);
const TARGET_MS = 1000;

export async function runWebhooksBench(): Promise<{ rows: Row[]; missed: string[] }> {
  const server = await startMaproom('maproom (webhooks)', { OUTBOUND_ALLOW_PRIVATE: 'true' });
  const receiver = await WebhookReceiver.start();
  try {
    const base = server.url;
    const { token } = await api(base, 'POST', '/api/auth/signup', {
      body: { email: 'hooks@example.com', password: 'bench-password-1', name: 'Hooks' },
    });
    const room = randomBytes(8).toString('base64url').slice(0, 10);
    await api(base, 'POST', `/api/rooms/${room}`, { token, body: { name: 'Webhooks' } });
    await api(base, 'POST', `/api/rooms/${room}/webhooks`, {
      token,
      body: { url: receiver.url, events: ['marker.created'] },
    });

    const acknowledged = new Map<string, number>();
    const total = RATE * SECONDS;
    const started = performance.now();
    const sends: Promise<void>[] = [];
    for (let i = 0; i < total; i++) {
      const due = started + (i * 1000) / RATE;
      const wait = due - performance.now();
      if (wait > 0) await sleep(wait);
      sends.push(
        api(base, 'POST', `/api/rooms/${room}/markers`, {
          token,
          body: { latitude: 46 + i / 1e5, longitude: 7, title: `m${i}` },
        }).then((answer) => void acknowledged.set(answer.marker.id, performance.now())),
      );
    }
    await Promise.all(sends);
    await Promise.race([receiver.waitFor(total), sleep(30_000)]);

    const arrivals = new Map<string, number>();
    const ids = new Set<string>();
    let repeated = 0;
    for (const [i, request] of receiver.received.entries()) {
      const id = String(request.headers['webhook-id']);
      if (ids.has(id)) repeated++;
      ids.add(id);
      arrivals.set(JSON.parse(request.body).objectId, receiver.arrivedAt[i]!);
    }
    const latencies = [...acknowledged].flatMap(([id, at]) => {
      const arrived = arrivals.get(id);
      return arrived === undefined ? [] : [Math.max(0, arrived - at)];
    });
    latencies.sort((a, b) => a - b);
    const p = (q: number) => latencies[Math.min(latencies.length - 1, Math.floor(q * latencies.length))] ?? Number.NaN;
    const lost = total - latencies.length;
    const met = p(0.99) < TARGET_MS && lost === 0 && repeated === 0;
    console.log(
      `   webhooks: ${fmt(total)} changes at ${RATE}/s, p50 ${p(0.5).toFixed(1)} ms, p99 ${p(0.99).toFixed(1)} ms, max ${p(1).toFixed(1)} ms, lost ${lost}, repeated ${repeated}`,
    );
    const label = `webhook delivery at ${RATE} changes/s, p99 (lost, repeated)`;
    const rows: Row[] = [
      [
        label,
        `${p(0.99).toFixed(1)} ms (${lost}, ${repeated})`,
        'n/a',
        'n/a',
        `< ${TARGET_MS} ms, none lost or repeated`,
        met ? 'yes' : 'NO',
      ],
    ];
    return { rows, missed: met ? [] : [label] };
  } finally {
    await receiver.close();
    await stopServer(server);
  }
}
