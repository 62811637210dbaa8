import { useEffect, useState } from 'preact/hooks';
import type { Layer, RasterLayer } from '../../api/types';
import { useStore } from '../../store';
import { uploadLayerFile, type UploadChoice, type UploadProgress } from '../actions/layer-upload';
import { layerIds, zoomToNewLayer } from '../zoom-to-content';
import { deleteLayer, deleteRaster, updateLayerStyle } from '../actions/layers';
import { useRoom } from '../room-context';
import { AttributeTable } from './attribute-table';
import { RasterDisplayForm } from './raster-display-form';
import { LayerSource, RemoteLayerForm } from './remote-layer-form';
import { LayerStyleForm } from './layer-style-form';
import { nextLayerColor, orderedLayers, reordered } from '../../map/layer-style';
import { attributesOf, CHUNKED_FILE_MAX_BYTES, fieldLimits, megabytes } from '../../ui/limits';
import { confirmInPage } from '../../ui/confirm-dialog';
import { CheckField, ColourField, NumberField, OpacityField } from '../../ui/fields';
import { formatNumber, t } from '../../i18n/index.js';

const STROKE_WEIGHT = attributesOf(
  fieldLimits('PATCH /api/rooms/{roomId}/layers/{layerId}', 'style').fields?.strokeWeight,
);

/** The room's vector layers and rasters: show or hide, opacity and style; upload a new file. */
export function LayersPanel() {
  const { model, canEdit, table } = useRoom();
  const { layers, rasters } = useStore(model)!;
  // The table is the panel's: leaving the Layers tab closes it.
  useEffect(() => () => table.set(null), [table]);
  return (
    <div>
      <h2>{t('layers:panel.title')}</h2>
      {canEdit && <UploadForm />}
      {canEdit && <RemoteLayerForm />}
      {layers.length === 0 && rasters.length === 0 && <p class="muted">{t('layers:panel.empty')}</p>}
      <ul class="layers" data-testid="layer-list">
        {orderedLayers(layers).map((layer, index) => (
          <VectorLayerItem key={layer.id} layer={layer} index={index} />
        ))}
        {rasters.map((raster) => (
          <RasterItem key={raster.id} raster={raster} />
        ))}
      </ul>
    </div>
  );
}

/** A file the person chose, and what they chose to make of it. */
interface Sent {
  file: File;
  as: UploadChoice['as'];
}

function UploadForm() {
  const room = useRoom();
  const { model, attempt, notify } = room;
  const { layers } = useStore(model)!;
  const [progress, setProgress] = useState<UploadProgress | null>(null);
  const [chosen, setColor] = useState<string | null>(null);
  // New layers get a colour no layer of the room has yet, unless one is chosen.
  const color = chosen ?? `#${nextLayerColor(layers.map((l) => l.style.color))}`;
  // A file whose CRS the service could not tell: the page asks for its EPSG code and sends it again.
  const [crsAsked, setCrsAsked] = useState<Sent | null>(null);
  // "Upload a layer" makes a layer even of points; "Add points as markers" makes markers.
  const upload = async ({ file, as }: Sent, sourceCrs?: string) => {
    const known = layerIds(model.get());
    const choice = { as, sourceCrs, ...(as === 'layer' && { color: color.slice(1) }) };
    const outcome = await attempt(() => uploadLayerFile(model, file, choice, setProgress));
    setProgress(null);
    if (outcome && 'crsUnknown' in outcome) setCrsAsked({ file, as });
    else if (outcome) {
      setCrsAsked(null);
      if (as === 'markers') return notify(t('layers:upload.markersAdded', { name: file.name }));
      setColor(null);
      notify(t('layers:upload.onTheMap', { name: file.name }));
      zoomToNewLayer(room, known);
    }
  };
  return (
    <details class="upload">
      <summary>{t('layers:upload.title')}</summary>
      <p class="muted">{t('layers:upload.formats', { size: megabytes(CHUNKED_FILE_MAX_BYTES) })}</p>
      <ColourField value={color} onInput={setColor} />
      <label>
        {t('layers:upload.file')}
        <input
          type="file"
          name="layer-file"
          accept=".geojson,.json,.zip,.gpkg,.csv,.kml,.kmz,.gpx,.fgb,.tif,.tiff"
          disabled={!!progress}
          onChange={(e) => e.currentTarget.files?.[0] && upload({ file: e.currentTarget.files[0], as: 'layer' })}
        />
      </label>
      <label>
        {t('layers:upload.asMarkers')}
        <input
          type="file"
          name="markers-file"
          accept=".geojson,.json,.zip,.gpkg,.csv,.kml,.kmz,.gpx,.fgb"
          aria-describedby="markers-file-hint"
          disabled={!!progress}
          onChange={(e) => e.currentTarget.files?.[0] && upload({ file: e.currentTarget.files[0], as: 'markers' })}
        />
      </label>
      <p class="muted" id="markers-file-hint">
        {t('layers:upload.asMarkersHint')}
      </p>
      {crsAsked && (
        <form
          class="crs-ask"
          aria-label={t('layers:upload.crs')}
          onSubmit={(e) => {
            e.preventDefault();
            const code = new FormData(e.currentTarget).get('sourceCrs');
            void upload(crsAsked, String(code ?? ''));
          }}
        >
          <p role="alert">{t('layers:upload.crsUnknown', { name: crsAsked.file.name })}</p>
          <label>
            {t('layers:upload.epsgOf', { name: crsAsked.file.name })}
            <input name="sourceCrs" required placeholder="2056" inputMode="numeric" disabled={!!progress} />
          </label>
          <button type="submit" disabled={!!progress}>
            {t('layers:upload.withCrs')}
          </button>
        </form>
      )}
      {progress && (
        <div role="status">
          <progress
            value={progress.fraction}
            max={1}
            aria-label={progress.phase === 'sending' ? t('layers:upload.sending') : t('layers:upload.processing')}
          />
          <span>{progressWords(progress)}</span>
        </div>
      )}
    </details>
  );
}

