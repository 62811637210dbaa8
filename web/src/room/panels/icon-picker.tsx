import { useState } from 'preact/hooks';
import { useStore } from '../../store';
import { registerIcon } from '../actions/room';
import { useRoom } from '../room-context';
import { TextField } from '../../ui/fields';
import { t } from '../../i18n/index.js';

/** Choose one of the room's icons, or register a new one (SVG or PNG; the service sanitises SVG). */
export function IconPicker({ iconId, onChange }: { iconId: string | null; onChange: (id: string | null) => void }) {
  const { model, attempt } = useRoom();
  const { icons } = useStore(model)!;
  const [name, setName] = useState('');
  const register = async (file: File) => {
    const iconId = await attempt(() => registerIcon(model, file, name.trim() || file.name.replace(/\.\w+$/, '')));
    if (iconId) onChange(iconId);
  };
  return (
    <fieldset>
      <legend>{t('markers:icon.legend')}</legend>
      <select
        aria-label={t('markers:icon.label')}
        value={iconId ?? ''}
        onChange={(e) => onChange(e.currentTarget.value || null)}
      >
        <option value="">{t('markers:icon.none')}</option>
        {icons.map((icon) => (
          <option key={icon.iconId} value={icon.iconId}>
            {icon.name}
          </option>
        ))}
      </select>
      <details>
        <summary>{t('markers:icon.register')}</summary>
        <TextField label={t('markers:icon.name')} value={name} onInput={setName} />
        <label>
          {t('markers:icon.file')}{' '}
          <input
            type="file"
            accept=".svg,.png,image/svg+xml,image/png"
            onChange={(e) => e.currentTarget.files?.[0] && register(e.currentTarget.files[0])}
          />
        </label>
      </details>
    </fieldset>
  );
}
