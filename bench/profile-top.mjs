// Prints the functions with the most self time in a V8 CPU profile (a .cpuprofile that
// BENCH_CPU_PROF=<dir> writes): `node bench/profile-top.mjs <file> [count=10] [fromSecond] [toSecond]`.
// The optional window keeps the samples taken between those seconds of the profile (one route's run);
// a negative fromSecond counts from the profile's end (-10: its last 10 seconds).
// With PROFILE_TOTAL=1 it ranks by total time instead (the function and all it called).
import { readFileSync } from 'node:fs';
import path from 'node:path';

const [file, count = '10', from = '0', to = 'Infinity'] = process.argv.slice(2);
if (!file) throw new Error('usage: node bench/profile-top.mjs <file.cpuprofile> [count] [fromSecond] [toSecond]');
const totals = process.env.PROFILE_TOTAL === '1';
const profile = JSON.parse(readFileSync(file, 'utf8'));
const nodes = new Map(profile.nodes.map((node) => [node.id, node]));
const parents = new Map();
for (const node of profile.nodes) for (const child of node.children ?? []) parents.set(child, node.id);
const keyOf = ({ callFrame: f }) => {
  const where = f.url ? `${path.basename(f.url)}:${f.lineNumber + 1}` : '';
  return `${f.functionName || '(anonymous)'} ${where}`.trim();
};
const timeUs = new Map();
const length = (profile.endTime - profile.startTime) / 1e6;
const start = Number(from) < 0 ? length + Number(from) : Number(from);
let t = 0;
let total = 0;
profile.samples.forEach((id, i) => {
  t += profile.timeDeltas[i];
  const second = t / 1e6;
  if (second < start || second > Number(to)) return;
  const delta = profile.timeDeltas[i + 1] ?? 0;
  total += delta;
  const keys = new Set([keyOf(nodes.get(id))]);
  if (totals) for (let p = parents.get(id); p !== undefined; p = parents.get(p)) keys.add(keyOf(nodes.get(p)));
  for (const key of keys) timeUs.set(key, (timeUs.get(key) ?? 0) + delta);
});
console.log(
  `${(total / 1e6).toFixed(1)} s of samples in ${path.basename(file)} (seconds ${start.toFixed(1)} to ${Math.min(length, Number(to)).toFixed(1)} of ${length.toFixed(1)})`,
);
console.log(`| ${totals ? 'total' : 'self'} time | share | function |\n|---|---|---|`);
for (const [key, us] of [...timeUs].sort((a, b) => b[1] - a[1]).slice(0, Number(count)))
  console.log(`| ${(us / 1000).toFixed(0)} ms | ${((100 * us) / total).toFixed(1)}% | ${key.replaceAll('|', '\\|')} |`);
