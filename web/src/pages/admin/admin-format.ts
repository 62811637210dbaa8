import { formatDateTime, formatNumber, t } from '../../i18n/index.js';

/** Bytes for a person: `0 B`, `12.3 kB`, `4.5 MB`, `1.2 GB` (powers of 1000). */
export function bytesText(bytes: number): string {
  if (bytes < 1000) return t('admin:bytes.b', { value: formatNumber(bytes) });
  const units = [
    (value: string) => t('admin:bytes.kb', { value }),
    (value: string) => t('admin:bytes.mb', { value }),
    (value: string) => t('admin:bytes.gb', { value }),
    (value: string) => t('admin:bytes.tb', { value }),
  ];
  let value = bytes / 1000;
  let unit = 0;
  while (value >= 1000 && unit < units.length - 1) {
    value /= 1000;
    unit++;
  }
  const digits = value < 10 ? 1 : 0;
  return units[unit]!(
    formatNumber(value, { minimumFractionDigits: digits, maximumFractionDigits: digits, useGrouping: false }),
  );
}

/** A time (epoch ms) for a person, in their language; `never` for none. */
export const timeText = (ms: number | null) => (ms === null ? t('admin:never') : formatDateTime(ms));

/** A use against a limit: `3 of 10`, or just `3` when there is no limit (0). */
export const ofLimit = (use: string | number, limit: string | number, none: boolean) =>
  none ? `${use}` : t('admin:ofLimit', { use, limit });
