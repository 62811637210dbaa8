import { useState } from 'preact/hooks';
import { useStore } from '../../store';
import { registerIcon } from '../actions/room';
import { useRoom } from '../room-context';
import { TextField } from '../../ui/fields';

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
      <legend>Icon</legend>
      <select aria-label="Icon" value={iconId ?? ''} onChange={(e) => onChange(e.currentTarget.value || null)}>
        <option value="">None (a dot)</option>
        {icons.map((icon) => (
          <option key={icon.iconId} value={icon.iconId}>
            {icon.name}
          </option>
        ))}
      </select>
      <details>
        <summary>Register an icon</summary>
        <TextField label="Name" value={name} onInput={setName} />
        <label>
          File (SVG or PNG){' '}
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