/** An upload's progress in words: the phase, its percent and, while processing, the service's own words. */
function progressWords({ phase, fraction, message }: UploadProgress): string {
  const percent = formatNumber(Math.round(fraction * 100));
  if (phase === 'sending') return t('layers:upload.sendingPercent', { percent });
  return message
    ? t('layers:upload.processingPercentMessage', { percent, message })
    : t('layers:upload.processingPercent', { percent });
}

/** A layer's count of features with their geometry's kind, in one message per kind (for the grammar of each language). */
function featureCount({ featureCount: count, geometryType }: Layer): string {
  switch (geometryType) {
    case 'Point':
      return t('layers:panel.pointFeatures', { count });
    case 'LineString':
      return t('layers:panel.lineFeatures', { count });
    case 'Polygon':
      return t('layers:panel.polygonFeatures', { count });
    case 'Mixed':
      return t('layers:panel.mixedFeatures', { count });
    case null:
      return t('layers:panel.features', { count });
    default:
      return t('layers:panel.otherFeatures', { count, geometry: geometryType });
  }
}

function useHidden(id: string): [boolean, () => void] {
  const { hidden } = useRoom();
  const set = useStore(hidden);
  return [
    set.has(id),
    () => {
      const next = new Set(set);
      if (next.has(id)) next.delete(id);
      else next.add(id);
      hidden.set(next);
    },
  ];
}

const DRAG_TYPE = 'application/x-maproom-layer';
/** The layer being dragged in this page (a drop's data may be unreadable to some browsers). */
let dragged: string | null = null;

