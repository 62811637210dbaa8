import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import type { InjectOptions } from 'fastify';
import { multipart, type FormPart } from '../helpers.js';

/**
 * What http/fuzz-routes.test.ts builds its requests from: the routes of the OpenAPI document, a
 * seeded generator of hostile path segments, query strings, JSON bodies and multipart
 * bodies, and hostile files (truncated, empty, random bytes under a geodata name, a small
 * zip of a large file).
 */

/** mulberry32: a small deterministic PRNG, so that a failure replays from its seed. */
export function prng(seed: number) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let x = a;
    x = Math.imul(x ^ (x >>> 15), x | 1);
    x ^= x + Math.imul(x ^ (x >>> 7), x | 61);
    return ((x ^ (x >>> 14)) >>> 0) / 4294967296;
  };
}

type Schema = Record<string, any>;

/** One operation of the OpenAPI document. */
export interface ApiRoute {
  method: NonNullable<InjectOptions['method']>;
  /** The path as the document spells it, e.g. `/api/rooms/{roomId}`. */
  path: string;
  key: string;
  pathParams: string[];
  query: { name: string; schema: Schema }[];
  /** The JSON body's schema, when the route takes one. */
  body?: Schema;
  /** The route's description says it takes multipart/form-data. */
  multipart: boolean;
}

/** Every operation of an OpenAPI document, `$ref`s resolved against its components. */
export function routesOf(doc: Schema): ApiRoute[] {
  const routes: ApiRoute[] = [];
  const resolve = (schema: Schema | undefined): Schema | undefined => {
    if (!schema || typeof schema !== 'object') return schema;
    if (typeof schema.$ref === 'string') return resolve(doc.components?.schemas?.[schema.$ref.split('/').pop()!]);
    return schema;
  };
  for (const [routePath, operations] of Object.entries<Schema>(doc.paths)) {
    for (const [method, op] of Object.entries<Schema>(operations)) {
      const parameters: Schema[] = op.parameters ?? [];
      const text = `${op.summary ?? ''} ${op.description ?? ''}`;
      routes.push({
        method: method.toUpperCase() as ApiRoute['method'],
        path: routePath,
        key: `${method.toUpperCase()} ${routePath}`,
        pathParams: parameters.filter((p) => p.in === 'path').map((p) => p.name),
        query: parameters.filter((p) => p.in === 'query').map((p) => ({ name: p.name, schema: resolve(p.schema)! })),
        body: resolve(op.requestBody?.content?.['application/json']?.schema),
        multipart: /multipart/i.test(text),
      });
    }
  }
  return routes;
}

/** The file and text parts of each multipart route (their descriptions name them for people). */
export const MULTIPART_PARTS: Record<string, { files: string[]; fields: string[] }> = {
  'POST /api/layers/upload': {
    files: ['file'],
    fields: ['roomName', 'layerName', 'description', 'style', 'display', 'sourceCrs', 'as'],
  },
  'POST /api/layers/upload-chunk': {
    files: ['chunk'],
    fields: ['roomName', 'uploadId', 'chunkIndex', 'totalChunks', 'fileName'],
  },
  'POST /api/rooms/{roomId}/markers/upload-image': { files: ['image', 'thumbnail'], fields: [] },
  'POST /api/rooms/{roomId}/marker-icons': { files: ['icon'], fields: ['name', 'size'] },
  'POST /api/rooms/{roomId}/bulk-import': { files: ['file'], fields: [] },
  'POST /api/rooms/{roomId}/import': { files: ['file'], fields: [] },
};

