import type { Map as MapLibreMap } from 'maplibre-gl';
import { authHeaders } from '../api/client';
import type { Icon } from '../api/types';

/** Loads the room's marker icons (SVG or PNG, sanitised by the service) into the map's images. */
export class IconImages {
  readonly loaded = new Set<string>();
  private requested = new Set<string>();
  constructor(
    private readonly map: MapLibreMap,
    private readonly roomId: string,
    private readonly onLoad: () => void,
  ) {}

  want(icons: Icon[]) {
    for (const icon of icons) {
      if (this.requested.has(icon.iconId)) continue;
      this.requested.add(icon.iconId);
      void this.load(icon).catch(() => undefined);
    }
  }

  private async load(icon: Icon) {
    const response = await fetch(`/api/rooms/${this.roomId}/marker-icons/${icon.iconId}`, { headers: authHeaders() });
    if (!response.ok) return;
    const url = URL.createObjectURL(await response.blob());
    const image = new Image(icon.size, icon.size);
    image.src = url;
    await image.decode();
    const canvas = document.createElement('canvas');
    canvas.width = canvas.height = 64;
    canvas.getContext('2d')!.drawImage(image, 0, 0, 64, 64);
    URL.revokeObjectURL(url);
    const name = `icon-${icon.iconId}`;
    if (!this.map.hasImage(name))
      this.map.addImage(name, canvas.getContext('2d')!.getImageData(0, 0, 64, 64), { pixelRatio: 2 });
    this.loaded.add(icon.iconId);
    this.onLoad();
  }
}
