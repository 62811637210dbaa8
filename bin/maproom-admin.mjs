#!/usr/bin/env node
// The `maproom-admin` command (backup, restore, verify), for the operator of a deployment:
// it reads the service's settings. It runs the service's build (dist/, `npm run build`), or
// the sources through tsx when they changed since that build.
import { loadEntry } from './entry.mjs';

const { run } = await loadEntry('src/backup/main.ts', 'src');
process.exitCode = await run(process.argv.slice(2));
