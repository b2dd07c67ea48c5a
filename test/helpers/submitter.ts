import { expect } from 'chai';
import request from 'supertest';
import { createKey, signedUpAgent, type TestContext } from './app.ts';
import { validSubmission } from './fixtures.ts';

/** Answers are read field by field in the tests. */
type Body = Record<string, any>;

/**
 * One signed-up submitter with an API key (made in a `before` hook) who submits runs to
 * revision 3's results path, each a rate-limit window after the last; `submit` answers the
 * 201 body; `dryRun` sends the same body to the dry-run and answers its 200 body. The
 * body is `validSubmission` without `ttftMs`, then `overrides`.
 */
export function useSubmitter(ctx: TestContext) {
  let key = '';
  const send = async (path: string, overrides: Body, status: number) => {
    const res = await request(ctx.app)
      .post(path)
      .set('Authorization', `Bearer ${key}`)
      .send(validSubmission({ ttftMs: undefined, ...overrides }));
    expect(res.status, JSON.stringify(res.body)).to.equal(status);
    return res;
  };
  before(async () => {
    const { agent, csrf } = await signedUpAgent(ctx.app);
    ({ key } = await createKey(agent, csrf));
  });
  return {
    get key(): string {
      return key;
    },
    async submit(overrides: Body): Promise<Body> {
      ctx.clock.advance(61_000);
      return (await send('/api/speed-tests', overrides, 201)).body;
    },
    async dryRun(overrides: Body): Promise<Body> {
      return (await send('/api/speed-tests/dry-run', overrides, 200)).body;
    },
  };
}
