import { spawn, execFileSync, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium, type Browser, type Page } from 'playwright-core';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
/** Where browser tests leave what a person should look at (screenshots). */
export const TEST_OUTPUT = path.join(ROOT, 'test-output');
/** Debian's Chromium (the test script installs it). */
export const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

/** The real service as its own process, on a free loopback port, with a fresh SQLite data directory and no internet base map. */
export interface RunningService {
  url: string;
  /** Its data directory (its SQLite database is `maproom.db` there). */
  dataDir: string;
  /** Everything the service printed (its log holds e-mailed links when no SMTP server is set). */
  output(): string;
  /** Stops the service and starts it again on the same port and data (open pages lose their live channel). */
  restart(): Promise<void>;
  stop(): Promise<void>;
}

/** `env`: settings beside the tests' own (e.g. VERIFICATION_RESEND_SECONDS). */
export async function startService(env: Record<string, string> = {}): Promise<RunningService> {
  if (!existsSync(path.join(ROOT, 'dist/web/index.html')))
    execFileSync('npm', ['run', 'build:web'], { cwd: ROOT, stdio: 'inherit' });
  const dataDir = mkdtempSync(path.join(tmpdir(), 'maproom-browser-'));
  let output = '';
  let running = await spawnService(dataDir, '0', env, (text) => (output += text));
  const url = running.url;
  const stopChild = async () => {
    if (running.child.exitCode !== null) return;
    const exited = new Promise((resolve) => running.child.once('exit', resolve));
    running.child.kill('SIGTERM');
    await exited;
  };
  return {
    url,
    dataDir,
    output: () => output,
    async restart() {
      await stopChild();
      running = await spawnService(dataDir, new URL(url).port, env, (text) => (output += text));
    },
    async stop() {
      await stopChild();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

async function spawnService(
  dataDir: string,
  port: string,
  env: Record<string, string>,
  log: (text: string) => void,
): Promise<{ child: ChildProcess; url: string }> {
  const child = spawn(process.execPath, ['--import', 'tsx', 'src/server.ts'], {
    cwd: ROOT,
    env: {
      ...process.env,
      DATA_DIR: dataDir,
      PORT: port,
      HOST: '127.0.0.1',
      BASEMAPS: 'none',
      PASSWORD_HASH_COST: '12',
      AUTH_RATE_LIMIT_PER_MINUTE: '1000',
      DATABASE_URL: '',
      SMTP_URL: '',
      PUBLIC_URL: '',
      ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let seen = '';
  child.stderr!.on('data', (chunk) => log(String(chunk)));
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`the service did not start:\n${seen}`)), 60_000);
    child.stdout!.on('data', (chunk) => {
      log(String(chunk));
      seen += chunk;
      const match = /Maproom is running at (http:\/\/[^\s]+)/.exec(seen);
      if (match) {
        clearTimeout(timer);
        resolve(match[1]!);
      }
    });
    child.on('exit', (code) => reject(new Error(`the service exited (${code}):\n${seen}`)));
  });
  return { child, url };
}

/**
 * Headless Chromium with software WebGL (MapLibre draws with WebGL 2), in English whatever the
 * machine's locale (the tests read the page's English words; a test of a language sets its own).
 */
export async function launchBrowser(): Promise<Browser> {
  mkdirSync(TEST_OUTPUT, { recursive: true });
  const browser = await chromium.launch({
    executablePath: CHROMIUM,
    args: ['--no-sandbox', '--use-angle=swiftshader', '--enable-unsafe-swiftshader', '--lang=en-US'],
  });
  if (SLOWDOWN > 1) slowDownPages(browser, SLOWDOWN);
  return browser;
}

/** `TEST_BROWSER_SLOWDOWN=4`: every page runs its scripts that many times slower, as on a loaded machine. */
const SLOWDOWN = Number(process.env.TEST_BROWSER_SLOWDOWN ?? 1);

function slowDownPages(browser: Browser, rate: number) {
  const newContext = browser.newContext.bind(browser);
  browser.newContext = async (options) => {
    const context = await newContext(options);
    const newPage = context.newPage.bind(context);
    context.newPage = async () => {
      const page = await newPage();
      await (await context.newCDPSession(page)).send('Emulation.setCPUThrottlingRate', { rate });
      return page;
    };
    return context;
  };
}

/**
 * A room's map opened and done drawing: its markers drawn (`data-opening="drawn"`, the page's
 * opening: web/src/opening.ts), then its layers too (the `maproom:map-idle` User Timing mark,
 * room/map-view.tsx: MapLibre idle once the layers are on the map).
 */
export async function mapSettled(page: Page) {
  await page
    .locator('[data-testid=map][data-opening=drawn]')
    .waitFor({ timeout: 30_000 })
    .catch(async (error: Error) => {
      const stage = await page
        .getByTestId('map')
        .getAttribute('data-opening', { timeout: 1000 })
        .catch(() => null);
      throw new Error(`the map's opening is at ${stage}, not drawn: ${error.message}`);
    });
  await page.waitForFunction(() => performance.getEntriesByName('maproom:map-idle').length > 0, undefined, {
    timeout: 30_000,
  });
}

/**
 * Reads again (`read`: a screenshot's pixels, a text) until `done` holds of the answer, for at
 * most `ms` (a guard against hangs, not a timing assertion); answers the last read.
 */
export async function until<T>(read: () => Promise<T>, done: (value: T) => boolean, ms = 20_000): Promise<T> {
  let value = await read();
  for (const end = Date.now() + ms; !done(value) && Date.now() < end; ) value = await read();
  return value;
}
