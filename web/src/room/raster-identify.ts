import { type LngLat, type Map as MapLibreMap, Popup } from 'maplibre-gl';
import type { RasterLayer } from '../api/types';
import { readRasterValues } from './actions/features';
import type { RoomContextValue } from './room-context';
import { t } from '../i18n/index.js';

/** The rasters shown on this page whose extent holds a point. */
function rastersAt(rasters: RasterLayer[], hidden: Set<string>, at: LngLat): RasterLayer[] {
  return rasters.filter(
    (r) =>
      !hidden.has(r.id) &&
      r.bbox &&
      at.lng >= r.bbox[0]! &&
      at.lat >= r.bbox[1]! &&
      at.lng <= r.bbox[2]! &&
      at.lat <= r.bbox[3]!,
  );
}

/** A band's value as shown: nodata, or the number with at most 6 significant digits. */
const valueText = (value: number | null) =>
  value === null ? t('room:rasterValues.noData') : String(Number(value.toPrecision(6)));

/**
 * A click on the map that hit no marker, drawing or feature: the band values of every shown
 * raster under it (the service's point query), in a popup at the click. Texts only (no HTML).
 */
export async function identifyRasters(map: MapLibreMap, room: RoomContextValue, at: LngLat): Promise<void> {
  const rasters = rastersAt(room.model.get()!.rasters, room.hidden.get(), at);
  if (rasters.length === 0) return;
  const read = await room.attempt(() =>
    Promise.all(rasters.map((r) => readRasterValues(room.model, r.id, at.lng, at.lat))),
  );
  if (!read) return;
  const box = document.createElement('div');
  box.className = 'raster-values';
  box.setAttribute('aria-label', t('room:rasterValues.label'));
  const where = document.createElement('p');
  where.className = 'muted';
  where.textContent = `${at.lat.toFixed(5)}, ${at.lng.toFixed(5)}`;
  box.append(where);
  rasters.forEach((raster, index) => {
    const title = document.createElement('strong');
    title.textContent = raster.name;
    const list = document.createElement('dl');
    read[index]!.forEach((value, band) => {
      const term = document.createElement('dt');
      term.textContent = t('room:rasterValues.band', { band: band + 1 });
      const detail = document.createElement('dd');
      detail.textContent = valueText(value);
      list.append(term, detail);
    });
    box.append(title, list);
  });
  new Popup({ closeButton: true, maxWidth: '16rem' }).setLngLat(at).setDOMContent(box).addTo(map);
}
