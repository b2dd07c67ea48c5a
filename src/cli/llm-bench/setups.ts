/**
 * `--setup NAME`: the hardware (and engine name, quantization, backend, context length) of a
 * saved setup. Saved setups are session-only on the API (a key gets 403), so the client
 * signs in through the sign-in form with LLM_BENCH_USERNAME / LLM_BENCH_PASSWORD, then reads
 * GET /api/setups with that session.
 */
import { setupHardwareFields } from '../../schemas/setup.schema.ts';
import { CliError, EXIT, networkReason, serverUnavailable, usageError } from './errors.ts';
import type { Hardware } from './hardware.ts';

export type Setup = Record<string, any>;

const cookieOf = (response: Response) =>
  response.headers
    .getSetCookie()
    .map((line) => line.split(';')[0]!)
    .find((pair) => pair.startsWith('bh.sid='));

export async function signInAndFindSetup(base: string, name: string, env: NodeJS.ProcessEnv): Promise<Setup> {
  const username = env.LLM_BENCH_USERNAME;
  const password = env.LLM_BENCH_PASSWORD;
  if (!username || !password)
    throw usageError(
      '--setup reads your saved setups, which need a signed-in session: set LLM_BENCH_USERNAME and LLM_BENCH_PASSWORD (or use --hardware-file).',
    );
  try {
    const form = await fetch(`${base}/signin`, { signal: AbortSignal.timeout(15_000) });
    const csrf = /<meta name="csrf-token" content="([^"]+)">/.exec(await form.text())?.[1];
    const firstCookie = cookieOf(form);
    if (!csrf || !firstCookie) throw serverUnavailable(`The leaderboard's sign-in page at ${base}/signin did not answer as expected.`);
    const signedIn = await fetch(`${base}/signin`, {
      method: 'POST',
      redirect: 'manual',
      headers: { 'content-type': 'application/x-www-form-urlencoded', cookie: firstCookie },
      body: new URLSearchParams({ username, password, _csrf: csrf }).toString(),
      signal: AbortSignal.timeout(15_000),
    });
    await signedIn.body?.cancel();
    const session = cookieOf(signedIn);
    if (signedIn.status !== 303 || !session)
      throw new CliError(
        EXIT.authenticationFailed,
        `Signing in as ${username} failed (HTTP ${signedIn.status}): check LLM_BENCH_USERNAME and LLM_BENCH_PASSWORD.`,
      );
    const list = await fetch(`${base}/api/setups?limit=50`, {
      headers: { cookie: session, accept: 'application/json' },
      signal: AbortSignal.timeout(15_000),
    });
    if (!list.ok) throw serverUnavailable(`Reading your saved setups failed (HTTP ${list.status}).`);
    const setups = ((await list.json()) as { setups?: Setup[] }).setups ?? [];
    const setup =
      setups.find((item) => item.name === name) ?? setups.find((item) => String(item.name).toLowerCase() === name.toLowerCase());
    if (!setup)
      throw usageError(`You have no saved setup named "${name}"; yours: ${setups.map((item) => item.name).join(', ') || 'none'}.`);
    return setup;
  } catch (error) {
    if (error instanceof CliError) throw error;
    throw serverUnavailable(`Cannot reach the leaderboard at ${base} (${networkReason(error)}): check --leaderboard.`);
  }
}

/** The submission's hardware object from a setup's flat fields. */
export function hardwareOfSetup(setup: Setup): Hardware {
  if (!setup.hwClass)
    throw usageError(`The saved setup "${setup.name}" has no hardware class: complete it on the setups page, or use --hardware-file.`);
  const hardware: Record<string, unknown> = {};
  for (const field of setupHardwareFields) if (setup[field] !== null && setup[field] !== undefined) hardware[field] = setup[field];
  return hardware as Hardware;
}
