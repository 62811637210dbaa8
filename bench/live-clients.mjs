// A process of live-channel clients for bench/live-fanout.ts: opens `count` WebSockets spread
// over the given room URLs, and records when each marker change arrives. Started with its
// settings as JSON in argv[2]; says "ready" once every socket has its hello, then, on "report",
// prints what it received and exits.
import WebSocket from 'ws';

const { urls, count } = JSON.parse(process.argv[2]);
/** seq -> arrival times (ms since the epoch, sub-millisecond) of each client. */
const arrivals = new Map();
const versions = [];
let helloes = 0;
let closed = 0;
const now = () => performance.timeOrigin + performance.now();

for (let i = 0; i < count; i++) {
  const versionsSeen = [];
  versions.push(versionsSeen);
  const ws = new WebSocket(urls[i % urls.length]);
  ws.on('error', () => undefined);
  ws.on('close', () => closed++);
  ws.on('message', (raw) => {
    const at = now();
    const message = JSON.parse(String(raw));
    if (message.type === 'hello') {
      if (++helloes === count) process.stdout.write('ready\n');
      return;
    }
    if (message.type !== 'marker.updated') return;
    versionsSeen.push(message.version);
    const seq = Number(String(message.data.title).slice(1));
    let list = arrivals.get(seq);
    if (!list) arrivals.set(seq, (list = []));
    list.push(at);
  });
}

process.stdin.on('data', (line) => {
  if (!String(line).includes('report')) return;
  // Per client: whether its versions came in order without a repeat.
  const disordered = versions.filter((seen) => seen.some((v, i) => i > 0 && v <= seen[i - 1])).length;
  // Exit once the whole report is written (a pipe takes it in pieces).
  process.stdout.write(`${JSON.stringify({ arrivals: [...arrivals], closed, disordered })}\n`, () => process.exit(0));
});
