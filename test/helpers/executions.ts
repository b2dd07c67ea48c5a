import request from 'supertest';
import type { TestContext } from './app.ts';
import { fakeHubModels } from './fake-hub.ts';
import type { FakeOpenAi } from './fake-openai.ts';
import type { Account } from './moderation.ts';
import { bearer } from './quality.ts';

/** Server-side execution helpers: request bodies and waiting for a job to finish. */

type Body = Record<string, any>;

export const FINISHED = ['SUCCEEDED', 'FAILED', 'CANCELLED'];

/** Worker timings short enough for tests: jobs start and beat within tens of milliseconds. */
export const FAST_EXECUTION_TIMING = { pollMs: 50, heartbeatMs: 100, staleMs: 60_000 };

export function executeBody(suiteSlug: string, target: FakeOpenAi | string, overrides: Body = {}): Body {
  return {
    suiteSlug,
    baseUrl: typeof target === 'string' ? target : target.url,
    hfId: fakeHubModels.dense,
    model: 'fake-model',
    ...overrides,
  };
}

export const hardware = { hwClass: 'DISCRETE_GPU', gpuName: 'NVIDIA GeForce RTX 4090', vramGb: 24 };

/** Polls GET {root}/execute/{id} until `done(execution)` (default: finished); fails after `timeoutMs`. */
export async function waitForExecution(
  ctx: TestContext,
  root: string,
  who: Account,
  id: string,
  done: (execution: Body) => boolean = (e) => FINISHED.includes(e.status),
  timeoutMs = 15_000,
): Promise<Body> {
  const until = Date.now() + timeoutMs;
  for (;;) {
    const res = await request(ctx.app).get(`${root}/execute/${id}`).set(bearer(who));
    if (res.status !== 200) throw new Error(`GET execution answered ${res.status}: ${JSON.stringify(res.body)}`);
    if (done(res.body.execution)) return res.body.execution;
    if (Date.now() > until) throw new Error(`execution did not get there in time: ${JSON.stringify(res.body.execution)}`);
    await new Promise((resolve) => setTimeout(resolve, 40));
  }
}

/** POST {root}/execute, expecting 202; returns the execution. */
export async function startExecution(ctx: TestContext, root: string, who: Account, body: Body): Promise<Body> {
  const res = await request(ctx.app).post(`${root}/execute`).set(bearer(who)).send(body);
  if (res.status !== 202) throw new Error(`execute answered ${res.status}: ${JSON.stringify(res.body)}`);
  return res.body.execution;
}
