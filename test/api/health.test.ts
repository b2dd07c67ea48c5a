import { expect } from 'chai';
import request from 'supertest';
import { createApp } from '../../src/app.ts';
import { createDb } from '../../src/db/knex.ts';
import { createLogger } from '../../src/logger.ts';
import { testConfig, useTestApp } from '../helpers/app.ts';
import { waitFor } from '../helpers/read-index.ts';

describe('GET /healthz', () => {
  const ctx = useTestApp({ API_REVISION: '2' });

  it('answers 200 with the revision when the database answers, and how reads are answered', async () => {
    const res = await request(ctx.app).get('/healthz').expect(200);
    expect(res.body).to.include({ ok: true, revision: 2 });
    expect(res.headers['cache-control']).to.equal('no-store');
    // Through the database until the read index is built, then from it.
    expect(res.body.readIndex.state).to.be.oneOf(['building', 'ready']);
    await waitFor(async () => (await request(ctx.app).get('/healthz')).body.readIndex.state === 'ready', 10_000, 'index built');
    await waitFor(async () => !(await request(ctx.app).get('/healthz')).body.readIndex.documents.filling, 10_000, 'documents filled');
    expect((await request(ctx.app).get('/healthz').expect(200)).body).to.deep.equal({
      ok: true,
      revision: 2,
      readIndex: { state: 'ready', runs: 0, documents: { store: 'file', held: 0, filling: false } },
    });
    const off = ctx.appWith({ READ_INDEX: 'off' });
    expect((await request(off).get('/healthz').expect(200)).body).to.deep.equal({
      ok: true,
      revision: 2,
      readIndex: { state: 'off', runs: null },
    });
  });

  it('answers 503 { ok: false } when the database does not answer', async () => {
    // Port 1 on loopback: nothing listens there, so every connection is refused.
    const deadUrl = 'postgres://postgres@127.0.0.1:1/nothing';
    const db = createDb(deadUrl);
    const app = createApp({ db, config: testConfig(), logger: createLogger('silent'), databaseUrl: deadUrl });
    try {
      const res = await request(app).get('/healthz').expect(503);
      expect(res.body).to.deep.equal({ ok: false });
    } finally {
      await app.locals.close();
      await db.destroy();
    }
  });
});
