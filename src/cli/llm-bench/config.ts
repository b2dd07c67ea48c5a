/** Where the leaderboard is and which key to use: flags, then environment, then the config file. */
import { readFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { API_KEY_PATTERN } from '../../schemas/api-key.schema.ts';
import { usageError } from './errors.ts';

export const DEFAULT_LEADERBOARD = 'http://localhost:3000';

export interface SavedConfig {
  apiKey?: string;
  leaderboard?: string;
}

export function configPath(env: NodeJS.ProcessEnv): string {
  return env.LLM_BENCH_CONFIG || path.join(env.XDG_CONFIG_HOME || path.join(os.homedir(), '.config'), 'llm-bench', 'config.json');
}

export function readConfig(env: NodeJS.ProcessEnv): SavedConfig {
  const file = configPath(env);
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch {
    return {};
  }
  try {
    const parsed = JSON.parse(text) as SavedConfig;
    return parsed && typeof parsed === 'object' ? parsed : {};
  } catch {
    throw usageError(`The config file ${file} is not JSON: fix or delete it.`);
  }
}

export function resolveLeaderboard(
  flags: { 'api-key'?: string; leaderboard?: string },
  env: NodeJS.ProcessEnv,
  needKey: boolean,
): { url: string; apiKey?: string } {
  const saved = readConfig(env);
  const url = (flags.leaderboard ?? env.LLM_BENCH_URL ?? saved.leaderboard ?? DEFAULT_LEADERBOARD).replace(/\/+$/, '');
  if (!/^https?:\/\/[^/]/.test(url)) throw usageError(`The leaderboard address "${url}" is not an http(s) URL: fix --leaderboard.`);
  const apiKey = (flags['api-key'] ?? env.LLM_BENCH_API_KEY ?? saved.apiKey)?.trim();
  if (needKey && !apiKey)
    throw usageError(
      `Submitting needs an API key: create one at ${url}/settings/keys and pass --api-key, set LLM_BENCH_API_KEY, or save it in ${configPath(env)}.`,
    );
  if (apiKey !== undefined && !API_KEY_PATTERN.test(apiKey))
    throw usageError('The API key is malformed: it is "bhk_" followed by 40 lower-case hex characters; copy it again from the keys page.');
  return { url, apiKey };
}
