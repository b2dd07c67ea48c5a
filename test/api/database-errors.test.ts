import { expect } from 'chai';
import request from 'supertest';
import { createApp } from '../../src/app.ts';
import { translateDbError } from '../../src/db/errors.ts';
import { createDb } from '../../src/db/knex.ts';
import { BadRequest, Conflict, Unavailable } from '../../src/lib/errors.ts';
import { createLogger } from '../../src/logger.ts';
import { messages } from '../../src/messages.ts';
import { testConfig, useTestApp } from '../helpers/app.ts';

/** The error a real Postgres raises for `run` (the tests feed real driver errors, not hand-made ones). */
async function postgresError(run: () => Promise<unknown>): Promise<unknown> {
  try {
    await run();
  } catch (error) {
    return error;
  }
  throw new Error('expected Postgres to refuse');
}

describe('Postgres errors, translated in one place', () => {
  const ctx = useTestApp();

  it('makes a unique violation a 409, with the message of a named constraint', async () => {
    await ctx.db('users').insert({ username: 'taken_name', display_name: 'x', password_hash: 'x' });
    const duplicate = await postgresError(() => ctx.db('users').insert({ username: 'TAKEN_NAME', display_name: 'y', password_hash: 'y' }));
    const translated = translateDbError(duplicate);
    expect(translated).to.be.instanceOf(Conflict);
    expect(translated!.message).to.equal(messages.usernameTaken);
  });

  it('makes a unique violation of an unnamed constraint the generic 409', async () => {
    const [user] = await ctx.db('users').insert({ username: 'keyholder', display_name: 'k', password_hash: 'k' }).returning('id');
    const row = { user_id: user.id, name: 'k', prefix: 'bhk_0000', key_hash: 'f'.repeat(64) };
    await ctx.db('api_keys').insert(row);
    const translated = translateDbError(await postgresError(() => ctx.db('api_keys').insert(row)));
    expect(translated).to.be.instanceOf(Conflict);
    expect(translated!.message).to.equal(messages.conflict);
  });

  it('makes a value Postgres cannot read for its column (a malformed uuid) a 400', async () => {
    const translated = translateDbError(await postgresError(() => ctx.db.raw("select 'not-a-uuid'::uuid")));
    expect(translated).to.be.instanceOf(BadRequest);
    expect(translated!.status).to.equal(400);
  });

  it('leaves other errors alone (they stay a logged 500)', async () => {
    expect(translateDbError(await postgresError(() => ctx.db.raw('select 1/0')))).to.equal(undefined);
    expect(translateDbError(new Error('a bug'))).to.equal(undefined);
  });

  describe('with the database unreachable', () => {
    // Port 1 on loopback: nothing listens there, so every connection is refused.
    const deadUrl = 'postgres://postgres@127.0.0.1:1/nothing';
    const db = createDb(deadUrl);
    const app = createApp({ db, config: testConfig(), logger: createLogger('silent'), databaseUrl: deadUrl });
    after(async () => {
      await app.locals.close();
      await db.destroy();
    });

    it('answers the API with 503 { error } and Retry-After, not a 500', async () => {
      for (const path of ['/api/leaderboard', '/api/models', '/api/speed-tests']) {
        const res = await request(app).get(path);
        expect(res.status, path).to.equal(503);
        expect(res.body, path).to.deep.equal({ error: messages.databaseUnavailable });
        expect(res.headers['retry-after'], path).to.equal('5');
      }
      expect(translateDbError(await postgresError(() => db.raw('select 1')))).to.be.instanceOf(Unavailable);
    });

    it('answers a page with the 503 error page', async () => {
      const res = await request(app).get('/').expect(503);
      expect(res.type).to.equal('text/html');
      expect(res.text).to.include(messages.databaseUnavailable);
    });
  });
});
