import type { AccessChanges } from '../../auth/access-source.js';
import { generateEmbedKey } from '../../auth/room-tokens.js';
import type { RoomRow } from '../../db/tables.js';
import { embeddingNotPublic, invalidField, notFound, oembedFormatNotImplemented } from '../../errors.js';
import { newId } from '../../ids.js';
import type { CreateEmbedKeyInput, OEmbedAnswer, OEmbedInput } from './embedding.schemas.js';
import { embedUrl, iframeOf, keyLayers, presentEmbedKey, previewTags, previewTitle } from './embedding.presenter.js';
import type { EmbeddingRepository } from './embedding.repository.js';

/** A unit: `expiresInDays` counts days. */
const DAY_MS = 24 * 3600 * 1000;
/** The oEmbed frame's size when the consumer names no maximum: a number of the API's documented answers. */
export const OEMBED_WIDTH = 800;
export const OEMBED_HEIGHT = 600;
/** Any site: the only list that may hold `*`. */
const ANY_SITE = '*';
/** A host as `URL` writes it: a name (IDNs in punycode), an IPv4 address, or an IPv6 one in brackets. */
const HOST = /^(?:[a-z0-9-]+(?:\.[a-z0-9-]+)*\.?|\[[0-9a-f:.]+\])$/;

/** What the embedding needs of other domains: the rooms, and which layer ids (vector or raster) a room has. */
export interface EmbeddingParts {
  rooms: { find(id: string): Promise<RoomRow | undefined> };
  layers: { existing(roomId: string, ids: string[]): Promise<Set<string>> };
}

/** Public content: a public room, or a room whose deck is published. Only that may be framed by any site. */
export const isPublicContent = (room: RoomRow) => room.is_public === 1 || room.presentation_is_public === 1;

