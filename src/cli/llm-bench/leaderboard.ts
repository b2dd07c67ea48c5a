/**
 * The leaderboard's API as the client uses it (revision 3 paths): the agent-context (for the
 * catalogue's hardware names), dry-run, and submission with an Idempotency-Key, retried
 * after a dropped connection or a 5xx with the same key (so it is never stored twice) and,
 * with `wait`, after a 429 once Retry-After has passed.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { contentHash } from '../../lib/canonical-json.ts';
import { CliError, EXIT, errorExcerpt, networkReason, serverUnavailable } from './errors.ts';

export const RESULTS_PATH = '/api/speed-tests';

export interface LeaderboardOptions {
  url: string;
  apiKey?: string;
  timeoutMs?: number;
  /** Wait out a 429 (Retry-After) instead of failing. */
  wait?: boolean;
  /** Attempts after a dropped connection or a 5xx (same Idempotency-Key). */
  retries?: number;
  /** Pause between those attempts, ms. */
  retryDelayMs?: number;
  /** Longest 429 wait accepted, seconds. */
  maxWaitSeconds?: number;
  log?: (line: string) => void;
}

type Json = Record<string, any>;

export interface DryRunAnswer {
  valid: true;
  parsed: Json;
  plausibility?: { verdict: string; decodeBoundTokS?: number | null; reason?: string };
  /** Revision 3: whether the run would be stored as verified, and what keeps it from that. */
  verification?: { verified: boolean; issues: string[] };
}

export interface Submitted {
  run: Json;
  url: string;
  replayed: boolean;
}

/** The Idempotency-Key of a payload: the same measured payload is one run, however often it is sent. */
export const idempotencyKeyOf = (payload: unknown) => `llm-bench-${contentHash(payload).slice(0, 40)}`;

/** A 400's field errors as one line: `field: message; field: message`. */
function validationLine(body: Json): string {
  const fields = Object.entries((body.details?.fieldErrors ?? {}) as Record<string, string[]>).map(
    ([field, messages]) => `${field}: ${messages.join(' ')}`,
  );
  const forms = (body.details?.formErrors ?? []) as string[];
  return [...fields, ...forms].join('; ') || String(body.error ?? 'invalid');
}

