import { useStore } from '../../store';
import { setTimelineSettings } from '../actions/room';
import { useRoom } from '../room-context';
import type { TimelineSettings } from '../timeline';
import { CheckField, SelectField } from '../../ui/fields';

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
  ) => <SelectField label={label} value={settings[key]} options={choices} onChange={(v) => save({ [key]: v })} />;
  return (
    <section aria-labelledby="timeline-settings">
      <h3 id="timeline-settings">Timeline</h3>
      {select('groupingMode', 'Group changes', GROUPING)}
      <CheckField
        label="Markers only"
        checked={settings.showMarkersOnly}
        onChange={(showMarkersOnly) => save({ showMarkersOnly })}
      />
      <CheckField
        label="Additions only"
        checked={settings.showAdditionsOnly}
        onChange={(showAdditionsOnly) => save({ showAdditionsOnly })}
      />
      {select('dateDisplayMode', 'Date shown', DATES)}
      {select('dateTimeFormat', 'Date format', FORMATS)}
      {select('sliderMode', 'Time slider starts at', SLIDER)}
    </section>
  );
}
