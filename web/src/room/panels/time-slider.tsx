import { useEffect, useRef, useState } from 'preact/hooks';
import { useStore } from '../../store';
import { useRoom } from '../room-context';
import { showMoment } from '../time-bar';
import { formatDateTime } from '../timeline';
import type { TimeView } from '../time-view';
import { RangeInput } from '../../ui/fields';
import { t } from '../../i18n/index.js';

/** The past slider's step: a second. */
const STEP = 1000;

const MODES = [
  ['past', () => t('draw:timeSlider.past')],
  ['current', () => t('draw:timeSlider.now')],
  ['future', () => t('draw:timeSlider.future')],
] as const;

/**
 * The time slider: past (the map as it was at the slider's moment, from the room's creation to
 * now), now, or future (the markers whose event date is still ahead, up to the slider's date).
 */
export function TimeSlider() {
  const room = useRoom();
  const { model, timeView } = room;
  const state = useStore(model)!;
  const view = useStore(timeView);
  const format = state.room.timelineSettings.dateTimeFormat;
  const choose = (mode: TimeView['mode']) => {
    if (mode === 'past') void showMoment(room, null);
    else timeView.set(mode === 'future' ? { mode, until: null } : { mode });
  };
  return (
    <fieldset class="time-slider">
      <legend>{t('draw:timeSlider.legend')}</legend>
      <div class="segmented" role="radiogroup" aria-label={t('draw:timeSlider.modes')}>
        {MODES.map(([mode, label]) => (
          <label key={mode} class="check">
            <input type="radio" name="slider-mode" checked={view.mode === mode} onChange={() => choose(mode)} />
            {label()}
          </label>
        ))}
      </div>
      {view.mode === 'past' && <PastSlider from={state.room.createdAt} format={format} />}
      {view.mode === 'future' && <FutureSlider format={format} until={view.until} />}
      {view.mode === 'current' && <p class="muted">{t('draw:timeSlider.showsNow')}</p>}
    </fieldset>
  );
}

/** From the room's creation to now; at its end the map shows the room now (and it can be edited). */
function PastSlider({ from, format }: { from: number; format: 'dmy' | 'mdy' | 'iso' }) {
  const room = useRoom();
  const view = useStore(room.timeView);
  const [now] = useState(() => Date.now());
  const at = view.mode === 'past' ? view.at : null;
  const [value, setValue] = useState(at ?? now);
  useEffect(() => setValue(at ?? now), [at]);
  const timer = useRef<ReturnType<typeof setTimeout>>(undefined);
  // The slider's steps count from its start: its last one may fall short of now.
  const isNow = (moment: number) => moment + STEP > now;
  const go = (moment: number, delay: number) => {
    setValue(moment);
    clearTimeout(timer.current);
    timer.current = setTimeout(() => void showMoment(room, isNow(moment) ? null : moment), delay);
  };
  return (
    <>
      <RangeInput
        min={from}
        max={now}
        step={STEP}
        value={value}
        aria-label={t('draw:timeSlider.moment')}
        aria-valuetext={isNow(value) ? t('draw:timeSlider.nowValue') : formatDateTime(value, format)}
        onInput={(moment) => go(moment, 250)}
        onChange={(moment) => go(moment, 0)}
      />
      <p class="muted">{isNow(value) ? t('draw:timeSlider.nowHint') : formatDateTime(value, format)}</p>
    </>
  );
}

/** From now to the last event date ahead: the map shows the markers whose event date lies between. */
function FutureSlider({ format, until }: { format: 'dmy' | 'mdy' | 'iso'; until: number | null }) {
  const { model, timeView } = useRoom();
  const { markers } = useStore(model)!;
  const [now] = useState(() => Date.now());
  const dates = [...markers.values()].flatMap((m) => (m.eventDate != null && m.eventDate > now ? [m.eventDate] : []));
  if (dates.length === 0) return <p class="muted">{t('draw:timeSlider.noneAhead')}</p>;
  const last = Math.max(...dates);
  const value = until ?? last;
  return (
    <>
      <RangeInput
        min={now}
        max={last}
        step={60_000}
        value={value}
        aria-label={t('draw:timeSlider.until')}
        aria-valuetext={formatDateTime(value, format)}
        onInput={(moment) => timeView.set({ mode: 'future', until: moment })}
      />
      <p class="muted">
        {t('draw:timeSlider.upcoming', {
          count: dates.length,
          shown: dates.filter((d) => d <= value).length,
          date: formatDateTime(value, format),
        })}
      </p>
    </>
  );
}