export function createLeaderboardClient(options: LeaderboardOptions) {
  const base = options.url.replace(/\/+$/, '');
  const timeoutMs = options.timeoutMs ?? 30_000;
  const log = options.log ?? (() => {});

  async function call(
    method: string,
    path: string,
    body?: unknown,
    headers: Record<string, string> = {},
  ): Promise<{ status: number; headers: Headers; body: Json; text: string }> {
    let response: Response;
    try {
      response = await fetch(`${base}${path}`, {
        method,
        headers: {
          accept: 'application/json',
          ...(body !== undefined ? { 'content-type': 'application/json' } : {}),
          ...(options.apiKey ? { authorization: `Bearer ${options.apiKey}` } : {}),
          ...headers,
        },
        body: body === undefined ? undefined : JSON.stringify(body),
        signal: AbortSignal.timeout(timeoutMs),
      });
    } catch (error) {
      throw new NetworkError(`Cannot reach the leaderboard at ${base} (${networkReason(error)}): check --leaderboard.`);
    }
    let text: string;
    try {
      text = await response.text();
    } catch (error) {
      throw new NetworkError(`The leaderboard's answer broke off (${networkReason(error)}).`);
    }
    let parsed: Json = {};
    try {
      parsed = text ? JSON.parse(text) : {};
    } catch {
      // not JSON: judged by status below
    }
    return { status: response.status, headers: response.headers, body: parsed, text };
  }

  /** The errors every call shares: credentials, server trouble. */
  function failOn(answer: { status: number; body: Json; text: string }, what: string): never {
    if (answer.status === 401 || answer.status === 403) {
      throw new CliError(
        EXIT.authenticationFailed,
        `The leaderboard refused the API key (HTTP ${answer.status}): create a key at ${base}/settings/keys and pass it with --api-key or LLM_BENCH_API_KEY.`,
      );
    }
    if (answer.status === 400 || answer.status === 404 || answer.status === 422) {
      throw new CliError(
        EXIT.validationFailed,
        `${what} was refused (HTTP ${answer.status}): ${answer.status === 400 ? validationLine(answer.body) : errorExcerpt(answer.text)}`,
      );
    }
    throw serverUnavailable(
      `${what} failed: the leaderboard answered HTTP ${answer.status} (${errorExcerpt(answer.text) || 'no message'}).`,
    );
  }

  return {
    base,

    /** GET /api/agent-context (public). */
    async agentContext(): Promise<Json> {
      const answer = await call('GET', '/api/agent-context').catch(asUnavailable);
      if (answer.status !== 200) failOn(answer, 'Reading /api/agent-context');
      return answer.body;
    },

    /** GET /api/speed-tests/{id} (public): an approved run with its recipe. */
    async run(id: string): Promise<Json> {
      const answer = await call('GET', `${RESULTS_PATH}/${encodeURIComponent(id)}`).catch(asUnavailable);
      if (answer.status === 404)
        throw new CliError(
          EXIT.validationFailed,
          `No approved run ${id} at ${base}: check the id (it is in the run's address, /runs/<id>).`,
        );
      if (answer.status !== 200) failOn(answer, `Reading run ${id}`);
      return answer.body;
    },

    /**
     * GET /api/predictions (public) for a setup; null when the leaderboard cannot be reached or
     * cannot predict it (an unknown model or device: 422, or any other answer), so a
     * measurement never waits on it.
     */
    async prediction(query: Record<string, string>): Promise<Json | null> {
      try {
        const answer = await call('GET', `/api/predictions?${new URLSearchParams(query)}`);
        return answer.status === 200 && answer.body.prediction ? answer.body : null;
      } catch {
        return null;
      }
    },

    async dryRun(payload: unknown): Promise<DryRunAnswer> {
      const answer = await call('POST', `${RESULTS_PATH}/dry-run`, payload).catch(asUnavailable);
      if (answer.status !== 200 || answer.body.valid !== true) failOn(answer, 'The dry-run');
      return answer.body as DryRunAnswer;
    },

    async submit(payload: Json, idempotencyKey = idempotencyKeyOf(payload)): Promise<Submitted> {
      const retries = options.retries ?? 3;
      let failures = 0;
      for (;;) {
        let answer;
        try {
          answer = await call('POST', RESULTS_PATH, payload, { 'Idempotency-Key': idempotencyKey });
        } catch (error) {
          if (!(error instanceof NetworkError) || failures >= retries) throw asUnavailable(error);
          failures += 1;
          log(`${error.message} Retrying with the same Idempotency-Key (${failures}/${retries}).`);
          await sleep(options.retryDelayMs ?? 1000 * failures);
          continue;
        }
        if (answer.status === 201)
          return {
            run: verifyStored(payload, answer.body),
            url: `${base}/runs/${answer.body.id}`,
            replayed: answer.headers.get('idempotent-replayed') === 'true',
          };
        if (answer.status === 429) {
          const seconds = Number(answer.headers.get('retry-after')) || Math.ceil(Number(answer.body.retryAfterMs ?? 60_000) / 1000);
          if (!options.wait)
            throw serverUnavailable(
              `Rate limited: the leaderboard takes one run a minute per account; try again in ${seconds} s, or pass --wait.`,
            );
          if (seconds > (options.maxWaitSeconds ?? 600))
            throw serverUnavailable(`Rate limited for ${seconds} s, longer than --wait accepts; try again later.`);
          log(`Rate limited: waiting ${seconds} s (Retry-After) before submitting.`);
          await sleep(seconds * 1000);
          continue;
        }
        if ((answer.status === 409 || answer.status >= 500) && failures < retries) {
          failures += 1;
          log(`The leaderboard answered HTTP ${answer.status}; retrying with the same Idempotency-Key (${failures}/${retries}).`);
          await sleep(options.retryDelayMs ?? 1000 * failures);
          continue;
        }
        failOn(answer, 'The submission');
      }
    },
  };
}

export type LeaderboardClient = ReturnType<typeof createLeaderboardClient>;

class NetworkError extends Error {}

function asUnavailable(error: unknown): never {
  if (error instanceof NetworkError) throw serverUnavailable(error.message);
  throw error;
}

/** The 201 body must be the run just sent: an id, the model, and the measured speed. */
export function verifyStored(payload: Json, run: Json): Json {
  const problems: string[] = [];
  if (typeof run.id !== 'string' || !run.id) problems.push('no run id');
  if (typeof payload.tokSOut === 'number' && Math.abs(Number(run.tokSOut) - payload.tokSOut) > 1e-6 * Math.max(1, payload.tokSOut))
    problems.push(`tokSOut ${run.tokSOut} instead of ${payload.tokSOut}`);
  const storedModel = String(run.model?.hfId ?? '').toLowerCase();
  if (storedModel && storedModel !== String(payload.hfId).toLowerCase())
    problems.push(`model ${run.model.hfId} instead of ${payload.hfId}`);
  if (problems.length) throw serverUnavailable(`The leaderboard answered 201 but not with the run sent (${problems.join(', ')}).`);
  return run;
}