const HOSTILE_STRINGS = [
  '',
  ' ',
  '..',
  '../..',
  '%2e%2e',
  '..%2F..%2Fetc%2Fpasswd',
  '__proto__',
  'constructor',
  'prototype',
  "' OR 1=1 --",
  '"; DROP TABLE rooms; --',
  '<script>alert(1)</script>',
  'Zürich 🗺️',
  '\u202e\u200b\ufeff',
  '\ud800',
  'NaN',
  'Infinity',
  '-1',
  '1e309',
  '0x10',
  'null',
  'true',
  '[]',
  '{}',
  'mrt_',
  `mrt_${'A'.repeat(43)}`,
  'C:\\Windows\\win.ini',
  '/etc/passwd',
  'a'.repeat(300),
];
/** Numbers as JSON text: `1e309` and `-1e309` are not finite once parsed. */
const HOSTILE_NUMBERS = [
  '0',
  '-0',
  '-1',
  '0.5',
  '1e309',
  '-1e309',
  '1e308',
  '5e-324',
  '9007199254740993',
  '123456789012345678901234567890',
  '2147483648',
  '-2147483649',
];
const PROTO_KEYS = ['__proto__', 'constructor', 'prototype', 'toString', 'hasOwnProperty', 'valueOf'];

const LONE_SURROGATE = /([\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff])/;
/** Percent-encodes text; a lone surrogate becomes its (invalid) UTF-8 bytes, %ED%A0%80. */
const encode = (text: string) =>
  text
    .split(LONE_SURROGATE)
    .map((part, i) => (i % 2 === 1 ? '%ED%A0%80' : encodeURIComponent(part)))
    .join('');

/** What the fuzzer may use as valid ids and names: the objects the test made. */
export type Known = Record<string, string[]>;

