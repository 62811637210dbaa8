import { readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import type { Command } from 'commander';
import type { paths } from '../../../web/src/api/schema.js';
import { type Api, ApiError, CliError } from '../client.js';
import { normalUrl } from '../credentials.js';
import { contextOf } from '../context.js';
import { followExportJob, followJob } from '../jobs.js';
import { bytesText } from '../output.js';

type Manifest =
  paths['/api/rooms/{roomId}/clone-jobs']['post']['requestBody']['content']['application/json']['manifest'];
type Imported = paths['/api/rooms/{roomId}/import']['post']['responses'][200]['content']['application/json'];

const CREATE_HELP = 'create the room first when it does not exist (a session)';

async function createRoom(api: Api, roomId: string) {
  await api.ok(api.client.POST('/api/rooms/{roomId}', { params: { path: { roomId } }, body: {} }));
}

/** A manifest from a URL (with `--source-token`, or this command's credential on the same service), a file, or `-` (standard input). */
async function readManifest(api: Api, source: string, sourceToken?: string): Promise<Manifest> {
  if (!/^https?:\/\//.test(source)) return JSON.parse(readFileSync(source === '-' ? 0 : source, 'utf8')) as Manifest;
  const sameService = normalUrl(new URL(source).origin) === normalUrl(new URL(api.credentials.url).origin);
  const token = sourceToken ?? (sameService ? api.credentials.token : undefined);
  const response = await fetch(source, { headers: token ? { Authorization: `Bearer ${token}` } : {} });
  const body = (await response.json().catch(() => ({}))) as { error?: string; message?: string };
  if (!response.ok)
    throw new ApiError(response.status, body.error ?? 'error', `The manifest: ${body.message ?? response.statusText}`);
  return body as Manifest;
}

export function exchangeCommands(program: Command): void {
  program
    .command('export')
    .description('export a whole room as one GeoPackage (through an export job)')
    .argument('<roomId>', 'the room')
    .option('-o, --output <file>', 'the GeoPackage to write (default: <roomId>.gpkg)')
    .option('--include-tiffs', "add the rasters' original GeoTIFFs")
    .option('--include-tiles', 'add each raster as a tile pyramid')
    .action(
      async (roomId: string, options: { output?: string; includeTiffs?: boolean; includeTiles?: boolean }, command) => {
        const { api, out } = contextOf(command);
        const file = options.output ?? `${roomId}.gpkg`;
        const body = { include_tiffs: options.includeTiffs === true, include_tiles: options.includeTiles === true };
        const path = { roomId };
        const { jobId } = await api.ok(api.client.POST('/api/rooms/{roomId}/export-jobs', { params: { path }, body }));
        await followExportJob(api, out, roomId, jobId);
        const progress = out.progress('Downloading');
        const bytes = await api
          .download(`/api/rooms/${roomId}/export-jobs/${jobId}/artifact`, file, (got, total) =>
            progress.update(got, total || got, '', true),
          )
          .finally(() => progress.stop());
        out.result({ file, bytes, jobId }, () => out.line(`Wrote ${file} (${bytesText(bytes)})`));
      },
    );

  program
    .command('import')
    .description('import a GeoPackage into a room: a Maproom export is restored, any other gives a layer per table')
    .argument('<roomId>', 'the room')
    .argument('<file>', 'a GeoPackage (.gpkg), at most 2 GiB')
    .option('--create', CREATE_HELP)
    .action(async (roomId: string, file: string, options: { create?: boolean }, command: Command) => {
      const { api, out } = contextOf(command);
      if (options.create) await createRoom(api, roomId);
      const size = statSync(file).size;
      const progress = out.progress(`Uploading ${path.basename(file)}`);
      const { body } = await api
        .postForm<Imported>(
          `/api/rooms/${encodeURIComponent(roomId)}/import`,
          {},
          { field: 'file', path: file, name: path.basename(file) },
          (sent) => progress.update(Math.min(sent, size), size, '', true),
        )
        .finally(() => progress.stop());
      out.result(body, () => {
        const counts = Object.entries(body.imported).filter(([, n]) => n > 0);
        out.line(`Imported into ${roomId}: ${counts.map(([what, n]) => `${n} ${what}`).join(', ') || 'nothing'}`);
        for (const skipped of body.skipped ?? []) out.line(`Skipped: ${Object.values(skipped).join(': ')}`);
      });
    });

  program
    .command('clone')
    .description('copy another room into a room from its export manifest (the service copies the data)')
    .argument(
      '<manifest>',
      'the manifest: its URL (…/api/rooms/<source>/export-manifest), a file, or - for standard input',
    )
    .argument('<roomId>', 'the room to copy into')
    .option(
      '--source-token <token>',
      "the credential for the manifest URL (default: this command's own, on the same service)",
    )
    .option('--create', CREATE_HELP)
    .action(async (source: string, roomId: string, options: { sourceToken?: string; create?: boolean }, command) => {
      const { api, out } = contextOf(command);
      let manifest: Manifest;
      try {
        manifest = await readManifest(api, source, options.sourceToken);
      } catch (error) {
        if (error instanceof SyntaxError) throw new CliError(`${source} is not a manifest: ${error.message}`);
        throw error;
      }
      if (options.create) await createRoom(api, roomId);
      const { jobId } = await api.ok(
        api.client.POST('/api/rooms/{roomId}/clone-jobs', { params: { path: { roomId } }, body: { manifest } }),
      );
      const job = await followJob(api, out, jobId, 'layers');
      const result = {
        jobId,
        sourceRoomId: manifest.sourceRoomId,
        layersCloned: job.layersCloned,
        imported: job.imported,
      };
      out.result(result, () =>
        out.line(`Cloned ${manifest.sourceRoomId} into ${roomId} (${job.layersCloned ?? 0} layers)`),
      );
    });
}
