// Prints the functions with the most self time in a V8 CPU profile (a .cpuprofile that
// BENCH_CPU_PROF=<dir> writes): `node bench/profile-top.mjs <file> [count=10] [fromSecond] [toSecond]`.
// The optional window keeps the samples taken between those seconds of the profile (one route's run);
// a negative fromSecond counts from the profile's end (-10: its last 10 seconds).
import { readFileSync } from 'node:fs';
import path from 'node:path';

const [file, count = '10', from = '0', to = 'Infinity'] = process.argv.slice(2);
if (!file) throw new Error('usage: node bench/profile-top.mjs <file.cpuprofile> [count] [fromSecond] [toSecond]');
const profile = JSON.parse(readFileSync(file, 'utf8'));
const nodes = new Map(profile.nodes.map((node) => [node.id, node]));
const selfUs = new Map();
const length = (profile.endTime - profile.startTime) / 1e6;
const start = Number(from) < 0 ? length + Number(from) : Number(from);
let t = 0;
let total = 0;
profile.samples.forEach((id, i) => {
  t += profile.timeDeltas[i];
  const second = t / 1e6;
  if (second < start || second > Number(to)) return;
  const { callFrame: f } = nodes.get(id);
  const where = f.url ? `${path.basename(f.url)}:${f.lineNumber + 1}` : '';
  const key = `${f.functionName || '(anonymous)'} ${where}`.trim();
  const delta = profile.timeDeltas[i + 1] ?? 0;
  selfUs.set(key, (selfUs.get(key) ?? 0) + delta);
  total += delta;
});
console.log(
  `${(total / 1e6).toFixed(1)} s of samples in ${path.basename(file)} (seconds ${start.toFixed(1)} to ${Math.min(length, Number(to)).toFixed(1)} of ${length.toFixed(1)})`,
);
console.log('| self time | share | function |\n|---|---|---|');
for (const [key, us] of [...selfUs].sort((a, b) => b[1] - a[1]).slice(0, Number(count)))
  console.log(`| ${(us / 1000).toFixed(0)} ms | ${((100 * us) / total).toFixed(1)}% | ${key.replaceAll('|', '\\|')} |`);
