import { useState } from 'preact/hooks';
import { exportRoomFile, importRoomFile } from '../actions/room';
import { useRoom } from '../room-context';
import { formatNumber, t } from '../../i18n/index.js';

/** How many of one kind an import restored, in words (a kind the page does not know: as the service names it). */
function kindCount(kind: string, count: number): string {
  switch (kind) {
    case 'markers':
      return t('layers:exchange.markers', { count });
    case 'drawings':
      return t('layers:exchange.drawings', { count });
    case 'comments':
      return t('layers:exchange.comments', { count });
    case 'replies':
      return t('layers:exchange.replies', { count });
    case 'slides':
      return t('layers:exchange.slides', { count });
    case 'icons':
      return t('layers:exchange.icons', { count });
    case 'images':
      return t('layers:exchange.images', { count });
    case 'layers':
      return t('layers:exchange.layers', { count });
    case 'rasterLayers':
      return t('layers:exchange.rasterLayers', { count });
    default:
      return t('layers:exchange.otherKind', { count, kind });
  }
}

/** The whole room as one GeoPackage (an export job, then its file); an import for editors. */
export function ExportImportSection() {
  const { roomId, canEdit, notify, attempt, model } = useRoom();
  const [status, setStatus] = useState<string | null>(null);
  const exportRoom = async () => {
    setStatus(t('layers:exchange.exporting'));
    const file = await attempt(() =>
      exportRoomFile(model, (jobStatus) => setStatus(t('layers:exchange.exportingStatus', { status: jobStatus }))),
    );
    if (file) {
      const link = document.createElement('a');
      link.href = URL.createObjectURL(file);
      link.download = `${roomId}.gpkg`;
      link.click();
      setTimeout(() => URL.revokeObjectURL(link.href), 10_000);
    }
    setStatus(null);
  };
  const importFile = async (file: File) => {
    setStatus(t('layers:exchange.importing'));
    const imported = await attempt(() =>
      importRoomFile(model, file, (f) =>
        setStatus(t('layers:exchange.sending', { percent: formatNumber(Math.round(f * 100)) })),
      ),
    );
    setStatus(null);
    if (!imported) return;
    const counts = Object.entries(imported).filter(([, n]) => n > 0);
    notify(
      counts.length
        ? t('layers:exchange.imported', {
            list: counts.map(([kind, n]) => kindCount(kind, n)).join(t('layers:exchange.separator')),
          })
        : t('layers:exchange.importedNothing'),
    );
  };
  return (
    <section aria-labelledby="export">
      <h3 id="export">{t('layers:exchange.title')}</h3>
      <button type="button" onClick={exportRoom} disabled={!!status}>
        {t('layers:exchange.export')}
      </button>
      {canEdit && (
        <label>
          {t('layers:exchange.import')}{' '}
          <input
            type="file"
            accept=".gpkg"
            disabled={!!status}
            onChange={(e) => e.currentTarget.files?.[0] && importFile(e.currentTarget.files[0])}
          />
        </label>
      )}
      {status && <p role="status">{status}</p>}
    </section>
  );
}