export function fuzzer(seed: number, known: Known) {
  const rand = prng(seed);
  const int = (n: number) => Math.floor(rand() * n);
  const pick = <T>(items: readonly T[]): T => items[int(items.length)]!;
  const chance = (p: number) => rand() < p;

  /** A path segment: a known id most of the time, otherwise something hostile (percent-encoded, or raw). */
  function segment(name: string): string {
    const ids = known[name] ?? [];
    if (ids.length > 0 && chance(0.75)) return encode(pick(ids));
    if (chance(0.1)) return pick(['%ZZ', '%E0%A4%A', '%', '%C0%AE%C0%AE', '%FF%FE', '..', '.', '%2e%2e%2f']);
    return encode(
      pick([
        ...HOSTILE_STRINGS.filter((s) => s !== ''),
        'x'.repeat(2000 + int(6000)),
        'é'.repeat(300),
        String.fromCodePoint(0x1f5fa).repeat(50),
        String(int(1e6)),
        '-5',
        '99999999999999999999',
        'a/b',
      ]),
    );
  }

  function url(route: ApiRoute, substitute: (param: string, value: string) => string): string {
    let out = route.path.replace(/\{(\w+)\}/g, (_m, name: string) => substitute(name, segment(name)));
    const pairs: string[] = [];
    for (const q of route.query) {
      if (chance(0.25)) continue;
      pairs.push(`${q.name}=${encode(chance(0.5) ? sampleText(q.schema, q.name) : hostileText())}`);
    }
    if (chance(0.2)) pairs.push(`${pick(PROTO_KEYS)}[polluted]=yes`);
    if (chance(0.1)) pairs.push(...pairs.slice(0, 1)); // a repeated key
    if (chance(0.05)) pairs.push(`q=${'%41'.repeat(3000)}`);
    if (chance(0.05)) pairs.push(pick(['%ZZ=1', '=', '&&&', 'a[b][c][d][e][f]=1']));
    if (pairs.length > 0) out += `?${pairs.join('&')}`;
    return out;
  }

  function hostileText(): string {
    return pick([...HOSTILE_STRINGS, ...HOSTILE_NUMBERS]);
  }

  /** A query value for a schema, as text. */
  function sampleText(schema: Schema, name: string): string {
    const json = sample(schema, name, 0, 0);
    return json.startsWith('"') ? JSON.parse(json) : json;
  }

  /** Any JSON value, as text (so that keys like __proto__ and numbers like 1e309 are sent verbatim). */
  function junk(depth: number): string {
    switch (int(depth > 3 ? 4 : 7)) {
      case 0:
        return pick(['null', 'true', 'false']);
      case 1:
        return pick(HOSTILE_NUMBERS);
      case 2:
        return JSON.stringify(hostileText());
      case 3:
        return JSON.stringify(String.fromCharCode(...Array.from({ length: int(40) }, () => int(0xffff))));
      case 4:
      case 5: {
        const keys = Array.from({ length: int(5) }, () => pick([...PROTO_KEYS, ...HOSTILE_STRINGS]));
        return `{${keys.map((k) => `${JSON.stringify(k)}:${junk(depth + 1)}`).join(',')}}`;
      }
      default:
        return `[${Array.from({ length: int(4) }, () => junk(depth + 1)).join(',')}]`;
    }
  }

  /** A value for a schema as JSON text: mostly what it asks for, now and then a twist (`twist` per level). */
  function sample(schema: Schema | undefined, name: string, depth: number, twist = 0.15): string {
    if (!schema || depth > 6 || chance(twist)) return junk(depth);
    if ('const' in schema) return JSON.stringify(schema.const);
    if (Array.isArray(schema.enum)) return JSON.stringify(pick(schema.enum));
    const alternatives = schema.anyOf ?? schema.oneOf;
    if (Array.isArray(alternatives)) return sample(pick(alternatives), name, depth + 1, twist);
    if (Array.isArray(schema.allOf)) return sample(schema.allOf[0], name, depth + 1, twist);
    const type = Array.isArray(schema.type) ? pick(schema.type) : schema.type;
    switch (type) {
      case 'null':
        return 'null';
      case 'boolean':
        return pick(['true', 'false']);
      case 'integer':
      case 'number': {
        const lo = schema.minimum ?? schema.exclusiveMinimum ?? -1000;
        const hi = schema.maximum ?? schema.exclusiveMaximum ?? 1000;
        if (twist === 0)
          return JSON.stringify(
            type === 'integer' ? Math.ceil(lo + (hi - lo) * rand() * 0.99) : lo + (hi - lo) * rand(),
          );
        // Without a bound, numbers past what a database column holds.
        if (schema.maximum === undefined && chance(0.3)) return pick(['1e20', '-1e20', '9223372036854775808', '1e309']);
        const value = pick([lo, hi, lo - 1, hi + 1, lo + (hi - lo) * rand(), 0]);
        if (chance(0.1)) return pick(HOSTILE_NUMBERS);
        return JSON.stringify(type === 'integer' && chance(0.8) ? Math.round(value) : value);
      }
      case 'string':
        return JSON.stringify(string(schema, name, twist === 0));
      case 'array': {
        const max = Math.min(schema.maxItems ?? 5, 5);
        const count = twist === 0 ? (schema.minItems ?? 0) + int(max + 1 - (schema.minItems ?? 0)) : int(max + 2);
        const items = Array.from({ length: count }, () => sample(schema.items, singular(name), depth + 1, twist));
        return `[${items.join(',')}]`;
      }
      default:
        return object(schema, depth, twist);
    }
  }

  const singular = (name: string) => name.replace(/Ids$/, 'Id').replace(/s$/, '');

  function string(schema: Schema, name: string, valid: boolean): string {
    const ids = known[name];
    if (ids && ids.length > 0 && (valid || chance(0.7))) return pick(ids);
    if (schema.format === 'email' || /email/i.test(name)) return pick(['a@b.co', `fuzz-${int(50)}@example.com`, 'x@']);
    const min = schema.minLength ?? 0;
    const max = Math.min(schema.maxLength ?? 60, 300_000);
    const pattern = typeof schema.pattern === 'string' ? schema.pattern : '';
    if (/a-fA-F|0-9a-f/i.test(pattern) && /\{6\}/.test(pattern))
      return valid ? 'ff8800' : pick(['ff8800', '#00ff00', 'zzzzzz']);
    if (valid) return pick(['Zürich 🗺️', 'a'.repeat(Math.max(min, 8))]).slice(0, Math.max(max, min, 1));
    return pick([
      'a'.repeat(Math.max(min, 1)),
      'b'.repeat(max),
      'c'.repeat(max + 1),
      'Zürich 🗺️',
      hostileText(),
      'x\u0000y',
      'line\nbreak\r\n',
    ]);
  }

  function object(schema: Schema, depth: number, twist: number): string {
    const properties: Record<string, Schema> = schema.properties ?? {};
    const required = new Set<string>(schema.required ?? []);
    const keys = Object.keys(properties).filter((k) => (required.has(k) ? twist === 0 || chance(0.93) : chance(0.5)));
    if (twist > 0 && chance(0.1)) keys.push(pick([...PROTO_KEYS, 'unknownField']));
    return `{${keys.map((k) => `${JSON.stringify(k)}:${sample(properties[k], k, depth + 1, twist)}`).join(',')}}`;
  }

  /** A JSON body for a route: plausible by its schema, or one of the hostile shapes. */
  function jsonBody(schema: Schema | undefined): { payload: string | Buffer; contentType: string } {
    const json = (payload: string | Buffer) => ({ payload, contentType: 'application/json' });
    const r = rand();
    if (r < 0.3) return json(sample(schema, '', 0, 0.1));
    if (r < 0.36) return json(junk(0));
    if (r < 0.39) return json('{"__proto__":{"polluted":"yes"},"constructor":{"prototype":{"polluted":"yes"}}}');
    if (r < 0.41) return json(`${'['.repeat(5000)}${']'.repeat(5000)}`);
    if (r < 0.43) return json(`{"a":${'{"a":'.repeat(3000)}1${'}'.repeat(3000)}}`);
    if (r < 0.45) return json(`[${sample(schema, '', 0)}]`);
    if (r < 0.47) return json(`{"name":${JSON.stringify('n'.repeat(900_000))}}`);
    if (r < 0.49) return json(Buffer.from([...Buffer.from('{"name":"'), 0xff, 0xfe, 0xc0, 0xaf, ...Buffer.from('"}')]));
    if (r < 0.51) return json(pick(['', '{', '{"a":1,}', 'nul', '"\\ud800"', '1e309', '{"a":1e309}', "{'a':1}"]));
    if (r < 0.54) return json(`${sample(schema, '', 0, 0).slice(0, -1)}${',"x":1e309}'}`);
    if (r < 0.58)
      return {
        payload: sample(schema, '', 0),
        contentType: pick(['text/plain', 'application/json; charset=utf-16', 'application/x-www-form-urlencoded']),
      };
    return json(sample(schema, '', 0, 0));
  }

  /** A text part's value for a multipart route. */
  function fieldValue(name: string): string {
    if (chance(0.3)) return hostileText();
    switch (name) {
      case 'roomName':
        return pick(known.roomId ?? ['x']);
      case 'fileName':
        return pick([...(known.fileName ?? []), '../../evil.geojson', 'x'.repeat(300)]);
      case 'uploadId':
        return pick(['fuzz-upload-1', 'fuzz-upload-2', 'short', 'x'.repeat(64), 'bad id!']);
      case 'chunkIndex':
      case 'totalChunks':
        return pick(['0', '1', '2', '-1', '999999', '1.5', '1e309']);
      case 'size':
        return pick(['24', '8', '256', '7', '257', '0']);
      case 'style':
      case 'display':
        return pick(['{"color":"ff0000"}', '{"colormap":"viridis"}', '{', '[]', '{"__proto__":{"x":1}}', 'null']);
      default:
        return pick(['Fuzz', 'Zürich 🗺️', 'x'.repeat(3000), '']);
    }
  }

  /** A multipart body for a route: its parts with hostile files, sometimes a broken body. */
  async function multipartBody(
    route: ApiRoute,
    files: HostileFile[],
  ): Promise<{ payload: Buffer; contentType: string; file: string }> {
    const spec = MULTIPART_PARTS[route.key]!;
    const parts: Record<string, FormPart> = {};
    for (const field of spec.fields)
      if (field === 'roomName' ? chance(0.95) : chance(0.6)) parts[field] = fieldValue(field);
    const file = pick(files);
    for (const name of spec.files) {
      if (name !== spec.files[0] && chance(0.6)) continue;
      parts[chance(0.05) ? 'unexpected' : name] = { data: file.data, filename: file.name, type: file.type };
    }
    const { payload, headers } = await multipart(parts);
    const r = rand();
    if (r < 0.05)
      return {
        payload: payload.subarray(0, int(payload.length)),
        contentType: headers['content-type'],
        file: file.label,
      };
    if (r < 0.08) return { payload, contentType: 'multipart/form-data', file: file.label };
    if (r < 0.1) return { payload, contentType: 'multipart/form-data; boundary=nope', file: file.label };
    return { payload, contentType: headers['content-type'], file: file.label };
  }

  return { rand, int, pick, chance, url, jsonBody, multipartBody };
}