/** `x` as an origin (`scheme://host[:port]`), or a refusal naming the field. */
function originOf(x: string, field: string): string {
  const problem = 'must be an origin: http:// or https://, a host and an optional port, nothing else (no path)';
  let url: URL;
  try {
    url = new URL(x);
  } catch {
    throw invalidField(field, problem);
  }
  const pathless = url.pathname === '/' && !/^[a-z]+:\/\/[^/]*\/./i.test(x.trim()) && !/[?#]/.test(x);
  if (
    (url.protocol !== 'https:' && url.protocol !== 'http:') ||
    url.username !== '' ||
    url.password !== '' ||
    !pathless ||
    !HOST.test(url.hostname)
  ) {
    throw invalidField(field, problem);
  }
  return url.origin;
}

export class EmbeddingService {
  constructor(
    private readonly embedding: EmbeddingRepository,
    private readonly parts: EmbeddingParts,
    private readonly access: AccessChanges,
  ) {}

  /** The room's origins: as set, or the default (any site for public content, none otherwise). */
  async origins(room: RoomRow): Promise<{ origins: string[] }> {
    const stored = await this.embedding.origins(room.id);
    if (stored !== null) return { origins: JSON.parse(stored) as string[] };
    return { origins: isPublicContent(room) ? [ANY_SITE] : [] };
  }

  async setOrigins(room: RoomRow, given: string[]): Promise<{ origins: string[] }> {
    let origins: string[];
    if (given.includes(ANY_SITE)) {
      if (given.length !== 1)
        throw invalidField(
          'body.origins',
          'must be exactly ["*"] to let any site frame the room, or a list of origins',
        );
      if (!isPublicContent(room)) throw embeddingNotPublic();
      origins = [ANY_SITE];
    } else {
      origins = [...new Set(given.map((x, i) => originOf(x, `body.origins[${i}]`)))];
    }
    await this.embedding.setOrigins(room.id, JSON.stringify(origins));
    return { origins };
  }

  /**
   * The CSP `frame-ancestors` of the room's `/e/` pages: `*`, or the origins and `'self'` (the
   * service's own pages may always frame it: the share dialog previews the embed); an unknown
   * room answers as a private one. `*` holds only while the content is public: a room made
   * private whose origins were `["*"]` is framed by no other site until they are set again.
   */
  async frameAncestors(roomId: string): Promise<string> {
    const room = await this.parts.rooms.find(roomId);
    if (!room) return "'self'";
    const { origins } = await this.origins(room);
    if (origins[0] === ANY_SITE) return isPublicContent(room) ? '*' : "'self'";
    return [...origins, "'self'"].join(' ');
  }

  /** The link-preview tags of `/r/:roomId` (a public room) or `/p/:roomId` (a published deck); '' for anything else. */
  async preview(page: 'room' | 'deck', roomId: string, base: string): Promise<string> {
    const room = await this.publicPage(page, roomId);
    return room ? previewTags(room, page, base) : '';
  }

  /** The room when its page is public: a public room's `/r/`, a published deck's `/p/`. */
  private async publicPage(page: 'room' | 'deck', roomId: string): Promise<RoomRow | undefined> {
    const room = await this.parts.rooms.find(roomId);
    if (!room) return undefined;
    return (page === 'room' ? room.is_public : room.presentation_is_public) === 1 ? room : undefined;
  }

  /** oEmbed (https://oembed.com) for a public room's or published deck's address on this service. */
  async oembed(input: OEmbedInput, base: string): Promise<OEmbedAnswer> {
    if (input.format !== undefined && input.format !== 'json') throw oembedFormatNotImplemented();
    let url: URL;
    try {
      url = new URL(input.url);
    } catch {
      throw notFound('Embeddable page');
    }
    const match = /^\/([rp])\/([A-Za-z0-9_-]{10})\/?$/.exec(url.pathname);
    if (url.origin !== new URL(base).origin || !match) throw notFound('Embeddable page');
    const page = match[1] === 'r' ? 'room' : 'deck';
    const room = await this.publicPage(page, match[2]!);
    if (!room) throw notFound('Embeddable page');
    const width = Math.min(OEMBED_WIDTH, input.maxwidth ?? OEMBED_WIDTH);
    const height = Math.min(OEMBED_HEIGHT, input.maxheight ?? OEMBED_HEIGHT);
    const title = previewTitle(room, page);
    return {
      version: '1.0',
      type: 'rich',
      title,
      provider_name: 'Maproom',
      provider_url: `${base}/`,
      html: iframeOf(embedUrl(base, page, room.id), title, width, height),
      width,
      height,
    };
  }

  /** Issues a key; the secret is returned this once and only its hash is kept. */
  async createKey(room: RoomRow, ownerId: string, input: CreateEmbedKeyInput) {
    const layers = input.layers ? [...new Set(input.layers)] : null;
    if (layers) {
      const known = await this.parts.layers.existing(room.id, layers);
      const unknown = layers.filter((id) => !known.has(id));
      if (unknown.length > 0)
        throw invalidField('body.layers', `names no vector or raster layer of this room: ${unknown.join(', ')}`);
    }
    const { secret, hash } = generateEmbedKey();
    const now = Date.now();
    const row = {
      id: newId('embedkey'),
      room_id: room.id,
      name: input.name.trim(),
      key_hash: hash,
      layers: layers ? JSON.stringify(layers) : null,
      created_by: ownerId,
      created_at: now,
      expires_at: now + input.expiresInDays * DAY_MS,
      last_used_at: null,
    };
    await this.embedding.insertKey(row);
    return { id: row.id, name: row.name, key: secret, expiresAt: row.expires_at, layers: keyLayers(row) };
  }

  async listKeys(room: RoomRow) {
    return { keys: (await this.embedding.listKeys(room.id)).map(presentEmbedKey) };
  }

  /** Revokes at once: the access cache forgets every key and token, and live sockets check theirs again. */
  async revokeKey(room: RoomRow, keyId: string): Promise<void> {
    if (!(await this.embedding.deleteKey(room.id, keyId))) throw notFound('Embed key');
    this.access.forgetTokens();
  }

  /** Notes a use of the key (the authenticator calls this at most once a minute per key). */
  async recordUse(keyId: string, at: number): Promise<void> {
    await this.embedding.touchKey(keyId, at);
  }
}
