// Types of scripts/web-api-limits.mjs, for test/web-api-types.test.ts.
import type { OpenApiDocument } from './web-api-types.d.mts';

/** web/src/api/limits.ts as the document gives it. */
export function limitsOf(document: OpenApiDocument): string;
