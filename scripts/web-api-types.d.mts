// Types of scripts/web-api-types.mjs, for test/web-api-types.test.ts.
import type { buildApp } from '../src/app.js';
import type { loadConfig } from '../src/config.js';

/** The web application's types of every request and answer, as web/src/api/schema.d.ts holds them. */
export function openApiTypes(build: typeof buildApp, load: typeof loadConfig): Promise<string>;

/** The service's OpenAPI document (paths with their operations, components). */
export function openApiDocument(build: typeof buildApp, load: typeof loadConfig): Promise<OpenApiDocument>;

export interface OpenApiDocument {
  paths: Record<
    string,
    Record<string, Record<string, unknown> & { 'x-upload'?: { files: Record<string, { maxBytes: number }> } }>
  >;
  components?: { schemas?: Record<string, unknown> };
}
