import type { Marker } from '../../api/types';
import { embedOf } from '../../ui/media-embed';
import { t } from '../../i18n/index.js';

/**
 * A marker's embedded media at its `mediaSize` (medium when unset): a known provider's player
 * in a sandboxed frame (its own scripts run in its own origin; no top navigation, no access to
 * this page), else a link that opens in a new tab without this page as its opener.
 */
export function MarkerMedia({ marker }: { marker: Marker }) {
  const embed = marker.embeddedMediaUrl ? embedOf(marker.embeddedMediaUrl) : null;
  if (!embed) return null;
  const size = marker.mediaSize ?? 'md';
  if (embed.kind === 'link')
    return (
      <p class="media-link">
        <a href={embed.href} target="_blank" rel="noopener noreferrer">
          {embed.href}
        </a>
      </p>
    );
  return (
    <iframe
      class={`media ${size}`}
      data-testid="marker-media"
      src={embed.src}
      title={
        marker.title == null
          ? t('markers:media.videoOfMarker', { provider: embed.provider })
          : t('markers:media.videoOf', { provider: embed.provider, title: marker.title })
      }
      sandbox="allow-scripts allow-same-origin allow-presentation allow-popups"
      allow="fullscreen; picture-in-picture; encrypted-media"
      referrerpolicy="strict-origin-when-cross-origin"
      loading="lazy"
    />
  );
}
