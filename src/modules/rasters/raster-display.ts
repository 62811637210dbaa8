import type { TSchema } from 'typebox';
import { Value } from 'typebox/value';
import {
  type DisplayProblem,
  displayRuleProblems,
  type RasterDisplay,
  type RasterFacts,
} from '../../geo/raster/display.js';
import { DISPLAY_KEYS, RasterDisplayFields } from './rasters.schemas.js';

/**
 * Every problem of a display object (a PATCH body, an upload's `display`, or the merge of
 * both with the stored one) against the raster: unknown keys and wrong types (by the schema,
 * each key's description ending the sentence), then the rules of geo/raster/display.ts (a
 * band the raster lacks, an unknown colormap, vmin not below vmax, ...). Each problem names
 * its field, so a 400 can say which one; an empty list means valid.
 */
export function displayProblems(display: unknown, raster: RasterFacts): DisplayProblem[] {
  if (typeof display !== 'object' || display === null || Array.isArray(display)) {
    return [{ field: 'display', message: 'display must be a JSON object' }];
  }
  const problems: DisplayProblem[] = [];
  for (const [key, value] of Object.entries(display)) {
    // Own keys only: `toString` or `__proto__` must be unknown keys, not the prototype's.
    const schema: TSchema | undefined = Object.hasOwn(RasterDisplayFields, key)
      ? (RasterDisplayFields as Record<string, TSchema>)[key]
      : undefined;
    if (!schema)
      problems.push({ field: key, message: `unknown display key "${key}" (known: ${DISPLAY_KEYS.join(', ')})` });
    else if (!Value.Check(schema, value))
      problems.push({ field: key, message: `${key} must be ${(schema as { description?: string }).description}` });
  }
  if (problems.length) return problems;
  return displayRuleProblems(display as RasterDisplay, raster);
}
