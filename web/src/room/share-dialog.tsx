import { useState } from 'preact/hooks';
import { useModal } from '../ui/modal';
import { t } from '../i18n/index.js';
import { useStore } from '../store';
import { useRoom } from './room-context';
import { ShareEmbed } from './share-embed';
import { ShareKeys } from './share-keys';
import { ShareSites } from './share-sites';

/**
 * The room's Share dialog: its link, the code that embeds it in another site's page with a live
 * preview, and (for the owner) the sites that may show it and the embed keys of a private room.
 */
export function ShareDialog({ onClose }: { onClose: () => void }) {
  const { roomId, model, isOwner } = useRoom();
  const state = useStore(model);
  const { dialog, close } = useModal(onClose);
  // A key made here is put in the code at once: its secret is shown only this once.
  const [key, setKey] = useState<string | null>(null);
  const isPublic = Boolean(state?.room.isPublic);
  const link = `${location.origin}/r/${roomId}`;
  return (
    <dialog
      ref={dialog}
      class="share-dialog"
      aria-labelledby="share-title"
      data-testid="share-dialog"
      onCancel={(event) => {
        event.preventDefault();
        close();
      }}
    >
      <h2 id="share-title">{t('share:title')}</h2>
      <section aria-labelledby="share-link">
        <h3 id="share-link">{t('share:link.title')}</h3>
        <p class="muted">{isPublic ? t('share:link.public') : t('share:link.private')}</p>
        <CopyField label={t('share:link.label')} value={link} />
      </section>
      {(isPublic || isOwner) && <ShareEmbed embedKey={key} />}
      {isOwner && <ShareSites isPublic={isPublic} />}
      {isOwner && !isPublic && <ShareKeys onCreated={setKey} />}
      <p>
        <button type="button" onClick={close}>
          {t('common:close')}
        </button>
      </p>
    </dialog>
  );
}

/** A read-only text to copy (a link, a piece of code), with its Copy button. */
export function CopyField({ label, value, rows }: { label: string; value: string; rows?: number }) {
  const [copied, setCopied] = useState<'no' | 'yes' | 'failed'>('no');
  const copy = () =>
    navigator.clipboard.writeText(value).then(
      () => setCopied('yes'),
      () => setCopied('failed'),
    );
  return (
    <div class="copy-field">
      {rows ? (
        <label>
          {label}
          <textarea readOnly rows={rows} value={value} onFocus={(e) => e.currentTarget.select()} />
        </label>
      ) : (
        <label>
          {label}
          <input readOnly value={value} onFocus={(e) => e.currentTarget.select()} />
        </label>
      )}
      <button type="button" onClick={copy}>
        {t('share:copy')}
      </button>
      <span role="status" class="muted">
        {copied === 'yes' ? t('share:copied') : copied === 'failed' ? t('share:copyFailed') : ''}
      </span>
    </div>
  );
}
