// Types of scripts/web-api-types.mjs, for test/web-api-types.test.ts.
import type { buildApp } from '../src/app.js';
import type { loadConfig } from '../src/config.js';

/** The web application's types of every request and answer, as web/src/api/schema.d.ts holds them. */
export function openApiTypes(build: typeof buildApp, load: typeof loadConfig): Promise<string>;
