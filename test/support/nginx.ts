import { type ChildProcess, spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { freePort } from './prometheus.js';

/**
 * A real nginx (Debian's `nginx`) on a free loopback port in front of the given instances,
 * with docs/operations/nginx.conf (the configuration the README shows) and only its example
 * addresses replaced. It runs as the current user, its pid, logs and temporary files in a
 * temporary folder.
 */
export interface Nginx {
  /** http://127.0.0.1:<port> */
  url: string;
  /** The status of each answer nginx had from `address` (host:port), in its access log's order. */
  answersOf(address: string): number[];
  /** What nginx logged (warnings and errors), for failure messages. */
  errors(): string;
  stop(): Promise<void>;
}

export const NGINX_CONF = path.resolve(
  path.dirname(fileURLToPath(import.meta.url)),
  '../../docs/operations/nginx.conf',
);
/** The addresses the configuration names as an example: its own port, then each instance's. */
const EXAMPLE = { listen: 'listen 80;', upstreams: ['server 127.0.0.1:8081 ', 'server 127.0.0.1:8082 '] };
/** A guard against hangs while it starts (not a timing assertion). */
const START_MS = 20_000;

/** docs/operations/nginx.conf listening on `port`, in front of `upstreams` (host:port each). */
export function maproomConf(port: number, upstreams: [string, string]): string {
  let conf = readFileSync(NGINX_CONF, 'utf8');
  const replace = (from: string, to: string) => {
    if (conf.split(from).length !== 2) throw new Error(`${NGINX_CONF} should name "${from}" once`);
    conf = conf.replace(from, to);
  };
  replace(EXAMPLE.listen, `listen 127.0.0.1:${port};`);
  EXAMPLE.upstreams.forEach((example, i) => replace(example, `server ${upstreams[i]} `));
  return conf;
}

export async function startNginx(upstreams: [string, string]): Promise<Nginx> {
  const dir = mkdtempSync(path.join(tmpdir(), 'maproom-nginx-'));
  const port = await freePort();
  writeFileSync(path.join(dir, 'maproom.conf'), maproomConf(port, upstreams));
  for (const temp of ['client_body', 'proxy', 'fastcgi', 'uwsgi', 'scgi']) mkdirSync(path.join(dir, temp));
  writeFileSync(
    path.join(dir, 'nginx.conf'),
    [
      // As root, nginx's workers would switch to `nobody`, who cannot write to this folder.
      process.getuid?.() === 0 ? 'user root;' : '',
      'worker_processes 2;',
      `pid ${dir}/nginx.pid;`,
      `error_log ${dir}/error.log warn;`,
      'events { worker_connections 2048; }',
      'http {',
      // Which instance each request went to (several when nginx tried another), and each one's answer.
      "  log_format upstreams '$upstream_addr|$upstream_status';",
      `  access_log ${dir}/access.log upstreams;`,
      ...['client_body', 'proxy', 'fastcgi', 'uwsgi', 'scgi'].map((t) => `  ${t}_temp_path ${dir}/${t};`),
      `  include ${dir}/maproom.conf;`,
      '}',
    ].join('\n'),
  );
  const child: ChildProcess = spawn(
    '/usr/sbin/nginx',
    ['-p', dir, '-c', path.join(dir, 'nginx.conf'), '-e', path.join(dir, 'error.log'), '-g', 'daemon off;'],
    { stdio: ['ignore', 'pipe', 'pipe'] },
  );
  let output = '';
  child.stdout!.on('data', (chunk: Buffer) => (output += chunk));
  child.stderr!.on('data', (chunk: Buffer) => (output += chunk));
  const errors = () => {
    try {
      return output + readFileSync(path.join(dir, 'error.log'), 'utf8');
    } catch {
      return output;
    }
  };
  const stop = async () => {
    if (child.exitCode === null && child.signalCode === null) {
      child.kill('SIGTERM');
      await new Promise((resolve) => child.once('exit', resolve));
    }
    rmSync(dir, { recursive: true, force: true });
  };
  const url = `http://127.0.0.1:${port}`;
  for (const end = Date.now() + START_MS; ; ) {
    if (child.exitCode !== null) throw new Error(`nginx exited:\n${errors()}`);
    // Any answer will do (the instances may not listen yet): nginx listens.
    const listening = await fetch(`${url}/api/health`).then(
      () => true,
      () => false,
    );
    if (listening) break;
    if (Date.now() > end) {
      await stop();
      throw new Error(`nginx did not listen within ${START_MS} ms:\n${errors()}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  const answersOf = (address: string) => {
    const answers: number[] = [];
    for (const line of readFileSync(path.join(dir, 'access.log'), 'utf8').split('\n')) {
      const [addresses = '', statuses = ''] = line.split('|');
      const each = statuses.split(', ');
      addresses.split(', ').forEach((tried, i) => tried === address && answers.push(Number(each[i])));
    }
    return answers;
  };
  return { url, answersOf, errors, stop };
}
