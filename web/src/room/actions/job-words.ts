import { formatNumber, t } from '../../i18n/index.js';

/**
 * A layer's ingest progress in the page's language. The service words its progress for scripts
 * and its log, in English (src/modules/layers/ingest-words.ts, raster-ingest.ts); the page reads
 * those few shapes back and says them from its catalogs. Words it does not know are shown as
 * they came (test/web/job-words.test.ts fails when the service's words change).
 */
export function progressInWords(message: string): string {
  const inTable = /^(.+): (.+)$/.exec(message);
  const words = stepWords(inTable ? inTable[2]! : message);
  if (!words) return message;
  return inTable ? t('actions:progress.inTable', { table: inTable[1], words }) : words;
}

function stepWords(step: string): string | undefined {
  const features = /^(read|stored) ([\d,]+) of ([\d,]+) features?$/.exec(step);
  if (features) {
    const [done, of] = [features[2]!, features[3]!].map((n) => Number(n.replace(/,/g, '')));
    const values = { count: of, done: formatNumber(done!), of: formatNumber(of!) };
    return features[1] === 'read' ? t('actions:progress.read', values) : t('actions:progress.stored', values);
  }
  switch (step) {
    case 'building the spatial index':
      return t('actions:progress.index');
    case 'Making the raster tileable':
      return t('actions:progress.tileable');
    case 'Publishing the layer':
      return t('actions:progress.publishing');
    case 'Resuming after a restart':
      return t('actions:progress.resuming');
    default:
      return undefined;
  }
}
