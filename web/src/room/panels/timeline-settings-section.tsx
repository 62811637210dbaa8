import { useStore } from '../../store';
import { setTimelineSettings } from '../actions/room';
import { useRoom } from '../room-context';
import type { TimelineSettings } from '../timeline';
import { CheckField, SelectField } from '../../ui/fields';
import { t } from '../../i18n/index.js';

type Choices<K extends keyof TimelineSettings> = [TimelineSettings[K], string][];

const grouping = (): Choices<'groupingMode'> => [
  ['none', t('settings:timeline.grouping.none')],
  ['day', t('settings:timeline.grouping.day')],
  ['month', t('settings:timeline.grouping.month')],
  ['year', t('settings:timeline.grouping.year')],
];
const dates = (): Choices<'dateDisplayMode'> => [
  ['event', t('settings:timeline.dates.event')],
  ['creation', t('settings:timeline.dates.creation')],
];
/** Samples of the formats, as the timeline writes them (the same in every language). */
const FORMATS: Choices<'dateTimeFormat'> = [
  ['iso', '2026-11-26 14:05'],
  ['dmy', '26/11/2026 14:05'],
  ['mdy', '11/26/2026 2:05 PM'],
];
const slider = (): Choices<'sliderMode'> => [
  ['current', t('settings:timeline.slider.current')],
  ['past', t('settings:timeline.slider.past')],
  ['future', t('settings:timeline.slider.future')],
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
    }, t('settings:timeline.saved'));
  const select = <K extends 'groupingMode' | 'dateDisplayMode' | 'dateTimeFormat' | 'sliderMode'>(
    key: K,
    label: string,
    choices: Choices<K>,
  ) => <SelectField label={label} value={settings[key]} options={choices} onChange={(v) => save({ [key]: v })} />;
  return (
    <section aria-labelledby="timeline-settings">
      <h3 id="timeline-settings">{t('settings:timeline.title')}</h3>
      {select('groupingMode', t('settings:timeline.group'), grouping())}
      <CheckField
        label={t('settings:timeline.markersOnly')}
        checked={settings.showMarkersOnly}
        onChange={(showMarkersOnly) => save({ showMarkersOnly })}
      />
      <CheckField
        label={t('settings:timeline.additionsOnly')}
        checked={settings.showAdditionsOnly}
        onChange={(showAdditionsOnly) => save({ showAdditionsOnly })}
      />
      {select('dateDisplayMode', t('settings:timeline.dateShown'), dates())}
      {select('dateTimeFormat', t('settings:timeline.dateFormat'), FORMATS)}
      {select('sliderMode', t('settings:timeline.sliderStarts'), slider())}
    </section>
  );
}
