import { useState } from 'preact/hooks';
import { api, authHeaders, ok } from '../../api/client';
import { importRoomFile } from '../actions/room';
import { useRoom } from '../room-context';

/** The whole room as one GeoPackage (an export job, then its file); an import for editors. */
export function ExportImportSection() {
  const { roomId, canEdit, notify, attempt, model } = useRoom();
  const [status, setStatus] = useState<string | null>(null);
  const exportRoom = async () => {
    setStatus('Exporting…');
    await attempt(async () => {
      const { jobId } = await ok(
        api.POST('/api/rooms/{roomId}/export-jobs', { params: { path: { roomId } }, body: { include_tiffs: true } }),
      );
      for (;;) {
        const job = await ok(
          api.GET('/api/rooms/{roomId}/export-jobs/{jobId}', { params: { path: { roomId, jobId } } }),
        );
        if (job.status === 'complete') break;
        if (job.status === 'error' || job.status === 'expired') throw new Error(job.error ?? 'The export failed');
        setStatus(`Exporting… (${job.status})`);
        await new Promise((resolve) => setTimeout(resolve, 1000));
      }
      const response = await fetch(`/api/rooms/${roomId}/export-jobs/${jobId}/artifact`, { headers: authHeaders() });
      if (!response.ok) throw new Error(`The export could not be downloaded (${response.status})`);
      const link = document.createElement('a');
      link.href = URL.createObjectURL(await response.blob());
      link.download = `${roomId}.gpkg`;
      link.click();
      setTimeout(() => URL.revokeObjectURL(link.href), 10_000);
    });
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
