import { open } from 'node:fs/promises';
import { HEAD_BYTES, type VectorFormat, vectorFormatOf } from '../geo/vector/format.js';

/** The format of the uploaded file at `filePath` (see vectorFormatOf), by its first bytes and its original name. */
export async function detectVectorFormat(filePath: string, originalName: string): Promise<VectorFormat> {
  return vectorFormatOf(await readHead(filePath), originalName);
}

async function readHead(filePath: string): Promise<Buffer> {
  const handle = await open(filePath, 'r');
  try {
    const buffer = Buffer.alloc(HEAD_BYTES);
    const { bytesRead } = await handle.read(buffer, 0, HEAD_BYTES, 0);
    return buffer.subarray(0, bytesRead);
  } finally {
    await handle.close();
  }
}
