import { expect } from 'chai';
import type { Express } from 'express';
import request from 'supertest';
import { createApp } from '../../src/app.ts';
import { translateDbError } from '../../src/db/errors.ts';
import { createDb, type Db } from '../../src/db/knex.ts';
import { BadRequest, Conflict, Unavailable } from '../../src/lib/errors.ts';
import { createLogger } from '../../src/logger.ts';
import { messages } from '../../src/messages.ts';
import { logSink, testConfig, useTestApp } from '../helpers/app.ts';
import { startTcpProxy } from '../helpers/tcp-proxy.ts';

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
    // The contract's answer to an outage, and what the error page tells people.
    const UNAVAILABLE = { error: 'Service temporarily unavailable, retry later' };
    const FRIENDLY_TEXT = 'We can&#39;t reach our database right now. Please try again in a few seconds.';

    interface OutageApp {
      app: Express;
      db: Db;
      logs: Record<string, unknown>[];
    }
    const opened: { app: Express; db: Db }[] = [];
    /** An app whose queries go to `dbUrl` and whose session store to `sessionDbUrl`, logging into `logs`. */
    function appOn(dbUrl: string, sessionDbUrl = dbUrl): OutageApp {
      const logs: Record<string, unknown>[] = [];
      const logger = createLogger('info', logSink(logs));
      const db = createDb(dbUrl, {}, logger);
      const app = createApp({ db, config: testConfig(), logger, databaseUrl: sessionDbUrl });
      opened.push({ app, db });
      return { app, db, logs };
    }
    after(async () => {
      for (const { app, db } of opened) {
        await app.locals.close();
        await db.destroy();
      }
    });

    /** A session cookie the apps here accept (they share the test secret): the sign-up form stores one. */
    async function sessionCookie(): Promise<string> {
      const form = await request(ctx.app).get('/signup').expect(200);
      return form.headers['set-cookie']![0]!.split(';')[0]!;
    }

    /** Lines a database outage must never produce: an error object, a stack, an unhandled error. */
    function expectNoErrorDetails(logs: Record<string, unknown>[]): void {
      expect(
        logs.filter((line) => 'err' in line).map((line) => line.msg),
        'lines with an error object',
      ).to.deep.equal([]);
      expect(JSON.stringify(logs)).not.to.include('"stack"');
    }
    const outageLines = (logs: Record<string, unknown>[]) => logs.filter((line) => String(line.msg).startsWith('database unavailable: '));
    const recoveryLines = (logs: Record<string, unknown>[]) => logs.filter((line) => line.msg === 'database available again');

    // Port 1 on loopback: nothing listens there, so every connection is refused.
    const deadUrl = 'postgres://postgres@127.0.0.1:1/nothing';

    it('answers the API with 503 { error } and Retry-After, not a 500', async () => {
      const { app, db } = appOn(deadUrl);
      // The exports too: they read their first run before sending anything.
      for (const path of [
        '/api/leaderboard',
        '/api/models',
        '/api/speed-tests',
        '/api/speed-tests?format=csv',
        '/api/leaderboard?format=jsonl',
      ]) {
        const res = await request(app).get(path);
        expect(res.status, path).to.equal(503);
        expect(res.body, path).to.deep.equal(UNAVAILABLE);
        expect(res.headers['retry-after'], path).to.equal('5');
      }
      expect(translateDbError(await postgresError(() => db.raw('select 1')))).to.be.instanceOf(Unavailable);
    });

    it('answers a page with a friendly 503 page', async () => {
      const { app } = appOn(deadUrl);
      const res = await request(app).get('/').expect(503);
      expect(res.type).to.equal('text/html');
      expect(res.headers['retry-after']).to.equal('5');
      expect(res.text).to.include(FRIENDLY_TEXT);
      expect(res.text).not.to.include('Something went wrong on our side');
    });

    it('answers a request with a session cookie the same 503 page (its session cannot be loaded)', async () => {
      const { app } = appOn(deadUrl);
      const cookie = await sessionCookie();
      const page = await request(app).get('/models').set('Cookie', cookie).expect(503);
      expect(page.headers['retry-after']).to.equal('5');
      expect(page.text).to.include(FRIENDLY_TEXT);
      const api = await request(app).get('/api/models').set('Cookie', cookie).expect(503);
      expect(api.body).to.deep.equal(UNAVAILABLE);
    });

    it('logs an outage once, without a stack, however many requests fail, and once more when the database is back', async () => {
      const proxy = await startTcpProxy(ctx.databaseUrl);
      try {
        const { app, logs } = appOn(proxy.url);
        const cookie = await sessionCookie();
        await request(app).get('/api/leaderboard').expect(200);

        await proxy.setMode('refuse');
        for (let i = 0; i < 3; i++) {
          await request(app).get('/api/leaderboard').expect(503);
          await request(app).get('/').expect(503);
          await request(app).get('/models').set('Cookie', cookie).expect(503);
        }
        expect(outageLines(logs), 'outage lines').to.have.length(1);
        expect(outageLines(logs)[0]).to.include({ level: 50 });
        expect(outageLines(logs)[0]!.msg).to.match(/^database unavailable: [^\n]+$/);
        const unavailableRequests = logs.filter((line) => (line.res as { statusCode?: number } | undefined)?.statusCode === 503);
        expect(unavailableRequests, 'the 503s are counted, not logged one by one').to.deep.equal([]);
        expect(recoveryLines(logs)).to.have.length(0);

        await proxy.setMode('forward');
        await request(app).get('/api/leaderboard').expect(200);
        await request(app).get('/models').set('Cookie', cookie).expect(200);
        expect(recoveryLines(logs), 'recovery lines').to.have.length(1);
        expect(recoveryLines(logs)[0]!.refusedRequests, 'the 503s in between').to.equal(9);
        expect(outageLines(logs)).to.have.length(1);
        expectNoErrorDetails(logs);
      } finally {
        await proxy.close();
      }
    });

    it('answers 503 when the database stops answering, after the acquire timeout instead of hanging', async function () {
      this.timeout(30_000);
      const proxy = await startTcpProxy(ctx.databaseUrl);
      try {
        const { app, logs } = appOn(proxy.url);
        const cookie = await sessionCookie();
        await proxy.setMode('silent');
        // Knex's default would wait 60 s for a connection, the session store's pool forever.
        const [api, page] = await Promise.all([
          request(app).get('/api/leaderboard').timeout(15_000),
          request(app).get('/models').set('Cookie', cookie).timeout(15_000),
        ]);
        expect(api.status).to.equal(503);
        expect(api.body).to.deep.equal(UNAVAILABLE);
        expect(page.status).to.equal(503);
        expect(page.text).to.include(FRIENDLY_TEXT);
        expect(outageLines(logs)).to.have.length(1);
        expectNoErrorDetails(logs);
      } finally {
        await proxy.close();
      }
    });

    it('delivers the 503 page whole when the session cannot be saved as it ends either, with no stack printed', async () => {
      const proxy = await startTcpProxy(ctx.databaseUrl);
      const printed: unknown[][] = [];
      const consoleError = console.error;
      try {
        const { app, db, logs } = appOn(proxy.url);
        const cookie = await sessionCookie();
        await request(app).get('/models').set('Cookie', cookie).expect(200);
        // The outage starts as the page queries, after its session was loaded: the page is a
        // 503, and the session's update as the response ends fails too. express-session
        // reports that once the request has been answered, which Express would print with
        // its stack and answer by cutting the connection.
        const pool = db.client.pool;
        if (!pool || !('on' in pool)) throw new Error("expected Knex's own pool");
        const cutOnFirstQuery = () => {
          pool.removeListener('acquireRequest', cutOnFirstQuery);
          void proxy.setMode('refuse');
        };
        pool.on('acquireRequest', cutOnFirstQuery);
        console.error = (...args: unknown[]) => printed.push(args);
        const res = await request(app).get('/models').set('Cookie', cookie);
        // The session's update fails after the response; give that failure time to surface.
        await new Promise((resolve) => setTimeout(resolve, 250));
        console.error = consoleError;
        expect(res.status).to.equal(503);
        expect(res.text).to.include(FRIENDLY_TEXT);
        expect(res.text.trimEnd()).to.match(/<\/html>$/);
        expect(printed, 'printed to the console').to.deep.equal([]);
        expect(outageLines(logs)).to.have.length(1);
        expectNoErrorDetails(logs);
      } finally {
        console.error = consoleError;
        await proxy.close();
      }
    });
  });
});
