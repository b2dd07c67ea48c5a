/**
 * `llm-bench login`: device login (RFC 8628) against the leaderboard. It asks for codes,
 * shows the person the address and the code to approve in their browser, polls until they
 * approve (or deny, or the codes expire), and saves the API key it is given in the config file.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { parseArgs } from 'node:util';
import { configPath, readConfig } from './config.ts';
import { CliError, EXIT, networkReason, serverUnavailable, usageError } from './errors.ts';
import type { Io } from './commands.ts';

export const LOGIN_HELP = `Usage: llm-bench login [--leaderboard URL] [--client-name NAME]

Signs this machine in through your browser (device login): open the address it prints, sign in,
check the code and approve. The API key it then gets (named after --client-name, default
"llm-bench", and the day) is saved in the config file ($LLM_BENCH_CONFIG, default
~/.config/llm-bench/config.json) with the leaderboard's address; revoke it at /settings/keys.
`;

const DEVICE_GRANT = 'urn:ietf:params:oauth:grant-type:device_code';

interface DeviceCode {
  device_code: string;
  user_code: string;
  verification_uri: string;
  verification_uri_complete: string;
  expires_in: number;
  interval: number;
}

async function postJson(url: string, body: unknown): Promise<{ status: number; body: Record<string, unknown> }> {
  let res: Response;
  try {
    res = await fetch(url, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(body) });
  } catch (error) {
    throw serverUnavailable(`The leaderboard at ${url} could not be reached (${networkReason(error)}).`);
  }
  const text = await res.text();
  let parsed: Record<string, unknown> = {};
  try {
    parsed = text ? (JSON.parse(text) as Record<string, unknown>) : {};
  } catch {
    // Not JSON: the status decides below.
  }
  if (res.status >= 500 || res.status === 429)
    throw serverUnavailable(`The leaderboard answered ${res.status} at ${url}: try again later.`);
  return { status: res.status, body: parsed };
}

export async function loginCommand(args: string[], io: Io, options: { pollMs?: number } = {}): Promise<number> {
  let flags: { leaderboard?: string; 'client-name'?: string; help?: boolean };
  try {
    flags = parseArgs({
      args,
      options: { leaderboard: { type: 'string' }, 'client-name': { type: 'string' }, help: { type: 'boolean', short: 'h' } },
      strict: true,
    }).values;
  } catch (error) {
    throw usageError(`${(error as Error).message.split('\n')[0]} (see --help)`);
  }
  if (flags.help) {
    io.stdout(LOGIN_HELP);
    return EXIT.ok;
  }
  const saved = readConfig(io.env);
  const url = (flags.leaderboard ?? io.env.LLM_BENCH_URL ?? saved.leaderboard ?? 'http://localhost:3000').replace(/\/+$/, '');
  if (!/^https?:\/\/[^/]/.test(url)) throw usageError(`The leaderboard address "${url}" is not an http(s) URL: fix --leaderboard.`);
  const clientId = flags['client-name'] ?? 'llm-bench';

  const started = await postJson(`${url}/api/auth/device/code`, { client_id: clientId });
  if (started.status !== 200)
    throw new CliError(EXIT.validationFailed, `The leaderboard refused the login: ${String(started.body.error ?? started.status)}`);
  const code = started.body as unknown as DeviceCode;
  io.stderr(
    `Open ${code.verification_uri_complete}\nand approve the code ${code.user_code} (it works for ${Math.round(code.expires_in / 60)} minutes).\n`,
  );

  let intervalMs = options.pollMs ?? code.interval * 1000;
  const deadline = Date.now() + code.expires_in * 1000;
  while (Date.now() < deadline) {
    await sleep(intervalMs);
    const polled = await postJson(`${url}/api/auth/device/token`, {
      grant_type: DEVICE_GRANT,
      device_code: code.device_code,
      client_id: clientId,
    });
    if (polled.status === 200 && typeof polled.body.access_token === 'string') {
      const file = configPath(io.env);
      mkdirSync(path.dirname(file), { recursive: true });
      writeFileSync(file, `${JSON.stringify({ ...saved, apiKey: polled.body.access_token, leaderboard: url }, null, 2)}\n`, {
        mode: 0o600,
      });
      io.stdout(`Signed in: the API key is saved in ${file}.\n`);
      return EXIT.ok;
    }
    const error = String(polled.body.error ?? polled.status);
    if (error === 'authorization_pending') continue;
    if (error === 'slow_down') {
      intervalMs += 5000;
      continue;
    }
    if (error === 'access_denied') throw new CliError(EXIT.authenticationFailed, 'The login was denied in the browser.');
    if (error === 'expired_token') break;
    // error_description (RFC 6749 5.2) says what to do, e.g. at the key limit.
    const description = typeof polled.body.error_description === 'string' ? ` (${polled.body.error_description})` : '';
    throw new CliError(EXIT.authenticationFailed, `The leaderboard refused the login: ${error}${description}`);
  }
  throw new CliError(EXIT.authenticationFailed, 'The code expired before it was approved: run llm-bench login again.');
}
