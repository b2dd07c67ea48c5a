#!/usr/bin/env node
// Runs the TypeScript client through tsx (a dependency), so `npx llm-bench ...` works from a checkout.
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const entry = fileURLToPath(new URL('../src/cli/llm-bench.ts', import.meta.url));
// tsx resolved from this checkout, so it works from any working directory.
const tsx = import.meta.resolve('tsx');
const result = spawnSync(process.execPath, ['--import', tsx, entry, ...process.argv.slice(2)], { stdio: 'inherit' });
process.exit(result.status ?? 1);