export interface HostileFile {
  label: string;
  name: string;
  type: string;
  data: Buffer;
}

/**
 * Files no upload should turn into a 500: empty, truncated, random bytes under a geodata
 * name, the wrong kind under a name, a non-finite coordinate, a zip of a large file of
 * zeros, a zip whose member climbs out of its folder, and a GeoTIFF declaring a huge size.
 */
export function hostileFiles(
  seed: number,
  dir: string,
  samples: { tif: string; png: Buffer; jpeg: Buffer },
): HostileFile[] {
  const rand = prng(seed ^ 0x9e3779b9);
  const random = (n: number) => Buffer.from(Array.from({ length: n }, () => Math.floor(rand() * 256)));
  const file = (label: string, name: string, data: Buffer | string, type = 'application/octet-stream') => ({
    label,
    name,
    type,
    data: Buffer.isBuffer(data) ? data : Buffer.from(data),
  });
  const geojson = JSON.stringify({
    type: 'FeatureCollection',
    features: [
      { type: 'Feature', properties: { name: 'a' }, geometry: { type: 'Point', coordinates: [7.44, 46.95] } },
      {
        type: 'Feature',
        properties: { title: 'b' },
        geometry: {
          type: 'Polygon',
          coordinates: [
            [
              [7, 46],
              [8, 46],
              [8, 47],
              [7, 46],
            ],
          ],
        },
      },
    ],
  });
  const tif = readFileSync(samples.tif);
  const zips = python(dir);
  const svg = '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 10 10"><circle cx="5" cy="5" r="4"/></svg>';
  return [
    file('empty .geojson', 'empty.geojson', ''),
    file('empty .tif', 'empty.tif', ''),
    file('empty .gpkg', 'empty.gpkg', ''),
    file('empty .png', 'empty.png', '', 'image/png'),
    file('random .tif', 'random.tif', random(4096), 'image/tiff'),
    file('random .zip', 'random.zip', random(4096), 'application/zip'),
    file('random .gpkg', 'random.gpkg', random(8192)),
    file('random .geojson', 'random.geojson', random(2048), 'application/geo+json'),
    file('random .svg', 'random.svg', random(1024), 'image/svg+xml'),
    file('random .jpg', 'random.jpg', random(1024), 'image/jpeg'),
    file('random no name', '', random(512)),
    file('GeoTIFF header on random bytes', 'header.tif', Buffer.concat([tif.subarray(0, 64), random(2048)])),
    file('truncated GeoTIFF', 'cut.tif', tif.subarray(0, Math.floor(tif.length / 2))),
    file('truncated GeoJSON', 'cut.geojson', geojson.slice(0, geojson.length - 20)),
    file('truncated PNG', 'cut.png', samples.png.subarray(0, samples.png.length >> 1), 'image/png'),
    file('truncated JPEG', 'cut.jpg', samples.jpeg.subarray(0, samples.jpeg.length >> 1), 'image/jpeg'),
    file('truncated GeoPackage', 'cut.gpkg', zips.gpkg.subarray(0, zips.gpkg.length >> 1)),
    file('PNG named .geojson', 'image.geojson', samples.png, 'application/geo+json'),
    file('GeoJSON named .tif', 'vector.tif', geojson, 'image/tiff'),
    file('GeoJSON named .png', 'vector.png', geojson, 'image/png'),
    file('SVG named .gpkg', 'icon.gpkg', svg),
    file('GeoJSON with 1e309', 'inf.geojson', geojson.replace('7.44', '1e309')),
    file(
      'GeoJSON with prototype keys',
      'proto.geojson',
      geojson.replace('{"name":"a"}', '{"__proto__":{"x":1},"constructor":"y"}'),
    ),
    file(
      'GeoJSON nested deep',
      'deep.geojson',
      `{"type":"FeatureCollection","features":${'['.repeat(3000)}${']'.repeat(3000)}}`,
    ),
    file('GeoJSON not a collection', 'scalar.geojson', '42'),
    file('CSV without coordinates', 'table.csv', 'a,b\n1,2\n', 'text/csv'),
    file('zip of 60 MB of zeros', 'bomb.zip', zips.bomb, 'application/zip'),
    file('zip climbing out', 'climb.zip', zips.climb, 'application/zip'),
    file('zip of a symlink', 'link.zip', zips.link, 'application/zip'),
    file('GeoTIFF declaring 70000 x 70000 (over RASTER_MAX_PIXELS)', 'huge.tif', zips.huge, 'image/tiff'),
    file('valid GeoJSON', 'ok.geojson', geojson, 'application/geo+json'),
    file('valid GeoTIFF', 'ok.tif', tif, 'image/tiff'),
    file('valid PNG', 'ok.png', samples.png, 'image/png'),
    file('valid SVG', 'ok.svg', svg, 'image/svg+xml'),
    file('valid GeoPackage', 'ok.gpkg', zips.gpkg),
  ];
}

