import { useEffect, useState } from 'preact/hooks';
import type { Layer, RasterLayer } from '../../api/types';
import { useStore } from '../../store';
import { uploadLayerFile, type UploadProgress } from '../actions/layer-upload';
import { layerIds, zoomToNewLayer } from '../zoom-to-content';
import { deleteLayer, deleteRaster, updateLayerStyle } from '../actions/layers';
import { useRoom } from '../room-context';
import { AttributeTable } from './attribute-table';
import { RasterDisplayForm } from './raster-display-form';
import { LayerStyleForm } from './layer-style-form';
import { nextLayerColor, orderedLayers, reordered } from '../../map/layer-style';
import { attributesOf, CHUNKED_FILE_MAX_BYTES, fieldLimits, megabytes } from '../../ui/limits';
import { confirmInPage } from '../../ui/confirm-dialog';
import { CheckField, ColourField, NumberField, OpacityField } from '../../ui/fields';

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
      <h2>Layers</h2>
      {canEdit && <UploadForm />}
      {layers.length === 0 && rasters.length === 0 && <p class="muted">No layers yet.</p>}
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

function UploadForm() {
  const room = useRoom();
  const { model, attempt, notify } = room;
  const { layers } = useStore(model)!;
  const [progress, setProgress] = useState<UploadProgress | null>(null);
  const [chosen, setColor] = useState<string | null>(null);
  // New layers get a colour no layer of the room has yet, unless one is chosen.
  const color = chosen ?? `#${nextLayerColor(layers.map((l) => l.style.color))}`;
  // A file whose CRS the service could not tell: the page asks for its EPSG code and sends it again.
  const [crsAsked, setCrsAsked] = useState<{ file: File; message: string } | null>(null);
  const upload = async (file: File, sourceCrs?: string) => {
    const known = layerIds(model.get());
    const outcome = await attempt(() => uploadLayerFile(model, file, color.slice(1), setProgress, sourceCrs));
    setProgress(null);
    if (outcome && 'crsUnknown' in outcome) setCrsAsked({ file, message: outcome.crsUnknown });
    else if (outcome) {
      setCrsAsked(null);
      setColor(null);
      notify(`${file.name} is on the map`);
      zoomToNewLayer(room, known);
    }
  };
  return (
    <details class="upload">
      <summary>Upload a layer</summary>
      <p class="muted">
        GeoJSON, zipped shapefile, GeoPackage, CSV with coordinates, KML/KMZ, GPX, FlatGeobuf or GeoTIFF; any
        projection; up to {megabytes(CHUNKED_FILE_MAX_BYTES)}.
      </p>
      <ColourField value={color} onInput={setColor} />
      <label>
        File
        <input
          type="file"
          name="layer-file"
          accept=".geojson,.json,.zip,.gpkg,.csv,.kml,.kmz,.gpx,.fgb,.tif,.tiff"
          disabled={!!progress}
          onChange={(e) => e.currentTarget.files?.[0] && upload(e.currentTarget.files[0])}
        />
      </label>
      {crsAsked && (
        <form
          class="crs-ask"
          aria-label="Coordinate reference system"
          onSubmit={(e) => {
            e.preventDefault();
            const code = new FormData(e.currentTarget).get('sourceCrs');
            void upload(crsAsked.file, String(code ?? ''));
          }}
        >
          <p role="alert">{crsAsked.message}</p>
          <label>
            EPSG code of {crsAsked.file.name}
            <input name="sourceCrs" required placeholder="2056" inputMode="numeric" disabled={!!progress} />
          </label>
          <button type="submit" disabled={!!progress}>
            Upload with this CRS
          </button>
        </form>
      )}
      {progress && (
        <div role="status">
          <progress
            value={progress.fraction}
            max={1}
            aria-label={progress.phase === 'sending' ? 'Sending' : 'Processing'}
          />
          <span>
            {progress.phase === 'sending'
              ? `Sending ${Math.round(progress.fraction * 100)}%`
              : `Processing ${Math.round(progress.fraction * 100)}%${progress.message ? `: ${progress.message}` : ''}`}
          </span>
        </div>
      )}
    </details>
  );
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
    if (await confirmInPage(`Delete the layer "${layer.name}"? This cannot be undone.`))
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
      <span class="muted">
        {layer.featureCount} {layer.geometryType ?? ''} features
      </span>
      <div class="row">
        {layer.bbox && <ZoomTo bbox={layer.bbox} />}
        <button type="button" class="link" onClick={() => selection.set({ kind: 'layer', id: layer.id })}>
          Comments
        </button>
        <button type="button" class="link" onClick={() => table.set(tableOpen ? null : { layerId: layer.id, q: '' })}>
          Table
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
          <summary>Style</summary>
          <ColourField value={`#${layer.style.color}`} onChange={(color) => change({ color: color.slice(1) })} />
          <ColourField
            label="Fill"
            value={`#${layer.style.fillColor ?? layer.style.color}`}
            onChange={(fill) => change({ fillColor: fill.slice(1) })}
          />
          {styleOpen && <LayerStyleForm layer={layer} map={shownMap} change={change} />}
          <OpacityField value={layer.style.opacity} onChange={(opacity) => change({ opacity })} />
          <OpacityField
            label="Fill opacity"
            value={layer.style.fillOpacity}
            onChange={(fillOpacity) => change({ fillOpacity })}
          />
          <NumberField
            label="Line width"
            {...STROKE_WEIGHT}
            value={layer.style.strokeWeight}
            onChange={(strokeWeight) => change({ strokeWeight })}
          />
          <CheckField
            label="Shown to everyone"
            checked={layer.style.visible}
            onChange={(visible) => change({ visible })}
          />
          {isOwner && (
            <button type="button" class="danger" onClick={remove}>
              Delete layer
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
    if (await confirmInPage(`Delete the raster "${raster.name}"? This cannot be undone.`))
      await attempt(() => deleteRaster(model, raster.id));
  };
  return (
    <li class="layer" data-testid="raster">
      <label class="check">
        <input type="checkbox" checked={!isHidden} onChange={toggle} /> {raster.name}
      </label>
      <span class="muted">
        {raster.width}×{raster.height}, {raster.bands} band{raster.bands > 1 ? 's' : ''} {raster.dataType}
      </span>
      {raster.bbox && <ZoomTo bbox={raster.bbox} />}
      {canEdit && (
        <details>
          <summary>Display</summary>
          <RasterDisplayForm raster={raster} />
          {isOwner && (
            <button type="button" class="danger" onClick={remove}>
              Delete raster
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
      Zoom to
    </button>
  );
}
