import { useState } from 'preact/hooks';
import { exportRoomFile, importRoomFile } from '../actions/room';
import { useRoom } from '../room-context';

/** The whole room as one GeoPackage (an export job, then its file); an import for editors. */
export function ExportImportSection() {
  const { roomId, canEdit, notify, attempt, model } = useRoom();
  const [status, setStatus] = useState<string | null>(null);
  const exportRoom = async () => {
    setStatus('Exporting…');
    const file = await attempt(() => exportRoomFile(model, (jobStatus) => setStatus(`Exporting… (${jobStatus})`)));
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
    setStatus('Importing…');
    const imported = await attempt(() =>
      importRoomFile(model, file, (f) => setStatus(`Sending ${Math.round(f * 100)}%`)),
    );
    setStatus(null);
    if (!imported) return;
    const counts = Object.entries(imported).filter(([, n]) => n > 0);
    notify(`Imported ${counts.map(([k, n]) => `${n} ${k}`).join(', ') || 'nothing'}`);
  };
  return (
    <section aria-labelledby="export">
      <h3 id="export">Export and import</h3>
      <button type="button" onClick={exportRoom} disabled={!!status}>
        Export as GeoPackage
      </button>
      {canEdit && (
        <label>
          Import a GeoPackage{' '}
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
