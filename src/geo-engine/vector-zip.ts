import { stat } from 'node:fs/promises';
import path from 'node:path';
import yauzl, { type Entry, type ZipFile } from 'yauzl';
import { VectorRejected } from '../geo/vector/errors.js';

/**
 * Checks an uploaded zip before GDAL reads anything inside it: first its central directory
 * (the sizes its members declare, their names and types), then the shapefile parts are
 * inflated once, counting bytes, without storing them. The second pass matters: GDAL's
 * /vsizip/ reads a member to the end of its deflate stream whatever size it declares (tried:
 * a member declaring 100 bytes gave GDAL 10 MB), so only verified sizes bound what GDAL sees.
 */
export interface ZipLimits {
  /** The members may declare at most this many times the zip's own size in total. */
  maxRatio: number;
  /** And at most this many bytes in total. */
  maxExpandedBytes: number;
  /** At most this many members. */
  maxEntries: number;
}

/** Members a shapefile is made of; other members (a README, a PDF, a .vrt) are never opened. */
const SHAPEFILE_PARTS = new Set(['.shp', '.shx', '.dbf', '.prj', '.cpg', '.qix', '.sbn', '.sbx', '.xml', '.qmd']);
/** KML documents of a KMZ; its images and other members are never opened. */
const KML_EXTENSION = '.kml';
/** Stored and deflated: the methods /vsizip/ reads. */
const READABLE_METHODS = new Set([0, 8]);

/** A refusal of the zip (400 `invalid_zip`). */
const refuse = (message: string, details?: Record<string, unknown>) =>
  new VectorRejected('invalid_zip', message, details);

/**
 * The names of the `.shp` members of a zip (at least one), after checking that the declared
 * expanded size stays under `maxRatio` times the zip's size and `maxExpandedBytes`, that no
 * shapefile part is encrypted, a symbolic link (or another non-file type), or compressed in a way GDAL cannot read, that each part expands
 * to exactly its declared size, and that names are relative paths. Members that are not
 * shapefile parts, and macOS metadata, are ignored (GDAL never opens them).
 */
export async function shapefilesInZip(zipPath: string, limits: ZipLimits): Promise<string[]> {
  const { shapefiles } = await vectorMembersInZip(zipPath, limits);
  if (shapefiles.length === 0) throw refuse('The zip holds no shapefile (.shp)');
  return shapefiles;
}

/** The zip's members GDAL may read: its `.shp` files and its `.kml` files (a KMZ), each list sorted; checked as above. */
export async function vectorMembersInZip(
  zipPath: string,
  limits: ZipLimits,
): Promise<{ shapefiles: string[]; kml: string[] }> {
  const zipBytes = (await stat(zipPath)).size;
  const cap = Math.min(limits.maxExpandedBytes, limits.maxRatio * zipBytes);
  const zip = await openZip(zipPath);
  try {
    if (zip.entryCount > limits.maxEntries)
      throw refuse(`The zip holds ${zip.entryCount} files; at most ${limits.maxEntries} are accepted`);
    let declared = 0;
    const shapefiles: string[] = [];
    const kml: string[] = [];
    for await (const entry of entriesOf(zip)) {
      declared += entry.uncompressedSize;
      if (declared > cap) {
        throw refuse(
          `The zip would expand to more than ${cap} bytes (${limits.maxRatio} times its size, at most ${limits.maxExpandedBytes})`,
          {
            member: entry.fileName,
          },
        );
      }
      const name = entry.fileName;
      if (name.endsWith('/') || name.startsWith('__MACOSX/') || path.posix.basename(name).startsWith('._')) continue;
      const extension = path.posix.extname(name).toLowerCase();
      if (!SHAPEFILE_PARTS.has(extension) && extension !== KML_EXTENSION) continue;
      if (entry.isEncrypted()) throw refuse(`${name} is encrypted`, { member: name });
      const type = memberType(entry);
      if (type) throw refuse(`${name} in the zip is ${type}, not a file`, { member: name });
      if (!READABLE_METHODS.has(entry.compressionMethod)) {
        throw refuse(`${name} uses zip compression method ${entry.compressionMethod}; use deflate or none`, {
          member: name,
        });
      }
      await verifySize(zip, entry);
      if (extension === '.shp') shapefiles.push(name);
      if (extension === KML_EXTENSION) kml.push(name);
    }
    return { shapefiles: shapefiles.sort(), kml: kml.sort() };
  } finally {
    zip.close();
  }
}

/** The Unix file type a zip member may declare (the high half of its external attributes). */
const S_IFMT = 0o170000;
const S_IFREG = 0o100000;
const S_IFLNK = 0o120000;
const S_IFDIR = 0o040000;

/** What a member is when it declares a Unix type other than a regular file (null for a file, or no Unix type). */
function memberType(entry: Entry): string | null {
  const type = (entry.externalFileAttributes >>> 16) & S_IFMT;
  if (type === 0 || type === S_IFREG) return null;
  if (type === S_IFLNK) return 'a symbolic link';
  if (type === S_IFDIR) return 'a directory';
  return 'a special file (device, pipe or socket)';
}

/**
 * The GDAL path of a zip member: `/vsizip/{<absolute zip path>}/<member>` (the braces let the
 * zip's own name be anything: an upload is stored under a name without `.zip`).
 */
export function vsizipPath(zipPath: string, member: string): string {
  return `/vsizip/{${path.resolve(zipPath)}}/${member}`;
}

/**
 * Inflates one member without keeping it; yauzl's validateEntrySizes fails the stream when
 * the data is longer or shorter than the member declares.
 */
async function verifySize(zip: ZipFile, entry: Entry): Promise<void> {
  const stream = await new Promise<NodeJS.ReadableStream>((resolve, reject) => {
    zip.openReadStream(entry, (error, readable) => (error || !readable ? reject(error) : resolve(readable)));
  }).catch((error: Error) => {
    throw refuse(`${entry.fileName} cannot be read from the zip: ${error.message}`, { member: entry.fileName });
  });
  try {
    for await (const _chunk of stream) {
      // Only counted (by yauzl).
    }
  } catch (error) {
    const why = /too many bytes|too few bytes/.test((error as Error).message)
      ? 'expands to a size other than the one it declares'
      : `is corrupt (${(error as Error).message})`;
    throw refuse(`${entry.fileName} in the zip ${why}`, { member: entry.fileName });
  }
}

function openZip(zipPath: string): Promise<ZipFile> {
  return new Promise((resolve, reject) => {
    yauzl.open(
      zipPath,
      { lazyEntries: true, autoClose: false, decodeStrings: true, validateEntrySizes: true },
      (error, zip) => {
        if (error || !zip) reject(refuse(`The file is not a readable zip: ${error?.message ?? 'unknown error'}`));
        else resolve(zip);
      },
    );
  });
}

/** The central directory's entries, one at a time; a malformed directory or name is a refusal. */
async function* entriesOf(zip: ZipFile): AsyncGenerator<Entry> {
  for (;;) {
    const entry = await new Promise<Entry | null>((resolve, reject) => {
      const onEntry = (value: Entry) => settle(() => resolve(value));
      const onEnd = () => settle(() => resolve(null));
      const onError = (error: Error) => settle(() => reject(refuse(`The zip is malformed: ${error.message}`)));
      const settle = (then: () => void) => {
        zip.off('entry', onEntry).off('end', onEnd).off('error', onError);
        then();
      };
      zip.on('entry', onEntry).on('end', onEnd).on('error', onError);
      zip.readEntry();
    });
    if (!entry) return;
    yield entry;
  }
}