function VectorLayerItem({ layer, index }: { layer: Layer; index: number }) {
  const { model, canEdit, isOwner, attempt, map, selection, table } = useRoom();
  const [isHidden, toggle] = useHidden(layer.id);
  const openTable = useStore(table);
  const tableOpen = openTable?.layerId === layer.id;
  const [dropping, setDropping] = useState(false);
  const [styleOpen, setStyleOpen] = useState(false);
  const shownMap = useStore(map);
  const change = (style: Partial<Layer['style']>) => attempt(() => updateLayerStyle(model, layer.id, style));
  const remove = async () => {
    if (await confirmInPage(t('layers:panel.confirmDeleteLayer', { name: layer.name })))
      await attempt(() => deleteLayer(model, layer.id));
  };
  // Dropped on this item: the dragged layer takes its place; each layer whose place changed is saved (shared, in history).
  const drop = (event: DragEvent) => {
    event.preventDefault();
    setDropping(false);
    const moved = event.dataTransfer?.getData(DRAG_TYPE) || dragged;
    dragged = null;
    if (!moved || moved === layer.id) return;
    const moves = reordered(orderedLayers(model.get()!.layers), moved, index);
    void attempt(async () => {
      for (const move of moves) await updateLayerStyle(model, move.id, { order: move.order });
    });
  };
  return (
    <li
      class={`layer${dropping ? ' drop-target' : ''}`}
      data-testid="layer"
      draggable={canEdit}
      onDragStart={(e) => {
        dragged = layer.id;
        e.dataTransfer?.setData(DRAG_TYPE, layer.id);
      }}
      onDragOver={(e) => {
        if (!canEdit) return;
        e.preventDefault();
        setDropping(true);
      }}
      onDragLeave={() => setDropping(false)}
      onDrop={drop}
    >
      <label class="check">
        <input
          type="checkbox"
          checked={!isHidden && layer.style.visible}
          onChange={() => (layer.style.visible ? toggle() : change({ visible: true }))}
        />{' '}
        {layer.name}
      </label>
      <span class="muted">{featureCount(layer)}</span>
      <LayerSource layer={layer} />
      <div class="row">
        {layer.bbox && <ZoomTo bbox={layer.bbox} />}
        <button type="button" class="link" onClick={() => selection.set({ kind: 'layer', id: layer.id })}>
          {t('layers:panel.comments')}
        </button>
        <button type="button" class="link" onClick={() => table.set(tableOpen ? null : { layerId: layer.id, q: '' })}>
          {t('layers:panel.table')}
        </button>
      </div>
      {tableOpen && (
        <AttributeTable
          layer={layer}
          q={openTable.q}
          onFilter={(q) => table.set({ layerId: layer.id, q })}
          onClose={() => table.set(null)}
        />
      )}
      {canEdit && (
        <details onToggle={(e) => setStyleOpen(e.currentTarget.open)}>
          <summary>{t('layers:panel.style')}</summary>
          <ColourField value={`#${layer.style.color}`} onChange={(color) => change({ color: color.slice(1) })} />
          <ColourField
            label={t('layers:panel.fill')}
            value={`#${layer.style.fillColor ?? layer.style.color}`}
            onChange={(fill) => change({ fillColor: fill.slice(1) })}
          />
          {styleOpen && <LayerStyleForm layer={layer} map={shownMap} change={change} />}
          <OpacityField value={layer.style.opacity} onChange={(opacity) => change({ opacity })} />
          <OpacityField
            label={t('layers:panel.fillOpacity')}
            value={layer.style.fillOpacity}
            onChange={(fillOpacity) => change({ fillOpacity })}
          />
          <NumberField
            label={t('layers:panel.lineWidth')}
            {...STROKE_WEIGHT}
            value={layer.style.strokeWeight}
            onChange={(strokeWeight) => change({ strokeWeight })}
          />
          <CheckField
            label={t('layers:panel.shownToEveryone')}
            checked={layer.style.visible}
            onChange={(visible) => change({ visible })}
          />
          {isOwner && (
            <button type="button" class="danger" onClick={remove}>
              {t('layers:panel.deleteLayer')}
            </button>
          )}
        </details>
      )}
    </li>
  );
}

function RasterItem({ raster }: { raster: RasterLayer }) {
  const { canEdit, model, isOwner, attempt } = useRoom();
  const [isHidden, toggle] = useHidden(raster.id);
  const remove = async () => {
    if (await confirmInPage(t('layers:panel.confirmDeleteRaster', { name: raster.name })))
      await attempt(() => deleteRaster(model, raster.id));
  };
  return (
    <li class="layer" data-testid="raster">
      <label class="check">
        <input type="checkbox" checked={!isHidden} onChange={toggle} /> {raster.name}
      </label>
      <span class="muted">
        {t('layers:panel.rasterSize', {
          count: raster.bands,
          width: raster.width,
          height: raster.height,
          dataType: raster.dataType,
        })}
      </span>
      {raster.bbox && <ZoomTo bbox={raster.bbox} />}
      {canEdit && (
        <details>
          <summary>{t('layers:panel.display')}</summary>
          <RasterDisplayForm raster={raster} />
          {isOwner && (
            <button type="button" class="danger" onClick={remove}>
              {t('layers:panel.deleteRaster')}
            </button>
          )}
        </details>
      )}
    </li>
  );
}

/** Fits the map to a layer's extent. */
function ZoomTo({ bbox }: { bbox: number[] }) {
  const { map } = useRoom();
  return (
    <button
      type="button"
      class="link"
      onClick={() => map.get()?.fitBounds(bbox as [number, number, number, number], { padding: 40 })}
    >
      {t('layers:panel.zoomTo')}
    </button>
  );
}
