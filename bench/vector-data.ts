/**
 * The vector benchmark's input files and its peer (see bench/README.md, "Vector layers").
 * The files are written by GDAL itself (bench/data/make_vector_data.py) once per feature count
 * into a cache folder kept out of git, and reused; the peer is `ogr2ogr -f GPKG -t_srs
 * EPSG:4326` of the same file, timed here.
 */
import { spawn } from 'node:child_process';
import { existsSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { ROOT } from './harness.js';

/** Where generated files are kept between runs (bench/.gitignore lists it). */
export const DATA_CACHE = path.resolve(process.env.BENCH_VECTOR_DATA ?? path.join(ROOT, 'bench', '.data'));

export interface VectorFiles {
  count: number;
  /** buildings.gpkg: one feature table `buildings` in EPSG:2056. */
  gpkg: string;
  /** buildings.shp.zip: the same features as a zipped shapefile. */
  shpZip: string;
}

interface Finished {
  code: number | null;
  stderr: string;
}

/** Runs a command to its end; stderr is kept (its last 64 KB), stdout goes to ours when `show`. */
export function run(command: string, args: string[], show = false): Promise<Finished> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { cwd: ROOT, stdio: ['ignore', show ? 'inherit' : 'ignore', 'pipe'] });
    let stderr = '';
    child.stderr!.setEncoding('utf8');
    child.stderr!.on('data', (chunk: string) => (stderr = (stderr + chunk).slice(-65_536)));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stderr }));
  });
}

/**
 * The GeoPackage and zipped shapefile of `count` building footprints, generated on first use
 * (about 2 minutes for 1,000,000) and reused afterwards. A folder without its `complete.json`
 * (an interrupted run) is written again.
 */
export async function vectorData(count: number): Promise<VectorFiles> {
  const dir = path.join(DATA_CACHE, `buildings-${count}`);
  const files: VectorFiles = {
    count,
    gpkg: path.join(dir, 'buildings.gpkg'),
    shpZip: path.join(dir, 'buildings.shp.zip'),
  };
  const marker = path.join(dir, 'complete.json');
  const cached = existsSync(marker) && existsSync(files.gpkg) && existsSync(files.shpZip);
  if (cached) {
    const sizes = JSON.parse(readFileSync(marker, 'utf8')) as { gpkg: number; shpZip: number };
    if (sizes.gpkg === statSync(files.gpkg).size && sizes.shpZip === statSync(files.shpZip).size) {
      console.log(`   reusing ${dir} (${describe(files)})`);
      return files;
    }
  }
  rmSync(dir, { recursive: true, force: true });
  console.log(`   generating ${count.toLocaleString('en-US')} polygons with GDAL into ${dir}`);
  const started = performance.now();
  const script = path.join(ROOT, 'bench', 'data', 'make_vector_data.py');
  const result = await run('/usr/bin/python3', [script, dir, String(count)], true);
  if (result.code !== 0) throw new Error(`make_vector_data.py failed (${result.code}):\n${result.stderr}`);
  writeFileSync(
    marker,
    `${JSON.stringify({ gpkg: statSync(files.gpkg).size, shpZip: statSync(files.shpZip).size, count })}\n`,
  );
  console.log(`   generated in ${((performance.now() - started) / 1000).toFixed(1)} s (${describe(files)})`);
  return files;
}

const describe = (files: VectorFiles) =>
  `GeoPackage ${(statSync(files.gpkg).size / 2 ** 20).toFixed(0)} MB, zipped shapefile ${(statSync(files.shpZip).size / 2 ** 20).toFixed(0)} MB`;

/**
 * A peer tool run to its end, timed from start to exit, with its maximum resident set size
 * (GNU time's %M) when /usr/bin/time is there; throws with its stderr unless it exits 0.
 */
export async function timedTool(tool: string, args: string[]): Promise<{ seconds: number; maxRssMb: number | null }> {
  const started = performance.now();
  const result = existsSync('/usr/bin/time')
    ? await run('/usr/bin/time', ['-f', 'maxrss_kb=%M', tool, ...args])
    : await run(tool, args);
  const seconds = (performance.now() - started) / 1000;
  if (result.code !== 0) throw new Error(`${tool} ${args.join(' ')} failed (${result.code}):\n${result.stderr}`);
  const kb = /maxrss_kb=(\d+)/.exec(result.stderr)?.[1];
  return { seconds, maxRssMb: kb ? Number(kb) / 1024 : null };
}

export interface PeerRun {
  seconds: number;
  /** ogr2ogr's maximum resident set size (GNU time's %M), when /usr/bin/time is there. */
  maxRssMb: number | null;
  command: string;
}

/**
 * The peer: `ogr2ogr -f GPKG -t_srs EPSG:4326 out.gpkg <input>`, wall time from start to exit.
 * GDAL reads a `.shp.zip` directly. The output is removed afterwards.
 */
export async function ogr2ogrPeer(input: string, outDir: string): Promise<PeerRun> {
  const out = path.join(outDir, `peer-${path.basename(input).replace(/\W+/g, '-')}.gpkg`);
  rmSync(out, { force: true });
  const args = ['-f', 'GPKG', '-t_srs', 'EPSG:4326', out, input];
  const timed = await timedTool('ogr2ogr', args).finally(() => rmSync(out, { force: true }));
  return {
    ...timed,
    command: `ogr2ogr ${args.map((a) => (a === out ? 'out.gpkg' : a === input ? path.basename(input) : a)).join(' ')}`,
  };
}
