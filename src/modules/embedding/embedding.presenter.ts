import type { RoomRow } from '../../db/tables.js';
import type { EmbedKeyRow } from './embedding.repository.js';

/** The layers a key row names (null: every layer). */
export const keyLayers = (row: Pick<EmbedKeyRow, 'layers'>): string[] | null =>
  row.layers === null ? null : (JSON.parse(row.layers) as string[]);

/** An embed key as listed: never its secret, which only its creation answer shows. */
export const presentEmbedKey = (row: EmbedKeyRow) => ({
  id: row.id,
  name: row.name,
  expiresAt: row.expires_at,
  layers: keyLayers(row),
  createdAt: row.created_at,
  lastUsedAt: row.last_used_at,
});

/** Text for HTML, in element content and in double-quoted attributes alike. */
export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

/** What a page of public content is called in previews: a public room's name; a deck of a private room says only that it is one. */
export function previewTitle(room: RoomRow, page: 'room' | 'deck'): string {
  const name = room.is_public === 1 ? room.name?.trim() || 'A map on Maproom' : null;
  if (page === 'room') return name ?? 'A map on Maproom';
  return name ? `${name}: presentation` : 'A presentation on Maproom';
}

function previewDescription(room: RoomRow, page: 'room' | 'deck'): string {
  const described = room.is_public === 1 ? room.description?.trim() : undefined;
  if (described) return described;
  return page === 'room' ? 'A shared map on Maproom' : 'A presentation of a shared map on Maproom';
}

/** The addresses of a page of public content under `base` (this service's origin). */
export const pageUrl = (base: string, page: 'room' | 'deck', roomId: string) =>
  `${base}/${page === 'room' ? 'r' : 'p'}/${roomId}`;
export const embedUrl = (base: string, page: 'room' | 'deck', roomId: string) =>
  `${base}/e/${roomId}${page === 'deck' ? '/deck' : ''}`;

/** The link-preview tags of a public page (Open Graph, and where its oEmbed answer is), every value escaped. */
export function previewTags(room: RoomRow, page: 'room' | 'deck', base: string): string {
  const url = pageUrl(base, page, room.id);
  const oembed = `${base}/api/oembed?url=${encodeURIComponent(url)}`;
  const meta = (property: string, content: string) => `<meta property="${property}" content="${escapeHtml(content)}">`;
  return [
    meta('og:title', previewTitle(room, page)),
    meta('og:description', previewDescription(room, page)),
    meta('og:type', 'website'),
    meta('og:url', url),
    `<link rel="alternate" type="application/json+oembed" href="${escapeHtml(oembed)}" title="${escapeHtml(previewTitle(room, page))}">`,
  ].join('');
}

/** The `<iframe>` an oEmbed consumer puts in its page. */
export function iframeOf(src: string, title: string, width: number, height: number): string {
  return `<iframe src="${escapeHtml(src)}" width="${width}" height="${height}" title="${escapeHtml(title)}" style="border:0" loading="lazy" allowfullscreen></iframe>`;
}
