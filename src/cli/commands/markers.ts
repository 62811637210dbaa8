import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { type Command, Option } from 'commander';
import { contextOf } from '../context.js';
import { followJob } from '../jobs.js';
import { csvToGeoJson, markersCsv, markersGeoJson } from '../marker-files.js';
import { printableJson } from '../output.js';

type Format = 'geojson' | 'csv';

export function markerCommands(program: Command): void {
  const markers = program.command('markers').description("import and export a room's markers");

  markers
    .command('import')
    .description('import points as markers, all at once (a job): a GeoJSON FeatureCollection or a CSV')
    .argument('<roomId>', 'the room')
    .argument('<file>', 'a .geojson/.json FeatureCollection of points, or a .csv with latitude and longitude columns')
    .addHelpText(
      'after',
      '\nProperties (GeoJSON) or columns (CSV) kept: title, description, tags, eventDate (epoch ms or\n' +
        'ISO 8601), markerIconId, markerIconSize, imageKey, thumbnailKey. In a CSV, tags are a JSON\n' +
        'array or separated by ";". `markers export --format csv` writes such a file.',
    )
    .action(async (roomId: string, file: string, _options: object, command: Command) => {
      const { api, out } = contextOf(command);
      const text = readFileSync(file, 'utf8');
      const isCsv = path.extname(file).toLowerCase() === '.csv';
      const geojson = isCsv ? JSON.stringify(csvToGeoJson(text, file)) : text;
      const name = isCsv ? `${path.basename(file, path.extname(file))}.geojson` : path.basename(file);
      const { body } = await api.postForm<{ jobId: string }>(
        `/api/rooms/${encodeURIComponent(roomId)}/bulk-import`,
        {},
        { field: 'file', name, blob: new Blob([geojson], { type: 'application/geo+json' }) },
      );
      const job = await followJob(api, out, body.jobId, 'markers');
      const created = Number(job.markersCreated ?? 0);
      out.result({ jobId: body.jobId, markersCreated: created }, () => out.line(`Imported ${created} markers`));
    });

  markers
    .command('export')
    .description("write a room's markers as GeoJSON or CSV, to standard output or a file")
    .argument('<roomId>', 'the room')
    .addOption(
      new Option('--format <format>', 'geojson or csv (default: by the -o file name, else geojson)').choices([
        'geojson',
        'csv',
      ]),
    )
    .option('-o, --output <file>', 'write to this file instead of standard output')
    .action(async (roomId: string, options: { format?: Format; output?: string }, command: Command) => {
      const { api, out } = contextOf(command);
      const { markers: list } = await api.ok(
        api.client.GET('/api/rooms/{roomId}/markers', { params: { path: { roomId } } }),
      );
      const format = options.format ?? (options.output?.toLowerCase().endsWith('.csv') ? 'csv' : 'geojson');
      const text = format === 'csv' ? markersCsv(list) : `${printableJson(markersGeoJson(list), 2)}\n`;
      if (!options.output) return void process.stdout.write(text);
      writeFileSync(options.output, text);
      out.result({ file: options.output, format, markers: list.length }, () =>
        out.line(`Wrote ${list.length} markers to ${options.output}`),
      );
    });
}
