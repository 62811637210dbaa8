import { type Command, InvalidArgumentError, Option } from 'commander';
import { type Api, CliError } from '../client.js';
import { contextOf } from '../context.js';
import { type Uploaded, uploadLayerFile } from '../layer-upload.js';

/** A JSON object given on the command line, passed on as its text. */
const jsonObject = (text: string) => {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw new InvalidArgumentError('must be a JSON object, e.g. \'{"color":"d03030"}\'');
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value))
    throw new InvalidArgumentError('must be a JSON object');
  return text;
};

/** A room's vector layers and rasters, as one list. */
async function roomLayers(api: Api, roomId: string) {
  const [{ layers }, { rasterLayers }] = await Promise.all([
    api.ok(api.client.GET('/api/layers/{roomName}', { params: { path: { roomName: roomId } } })),
    api.ok(api.client.GET('/api/rooms/{roomId}/raster-layers', { params: { path: { roomId } } })),
  ]);
  return [
    ...layers.map((l) => ({ id: l.id, kind: 'vector', name: l.name, features: l.featureCount as number | null })),
    ...rasterLayers.map((r) => ({ id: r.id, kind: 'raster', name: r.name, features: null })),
  ];
}

interface UploadOptions {
  name?: string;
  description?: string;
  style?: string;
  display?: string;
  as?: 'auto' | 'layer' | 'markers';
}

export function layerCommands(program: Command): void {
  program
    .command('upload')
    .description(
      'upload layer files: GeoJSON, zipped shapefile, GeoPackage, point CSV or GeoTIFF (chunked above 50 MB)',
    )
    .argument('<roomId>', 'the room')
    .argument('<files...>', 'one or more files; each becomes its layers (a file of points markers, unless --as layer)')
    .option('--name <name>', 'the layer name (one file only; default: the file name)')
    .option('--description <text>', "the layer's description")
    .option('--style <json>', 'vector style, e.g. \'{"color":"d03030","opacity":0.8}\'', jsonObject)
    .option('--display <json>', 'raster display, e.g. \'{"colormap":"terrain","vmin":400,"vmax":2500}\'', jsonObject)
    .addOption(
      new Option(
        '--as <what>',
        'what a vector file becomes: auto (default: markers when every feature is a point), layer, or markers',
      ).choices(['auto', 'layer', 'markers']),
    )
    .addHelpText(
      'after',
      '\nA chunked upload that was interrupted resumes when the same command runs again: only the\n' +
        'chunks the service has not acknowledged are sent.',
    )
    .action(async (roomId: string, files: string[], options: UploadOptions, command: Command) => {
      if (options.name && files.length > 1)
        command.error('error: --name names one file; upload the files one by one', { exitCode: 2 });
      const { api, out } = contextOf(command);
      const fields = {
        layerName: options.name,
        description: options.description,
        style: options.style,
        display: options.display,
        as: options.as,
      };
      const done: Uploaded[] = [];
      const failed: { file: string; error: string }[] = [];
      for (const file of files) {
        try {
          done.push(await uploadLayerFile(api, out, roomId, file, fields));
        } catch (error) {
          if (!(error instanceof Error) || files.length === 1) throw error;
          failed.push({ file, error: error.message });
          out.note(`${file}: ${error.message}`);
        }
      }
      const all = done.some((d) => d.layerIds.length) ? await roomLayers(api, roomId) : [];
      const uploaded = done.map((d) => ({ ...d, layers: all.filter((l) => d.layerIds.includes(l.id)) }));
      out.result({ uploaded, failed }, () => {
        for (const u of uploaded) {
          if (u.markersCreated !== undefined) out.line(`${u.file}: ${u.markersCreated} markers created`);
          for (const l of u.layers) out.line(`${u.file}: ${l.kind} layer ${l.id} "${l.name}"`);
        }
      });
      if (failed.length) throw new CliError(`${failed.length} of ${files.length} files failed`);
    });

  program
    .command('layers')
    .description("list a room's vector layers and rasters")
    .argument('<roomId>', 'the room')
    .action(async (roomId: string, _options: object, command: Command) => {
      const { api, out } = contextOf(command);
      const layers = await roomLayers(api, roomId);
      out.result(layers, () =>
        out.table(layers, [
          ['ID', (l) => l.id],
          ['KIND', (l) => l.kind],
          ['NAME', (l) => l.name],
          ['FEATURES', (l) => l.features],
        ]),
      );
    });
}
