#!/usr/bin/env node
// The `maproom` command. It runs the compiled command line, dist/src/cli/main.js, which
// `npm ci` makes (the `prepare` script) and a package or global install carries. In a
// checkout whose src/cli changed since that build, it runs the sources through tsx instead.
import { loadEntry } from './entry.mjs';

const { run } = await loadEntry('src/cli/main.ts', 'src/cli');
process.exitCode = await run(process.argv);
