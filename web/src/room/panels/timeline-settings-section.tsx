import { useStore } from '../../store';
import { setTimelineSettings } from '../actions/room';
import { useRoom } from '../room-context';
import type { TimelineSettings } from '../timeline';

type Choices<K extends keyof TimelineSettings> = [TimelineSettings[K], string][];

const GROUPING: Choices<'groupingMode'> = [
  ['none', 'Not grouped'],
  ['day', 'By day'],
  ['month', 'By month'],
  ['year', 'By year'],
];
const DATES: Choices<'dateDisplayMode'> = [
  ['event', "The marker's event date"],
  ['creation', 'When the change was made'],
];
const FORMATS: Choices<'dateTimeFormat'> = [
  ['iso', '2026-11-26 14:05'],
  ['dmy', '26/11/2026 14:05'],
  ['mdy', '11/26/2026 2:05 PM'],
];
const SLIDER: Choices<'sliderMode'> = [
  ['current', 'Now'],
  ['past', 'Past (the map as it was)'],
  ['future', 'Future (events ahead)'],
];

/** The room's timeline settings (owner): how the timeline groups, filters and dates changes, and where its slider starts. */
export function TimelineSettingsSection() {
  const { model, attempt, timeView } = useRoom();
  const settings = useStore(model)!.room.timelineSettings;
  const save = (change: Partial<TimelineSettings>) =>
    attempt(async () => {
      await setTimelineSettings(model, change);
      if (change.sliderMode === 'current') timeView.set({ mode: 'current' });
      else if (change.sliderMode === 'past') timeView.set({ mode: 'past', at: null, content: null });
      else if (change.sliderMode === 'future') timeView.set({ mode: 'future', until: null });
    }, 'Timeline settings saved');
  const select = <K extends 'groupingMode' | 'dateDisplayMode' | 'dateTimeFormat' | 'sliderMode'>(
    key: K,
    label: string,
    choices: Choices<K>,
  ) => (
    <label>
      {label}
      <select value={settings[key]} onChange={(e) => save({ [key]: e.currentTarget.value })}>
        {choices.map(([value, text]) => (
          <option key={value} value={value}>
            {text}
          </option>
        ))}
      </select>
    </label>
  );
  return (
    <section aria-labelledby="timeline-settings">
      <h3 id="timeline-settings">Timeline</h3>
      {select('groupingMode', 'Group changes', GROUPING)}
      <label class="check">
        <input
          type="checkbox"
          checked={settings.showMarkersOnly}
          onChange={(e) => save({ showMarkersOnly: e.currentTarget.checked })}
        />
        Markers only
      </label>
      <label class="check">
        <input
          type="checkbox"
          checked={settings.showAdditionsOnly}
          onChange={(e) => save({ showAdditionsOnly: e.currentTarget.checked })}
        />
        Additions only
      </label>
      {select('dateDisplayMode', 'Date shown', DATES)}
      {select('dateTimeFormat', 'Date format', FORMATS)}
      {select('sliderMode', 'Time slider starts at', SLIDER)}
    </section>
  );
}
