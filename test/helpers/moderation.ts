import request from 'supertest';
import { createKey, signedUpAgent, uniqueUsername, type Agent, type TestContext } from './app.ts';
import { validSubmission } from './fixtures.ts';

/** A signed-up account as the admin and profile tests use it: browser agent, CSRF token, id, API key. */
export interface Account {
  agent: Agent;
  csrf: string;
  username: string;
  id: string;
  key: string;
}

export async function account(ctx: TestContext, prefix = 'user', { admin = false } = {}): Promise<Account> {
  const { agent, csrf, username } = await signedUpAgent(ctx.app, uniqueUsername(prefix));
  const { id } = await ctx.db('users').whereRaw('lower(username) = lower(?)', [username]).first('id');
  if (admin) await ctx.db('users').where({ id }).update({ is_admin: true });
  const { key } = await createKey(agent, csrf);
  return { agent, csrf, username, id, key };
}

/** Submits a speed-test run through the API (the clock moves past the user's window first); returns its 201 body. */
export async function submitRun(ctx: TestContext, who: Account, overrides: Record<string, unknown> = {}): Promise<Record<string, any>> {
  ctx.clock.advance(10 * 60_000);
  const res = await request(ctx.app)
    .post('/api/speed-tests')
    .set('Authorization', `Bearer ${who.key}`)
    .send(validSubmission({ hardware: { hwClass: 'DISCRETE_GPU', gpuName: 'RTX 4090', vramGb: 24 }, ...overrides }));
  if (res.status !== 201) throw new Error(`submission failed with ${res.status}: ${JSON.stringify(res.body)}`);
  return res.body;
}

/** The audit rows about one target, oldest first. */
export async function auditRowsFor(ctx: TestContext, targetId: string) {
  return ctx.db('admin_audit_log').where({ target_id: targetId }).orderBy('created_at', 'asc');
}