/** The files Python writes: zips (of zeros, with a climbing member, of a symlink), a GeoPackage and a huge-declared GeoTIFF. */
function python(dir: string) {
  const script = `
import os, sys, zipfile, stat
from osgeo import gdal, ogr
d = sys.argv[1]
with zipfile.ZipFile(os.path.join(d, 'bomb.zip'), 'w', zipfile.ZIP_DEFLATED) as z:
    z.writestr('zeros.shp', b'\\0' * (60 * 1024 * 1024))
with zipfile.ZipFile(os.path.join(d, 'climb.zip'), 'w') as z:
    z.writestr('../../../climb.geojson', '{"type":"FeatureCollection","features":[]}')
with zipfile.ZipFile(os.path.join(d, 'link.zip'), 'w') as z:
    info = zipfile.ZipInfo('link.shp')
    info.external_attr = (stat.S_IFLNK | 0o777) << 16
    z.writestr(info, '/etc/passwd')
ds = ogr.GetDriverByName('GPKG').CreateDataSource(os.path.join(d, 'ok.gpkg'))
layer = ds.CreateLayer('roads', geom_type=ogr.wkbLineString)
f = ogr.Feature(layer.GetLayerDefn())
f.SetGeometry(ogr.CreateGeometryFromWkt('LINESTRING (7 46, 8 47)'))
layer.CreateFeature(f)
ds = None
huge = gdal.GetDriverByName('GTiff').Create(os.path.join(d, 'huge.tif'), 70000, 70000, 1, gdal.GDT_Byte,
    ['SPARSE_OK=YES', 'TILED=YES', 'COMPRESS=DEFLATE'])
huge.SetGeoTransform([7, 0.00001, 0, 47, 0, -0.00001])
huge.SetProjection('EPSG:4326')
huge = None
`;
  execFileSync('/usr/bin/python3', ['-c', script, dir]);
  const read = (name: string) => readFileSync(path.join(dir, name));
  return {
    bomb: read('bomb.zip'),
    climb: read('climb.zip'),
    link: read('link.zip'),
    gpkg: read('ok.gpkg'),
    huge: read('huge.tif'),
  };
}
