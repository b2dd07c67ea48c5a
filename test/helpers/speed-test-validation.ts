/**
 * What the speed-test validation files share: the payload builders, the field-error
 * assertions and the API as each revision exposes it. `describeEachRevision` gives every
 * file the same per-revision describe blocks, each with its own app and database, so a
 * file runs alone as well as with the others.
 *
 * Revisions 2 and 3 are checked through `POST {results}/dry-run` (no write); revision 1
 * has no dry-run, so it is checked with real submissions, moving the clock past the
 * 5-minute window before each one.
 */
import { expect } from 'chai';
import request from 'supertest';
import { createKey, signedUpAgent, useTestApp, type TestContext } from './app.ts';
import { fakeHubModels } from './fake-hub.ts';
import { validSubmission } from './fixtures.ts';

export type Revision = 1 | 2 | 3;
export type Body = Record<string, unknown>;
export type Message = string | RegExp;

const REVISIONS = [1, 2, 3] as const;
export const HF_ID = fakeHubModels.dense;
/** More than any revision's submission window (5 minutes in revisions 1 and 2, 1 in 3). */
export const PAST_THE_WINDOW_MS = 6 * 60 * 1000;
export const THIS_YEAR = new Date().getUTCFullYear();

export const SNIPPET = 'llama-server -m /models/dense-7b.Q4_K_M.gguf';
export const COST_ITEM = { component: 'NVIDIA GeForce RTX 4090', condition: 'USED', yearPurchased: 2023, price: 1450, currency: 'USD' };

// ---------------------------------------------------------------------------
// Payload builders
// ---------------------------------------------------------------------------

/** `validSubmission()` with a TTFT of 120 ms; `undefined` drops a field. */
export function payload(overrides: Body = {}): Body {
  return validSubmission({ ttftMs: 120, ...overrides });
}

/**
 * `payload()` with one value set at a dotted path. `engineFlags.*` paths get the
 * commandSnippet that revisions 2 and 3 require; `hardwareCost.0.*` paths get a valid item.
 */
export function withValue(path: string, value: unknown): Body {
  const body = structuredClone(payload());
  const keys = path.split('.');
  if (keys[0] === 'engineFlags') body.engineFlags = { commandSnippet: SNIPPET };
  if (keys[0] === 'hardwareCost' && keys.length > 1) body.hardwareCost = [{ ...COST_ITEM }];
  let target = body as Record<string, unknown>;
  for (const key of keys.slice(0, -1)) target = target[key] as Record<string, unknown>;
  target[keys.at(-1)!] = value;
  return body;
}

/** The value at a dotted path of a response body. */
export function valueAt(body: unknown, path: string): unknown {
  return path.split('.').reduce<unknown>((node, key) => (node as Record<string, unknown> | undefined)?.[key], body);
}

// ---------------------------------------------------------------------------
// Assertions
// ---------------------------------------------------------------------------

/** The contract's 400 body with errors on exactly the given paths, each carrying a message that matches. */
export function expectFieldErrors(res: request.Response, expected: Record<string, Message | undefined>): void {
  expect(res.status, JSON.stringify(res.body)).to.equal(400);
  expect(res.body.error).to.equal('Validation failed');
  expect(res.body.details.formErrors).to.deep.equal([]);
  expect(res.body.details.fieldErrors).to.have.all.keys(...Object.keys(expected));
  for (const [path, message] of Object.entries(expected)) {
    const messages: unknown[] = res.body.details.fieldErrors[path];
    expect(messages, path).to.be.an('array').that.is.not.empty;
    if (typeof message === 'string') expect(messages, path).to.include(message);
    else if (message)
      expect(
        messages.some((m) => message.test(String(m))),
        `${path}: ${JSON.stringify(messages)} ~ ${message}`,
      ).to.equal(true);
  }
}

export function expectFieldError(res: request.Response, path: string, message?: Message): void {
  expectFieldErrors(res, { [path]: message });
}

// ---------------------------------------------------------------------------
// The API as a revision exposes it
// ---------------------------------------------------------------------------

export function speedTestApi(ctx: TestContext, revision: Revision) {
  const resultsPath = revision === 3 ? '/api/speed-tests' : '/api/benchmarks';
  const state = { key: '' };

  before(async () => {
    const { agent, csrf } = await signedUpAgent(ctx.app);
    state.key = (await createKey(agent, csrf, { name: `revision ${revision} validation` })).key;
  });

  const post = (url: string, body: unknown) =>
    request(ctx.app)
      .post(url)
      .set('Authorization', `Bearer ${state.key}`)
      .send(body as object);

  /** A real submission, with the submission window already passed. */
  function submit(body: Body) {
    ctx.clock.advance(PAST_THE_WINDOW_MS);
    return post(resultsPath, body);
  }

  /** The cheapest full validation the revision offers: dry-run, or a real submission in revision 1. */
  function validate(body: Body) {
    return revision === 1 ? submit(body) : post(`${resultsPath}/dry-run`, body);
  }

  /** Expects the body accepted and returns what the server made of it (the 201 run, or the dry-run's `parsed`). */
  async function accept(body: Body): Promise<Record<string, any>> {
    const res = await validate(body);
    if (revision === 1) {
      expect(res.status, JSON.stringify(res.body)).to.equal(201);
      return res.body;
    }
    expect(res.status, JSON.stringify(res.body)).to.equal(200);
    expect(res.body.valid).to.equal(true);
    return res.body.parsed;
  }

  async function submitted(body: Body): Promise<Record<string, any>> {
    const res = await submit(body);
    expect(res.status, JSON.stringify(res.body)).to.equal(201);
    return res.body;
  }

  return { resultsPath, post, submit, validate, accept, submitted };
}

export type SpeedTestApi = ReturnType<typeof speedTestApi>;

/**
 * Registers `tests` once per API revision, each time inside the describe block
 * "speed-test submission validation, API revision N" with its own app, database and API key.
 */
export function describeEachRevision(tests: (revision: Revision, api: SpeedTestApi, ctx: TestContext) => void): void {
  for (const revision of REVISIONS) {
    describe(`speed-test submission validation, API revision ${revision}`, () => {
      const ctx = useTestApp({ API_REVISION: String(revision) }, { fakeHub: true });
      tests(revision, speedTestApi(ctx, revision), ctx);
    });
  }
}
