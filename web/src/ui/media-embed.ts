/**
 * A marker's `embeddedMediaUrl` as the page shows it: a video of a known provider as that
 * provider's player (in a sandboxed frame; the service's Content-Security-Policy lets frames come
 * from these players' origins only, src/http/web-app.ts EMBED_ORIGINS), any other address as a
 * link. Pure, so that it is unit-tested (test/web/error-words.test.ts).
 */
export type Embed = { kind: 'frame'; provider: string; src: string } | { kind: 'link'; href: string };

const YOUTUBE_ID = /^[A-Za-z0-9_-]{11}$/;

/** The player address of a YouTube video (the privacy-enhanced host), or null. */
function youtube(url: URL): string | null {
  const host = url.hostname.replace(/^(www|m)\./, '');
  let id: string | null | undefined = null;
  if (host === 'youtu.be') id = url.pathname.split('/')[1];
  else if (host === 'youtube.com' || host === 'youtube-nocookie.com') {
    const [, first, second] = url.pathname.split('/');
    id =
      first === 'watch' ? url.searchParams.get('v') : ['embed', 'shorts', 'live'].includes(first ?? '') ? second : null;
  }
  return id && YOUTUBE_ID.test(id) ? `https://www.youtube-nocookie.com/embed/${id}` : null;
}

/** The player address of a Vimeo video (with the hash of an unlisted one), or null. */
function vimeo(url: URL): string | null {
  const host = url.hostname.replace(/^www\./, '');
  const parts = url.pathname.split('/').filter(Boolean);
  const [id, hash] =
    host === 'vimeo.com' ? parts : host === 'player.vimeo.com' && parts[0] === 'video' ? parts.slice(1) : [];
  if (!id || !/^\d+$/.test(id)) return null;
  const unlisted = hash && /^[0-9a-f]+$/.test(hash) ? hash : url.searchParams.get('h');
  return `https://player.vimeo.com/video/${id}${unlisted && /^[0-9a-f]+$/.test(unlisted) ? `?h=${unlisted}` : ''}`;
}

const PROVIDERS: [string, (url: URL) => string | null][] = [
  ['YouTube', youtube],
  ['Vimeo', vimeo],
];

/** How to show an address: a known provider's player, else a link (only http and https; null otherwise). */
export function embedOf(address: string): Embed | null {
  let url: URL;
  try {
    url = new URL(address);
  } catch {
    return null;
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') return null;
  for (const [provider, player] of PROVIDERS) {
    const src = player(url);
    if (src) return { kind: 'frame', provider, src };
  }
  return { kind: 'link', href: url.href };
}
