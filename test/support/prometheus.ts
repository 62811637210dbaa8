import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';

/**
 * A real Prometheus (Debian's `prometheus`) on a free loopback port, scraping the given
 * targets' `/metrics` every second with a bearer token and evaluating `ruleFiles` every
 * second, with its data in a temporary folder.
 */
export interface Prometheus {
  url: string;
  /** An instant query's result: each series' labels and value. */
  query(promql: string): Promise<{ labels: Record<string, string>; value: number }[]>;
  /** The alerting rules it loaded: each rule's name and health. */
  rules(): Promise<{ name: string; health: string }[]>;
  stop(): Promise<void>;
}

/** A guard against hangs while it starts (not a timing assertion). */
const START_MS = 30_000;

/** A loopback port no one listens on now. */
export async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

export async function startPrometheus(targets: string[], token: string, ruleFiles: string[] = []): Promise<Prometheus> {
  const dir = mkdtempSync(path.join(tmpdir(), 'maproom-prometheus-'));
  writeFileSync(path.join(dir, 'token'), token);
  writeFileSync(
    path.join(dir, 'prometheus.yml'),
    JSON.stringify({
      global: { scrape_interval: '1s', scrape_timeout: '1s', evaluation_interval: '1s' },
      rule_files: ruleFiles,
      scrape_configs: [
        {
          job_name: 'maproom',
          authorization: { type: 'Bearer', credentials_file: path.join(dir, 'token') },
          static_configs: [{ targets }],
        },
      ],
    }),
  );
  const port = await freePort();
  const child: ChildProcess = spawn(
    '/usr/bin/prometheus',
    [
      `--config.file=${path.join(dir, 'prometheus.yml')}`,
      `--storage.tsdb.path=${path.join(dir, 'data')}`,
      `--web.listen-address=127.0.0.1:${port}`,
    ],
    { stdio: ['ignore', 'pipe', 'pipe'] },
  );
  let output = '';
  child.stdout!.on('data', (chunk: Buffer) => (output += chunk));
  child.stderr!.on('data', (chunk: Buffer) => (output += chunk));
  const url = `http://127.0.0.1:${port}`;
  const stop = async () => {
    if (child.exitCode === null && child.signalCode === null) {
      child.kill('SIGTERM');
      await new Promise((resolve) => child.once('exit', resolve));
    }
    rmSync(dir, { recursive: true, force: true });
  };
  for (const end = Date.now() + START_MS; ; ) {
    if (child.exitCode !== null) throw new Error(`Prometheus exited:\n${output}`);
    const ready = await fetch(`${url}/-/ready`).then(
      (response) => response.ok,
      () => false,
    );
    if (ready) break;
    if (Date.now() > end) {
      await stop();
      throw new Error(`Prometheus was not ready within ${START_MS} ms:\n${output}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return {
    url,
    async query(promql) {
      const response = await fetch(`${url}/api/v1/query?query=${encodeURIComponent(promql)}`);
      const body = (await response.json()) as {
        status: string;
        error?: string;
        data: { result: { metric: Record<string, string>; value: [number, string] }[] };
      };
      if (body.status !== 'success') throw new Error(`${promql}: ${body.error}`);
      return body.data.result.map((r) => ({ labels: r.metric, value: Number(r.value[1]) }));
    },
    async rules() {
      const response = await fetch(`${url}/api/v1/rules`);
      const body = (await response.json()) as { data: { groups: { rules: { name: string; health: string }[] }[] } };
      return body.data.groups.flatMap((group) => group.rules.map(({ name, health }) => ({ name, health })));
    },
    stop,
  };
}
