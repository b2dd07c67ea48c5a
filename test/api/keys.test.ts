import { createHash, randomUUID } from 'node:crypto';
import { expect } from 'chai';
import request from 'supertest';
import { createKey, signedUpAgent, useTestApp, type TestContext } from '../helpers/app.ts';
import { expectValidationFailed } from '../helpers/assertions.ts';

const AUTH_REQUIRED = { error: 'Authentication required. Use a session cookie or Authorization: Bearer <api_key>' };
const KEY_FORMAT = /^bhk_[0-9a-f]{40}$/;
const CREATED_FIELDS = ['id', 'name', 'prefix', 'createdAt', 'expiresAt', 'key'];
const LISTED_FIELDS = ['id', 'name', 'prefix', 'createdAt', 'lastUsedAt', 'expiresAt'];

const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');
const bearer = (key: string) => `Bearer ${key}`;

/** The key's user as GET /api/me sees it, or the status when the key is refused. */
function whoIs(ctx: TestContext, key: string) {
  return request(ctx.app).get('/api/me').set('Authorization', bearer(key));
}

const keyRow = (ctx: TestContext, id: string) => ctx.db('api_keys').where({ id }).first();

async function keyCountOf(ctx: TestContext, username: string): Promise<number> {
  const user = await ctx.db('users').where({ username }).first('id');
  const [{ count }] = await ctx.db('api_keys').where({ user_id: user.id }).count('* as count');
  return Number(count);
}

describe('API keys through /api/keys', () => {
  const ctx = useTestApp();

  describe('creating a key', () => {
    // One account for the validation failures: none of them may leave a key behind.
    let invalid: Awaited<ReturnType<typeof signedUpAgent>>;
    before(async () => void (invalid = await signedUpAgent(ctx.app)));

    it('answers 201 with exactly id, name, prefix, createdAt, expiresAt and the key, never cached', async () => {
      const { agent, csrf } = await signedUpAgent(ctx.app);
      const before = Date.now();
      const res = await agent.post('/api/keys').set('X-CSRF-Token', csrf).send({ name: 'bench agent' }).expect(201);
      expect(res.body).to.have.all.keys(...CREATED_FIELDS);
      expect(res.body.key).to.match(KEY_FORMAT);
      expect(res.body.prefix).to.equal(res.body.key.slice(0, 8));
      expect(res.body).to.include({ name: 'bench agent', expiresAt: null });
      expect(res.body.id).to.match(/^[0-9a-f-]{36}$/);
      expect(Date.parse(res.body.createdAt)).to.be.within(before - 5000, Date.now() + 5000);
      expect(res.headers['cache-control']).to.equal('no-store');
    });

    it('stores only the SHA-256 of the key, never the key itself', async () => {
      const { agent, csrf } = await signedUpAgent(ctx.app);
      const created = await createKey(agent, csrf, { name: 'hashed' });
      const row = await keyRow(ctx, created.id);
      expect(row.key_hash).to.equal(sha256(created.key));
      expect(row.prefix).to.equal(created.prefix);
      for (const value of Object.values(row)) expect(String(value)).not.to.include(created.key.slice(4));
    });

    it('stores and returns a future expiresAt, normalised to UTC, and the key works until then', async () => {
      const { agent, csrf } = await signedUpAgent(ctx.app);
      const year = new Date().getUTCFullYear() + 2;
      const created = await createKey(agent, csrf, { name: 'expiring', expiresAt: `${year}-06-01T12:00:00+02:00` });
      expect(created.expiresAt).to.equal(`${year}-06-01T10:00:00.000Z`);
      expect((await keyRow(ctx, created.id)).expires_at.toISOString()).to.equal(`${year}-06-01T10:00:00.000Z`);
      expect((await whoIs(ctx, created.key)).status).to.equal(200);
    });

    const badExpiries: [string, unknown][] = [
      ['a past date-time', '2020-01-01T00:00:00Z'],
      ['a date-time a minute ago', () => new Date(Date.now() - 60_000).toISOString()],
      ['free text', 'next tuesday'],
      ['an impossible month', '2099-13-01T00:00:00Z'],
      ['a number', 4102444800000],
    ];
    for (const [label, value] of badExpiries) {
      it(`rejects ${label} as expiresAt with the 400 validation body and creates nothing`, async () => {
        const { agent, csrf, username } = invalid;
        const expiresAt = typeof value === 'function' ? value() : value;
        const res = await agent.post('/api/keys').set('X-CSRF-Token', csrf).send({ name: 'bad expiry', expiresAt });
        expectValidationFailed(res, ['expiresAt']);
        expect(await keyCountOf(ctx, username)).to.equal(0);
      });
    }

    it('rejects a missing, empty, blank or over-long name with fieldErrors.name', async () => {
      const { agent, csrf, username } = invalid;
      for (const body of [
        {},
        { name: '' },
        { name: '   ' },
        { name: 'x'.repeat(101) },
        { name: 42 },
        { name: 'tab\there' },
        { name: 'nul\u0000' },
      ]) {
        const res = await agent.post('/api/keys').set('X-CSRF-Token', csrf).send(body);
        expectValidationFailed(res, ['name']);
      }
      expect(await keyCountOf(ctx, username)).to.equal(0);
    });

    it('rejects unknown body fields with a field error naming each one', async () => {
      const { agent, csrf, username } = invalid;
      const res = await agent.post('/api/keys').set('X-CSRF-Token', csrf).send({ name: 'scoped', scope: 'admin', userId: randomUUID() });
      expectValidationFailed(res, ['scope', 'userId']);
      const builtIns = await agent
        .post('/api/keys')
        .set('X-CSRF-Token', csrf)
        .set('Content-Type', 'application/json')
        .send('{"name":"x","constructor":1,"__proto__":2}');
      expectValidationFailed(builtIns, ['__proto__', 'constructor']);
      expect(await keyCountOf(ctx, username)).to.equal(0);
    });
  });

  describe('listing keys', () => {
    it('lists the caller’s live keys newest first, with no secret or hash', async () => {
      const { agent, csrf } = await signedUpAgent(ctx.app);
      const created = [];
      for (const name of ['first', 'second', 'third']) created.push(await createKey(agent, csrf, { name }));
      const res = await agent.get('/api/keys').expect(200);
      expect(res.body).to.be.an('array').with.lengthOf(3);
      expect(res.body.map((k: { id: string }) => k.id)).to.deep.equal(created.map((k) => k.id).reverse());
      for (const [index, listed] of (res.body as Record<string, unknown>[]).entries()) {
        expect(listed).to.have.all.keys(...LISTED_FIELDS);
        const original = created[2 - index]!;
        expect(listed).to.deep.include({
          name: original.name,
          prefix: original.prefix,
          createdAt: original.createdAt,
          lastUsedAt: null,
          expiresAt: null,
        });
        expect(res.text).not.to.include(original.key.slice(4));
        expect(res.text).not.to.include(sha256(original.key));
      }
    });

    it('does not show another user’s keys', async () => {
      const alice = await signedUpAgent(ctx.app);
      const bob = await signedUpAgent(ctx.app);
      const alicesKey = await createKey(alice.agent, alice.csrf, { name: 'alice key' });
      const res = await bob.agent.get('/api/keys').expect(200);
      expect(res.body).to.deep.equal([]);
      expect(res.text).not.to.include(alicesKey.id);
    });
  });

  describe('using a key', () => {
    it('authenticates GET /api/me as the key’s owner, and records lastUsedAt on first use', async () => {
      const { agent, csrf, username } = await signedUpAgent(ctx.app);
      const created = await createKey(agent, csrf);
      expect((await keyRow(ctx, created.id)).last_used_at).to.equal(null);
      const res = await whoIs(ctx, created.key).expect(200);
      expect(res.body).to.include({ username, authenticatedWith: 'api_key' });
      const [listed] = (await agent.get('/api/keys').expect(200)).body;
      expect(listed.lastUsedAt).to.be.a('string');
      expect(Date.parse(listed.lastUsedAt)).to.be.within(Date.now() - 10_000, Date.now() + 5000);
    });

    it('does not rewrite lastUsedAt when it is only 30 s old', async () => {
      const { agent, csrf } = await signedUpAgent(ctx.app);
      const created = await createKey(agent, csrf);
      const recent = new Date(Date.now() - 30_000);
      await ctx.db('api_keys').where({ id: created.id }).update({ last_used_at: recent });
      await whoIs(ctx, created.key).expect(200);
      expect((await keyRow(ctx, created.id)).last_used_at.getTime()).to.equal(recent.getTime());
    });

    it('updates lastUsedAt when it is 2 minutes old', async () => {
      const { agent, csrf } = await signedUpAgent(ctx.app);
      const created = await createKey(agent, csrf);
      const old = new Date(Date.now() - 120_000);
      await ctx.db('api_keys').where({ id: created.id }).update({ last_used_at: old });
      await whoIs(ctx, created.key).expect(200);
      const updated: Date = (await keyRow(ctx, created.id)).last_used_at;
      expect(updated.getTime()).to.be.greaterThan(old.getTime() + 60_000);
      expect(updated.getTime()).to.be.within(Date.now() - 10_000, Date.now() + 5000);
    });
  });

  describe('revoking a key', () => {
    it('answers { ok: true }, then the key gives 401 and leaves the list; a second revoke is 404', async () => {
      const { agent, csrf } = await signedUpAgent(ctx.app);
      const kept = await createKey(agent, csrf, { name: 'kept' });
      const revoked = await createKey(agent, csrf, { name: 'revoked' });
      await whoIs(ctx, revoked.key).expect(200);

      const res = await agent.delete(`/api/keys/${revoked.id}`).set('X-CSRF-Token', csrf).expect(200);
      expect(res.body).to.deep.equal({ ok: true });
      expect((await whoIs(ctx, revoked.key).expect(401)).body).to.deep.equal(AUTH_REQUIRED);
      expect((await agent.get('/api/keys').expect(200)).body.map((k: { id: string }) => k.id)).to.deep.equal([kept.id]);
      expect((await keyRow(ctx, revoked.id)).revoked_at).to.be.instanceOf(Date);
      await whoIs(ctx, kept.key).expect(200);

      const again = await agent.delete(`/api/keys/${revoked.id}`).set('X-CSRF-Token', csrf).expect(404);
      expect(again.body.error).to.be.a('string');
    });

    it('answers 404 for another user’s key, the same as for an unknown id, and the key keeps working', async () => {
      const alice = await signedUpAgent(ctx.app);
      const bob = await signedUpAgent(ctx.app);
      const alicesKey = await createKey(alice.agent, alice.csrf);
      const theirs = await bob.agent.delete(`/api/keys/${alicesKey.id}`).set('X-CSRF-Token', bob.csrf).expect(404);
      const unknown = await bob.agent.delete(`/api/keys/${randomUUID()}`).set('X-CSRF-Token', bob.csrf).expect(404);
      expect(theirs.body).to.deep.equal(unknown.body);
      expect((await keyRow(ctx, alicesKey.id)).revoked_at).to.equal(null);
      expect((await whoIs(ctx, alicesKey.key).expect(200)).body.username).to.equal(alice.username);
    });

    it('answers a JSON 404 for a malformed id', async () => {
      const { agent, csrf } = await signedUpAgent(ctx.app);
      for (const id of ['not-a-uuid', '123', `${randomUUID()}x`, "1' or '1'='1"]) {
        const res = await agent
          .delete(`/api/keys/${encodeURIComponent(id)}`)
          .set('X-CSRF-Token', csrf)
          .expect(404);
        expect(res.type).to.equal('application/json');
        expect(res.body.error).to.be.a('string');
      }
    });
  });

  describe('the limit of 10 live keys', () => {
    it('accepts 10 keys and answers the 11th with 409, until a revoke frees a slot', async () => {
      const { agent, csrf, username } = await signedUpAgent(ctx.app);
      const keys = [];
      for (let i = 1; i <= 10; i += 1) keys.push(await createKey(agent, csrf, { name: `key ${i}` }));
      const eleventh = await agent.post('/api/keys').set('X-CSRF-Token', csrf).send({ name: 'key 11' }).expect(409);
      expect(eleventh.body).to.deep.equal({ error: 'API key limit reached (10)' });
      expect(await keyCountOf(ctx, username)).to.equal(10);

      await agent.delete(`/api/keys/${keys[0]!.id}`).set('X-CSRF-Token', csrf).expect(200);
      await agent.post('/api/keys').set('X-CSRF-Token', csrf).send({ name: 'replacement' }).expect(201);
      await agent.post('/api/keys').set('X-CSRF-Token', csrf).send({ name: 'one too many' }).expect(409);
    });

    it('does not count an expired key toward the limit', async () => {
      const { agent, csrf } = await signedUpAgent(ctx.app);
      const keys = [];
      for (let i = 1; i <= 10; i += 1) keys.push(await createKey(agent, csrf, { name: `key ${i}` }));
      await agent.post('/api/keys').set('X-CSRF-Token', csrf).send({ name: 'blocked' }).expect(409);
      await ctx
        .db('api_keys')
        .where({ id: keys[3]!.id })
        .update({ expires_at: new Date(Date.now() - 1000) });
      await agent.post('/api/keys').set('X-CSRF-Token', csrf).send({ name: 'after expiry' }).expect(201);
    });

    it('counts per user: one user at the limit does not block another', async () => {
      const full = await signedUpAgent(ctx.app);
      const other = await signedUpAgent(ctx.app);
      for (let i = 1; i <= 10; i += 1) await createKey(full.agent, full.csrf, { name: `key ${i}` });
      await other.agent.post('/api/keys').set('X-CSRF-Token', other.csrf).send({ name: 'mine' }).expect(201);
    });

    it('never overshoots the limit under concurrent creations', async () => {
      const { agent, csrf, username } = await signedUpAgent(ctx.app);
      for (let i = 1; i <= 8; i += 1) await createKey(agent, csrf, { name: `key ${i}` });
      // Hold every insert back until all racers are in flight, so each could see 8 live keys.
      const gate = await ctx.db.transaction();
      await gate.raw('lock table api_keys in share mode');
      const racing = Promise.all(
        Array.from({ length: 4 }, (_, i) =>
          agent
            .post('/api/keys')
            .set('X-CSRF-Token', csrf)
            .send({ name: `racer ${i}` }),
        ),
      );
      await new Promise((resolve) => setTimeout(resolve, 300));
      await gate.commit();
      const statuses = (await racing).map((r) => r.status).sort();
      expect(statuses).to.deep.equal([201, 201, 409, 409]);
      expect(await keyCountOf(ctx, username)).to.equal(10);
    });
  });

  describe('session only', () => {
    it('refuses a Bearer key on GET, POST and DELETE /api/keys with 403 and changes nothing', async () => {
      const { agent, csrf, username } = await signedUpAgent(ctx.app);
      const created = await createKey(agent, csrf);
      const auth = bearer(created.key);
      const list = await request(ctx.app).get('/api/keys').set('Authorization', auth).expect(403);
      const create = await request(ctx.app).post('/api/keys').set('Authorization', auth).send({ name: 'via key' }).expect(403);
      const revoke = await request(ctx.app).delete(`/api/keys/${created.id}`).set('Authorization', auth).expect(403);
      for (const res of [list, create, revoke]) {
        expect(res.body.error).to.be.a('string').and.not.equal('Invalid CSRF token');
        expect(res.text).not.to.include(created.prefix);
      }
      expect(await keyCountOf(ctx, username)).to.equal(1);
      expect((await keyRow(ctx, created.id)).revoked_at).to.equal(null);
    });

    it('answers 401 with the exact body when no credentials are given', async () => {
      const requests = [
        request(ctx.app).get('/api/keys'),
        request(ctx.app).post('/api/keys').send({ name: 'anonymous' }),
        request(ctx.app).delete(`/api/keys/${randomUUID()}`),
      ];
      for (const res of await Promise.all(requests)) {
        expect(res.status).to.equal(401);
        expect(res.body).to.deep.equal(AUTH_REQUIRED);
      }
      expect(Number((await ctx.db('api_keys').where({ name: 'anonymous' }).count('* as count'))[0]!.count)).to.equal(0);
    });
  });

  describe('CSRF protection for session requests', () => {
    it('refuses a session POST without or with a wrong X-CSRF-Token, creating no key', async () => {
      const { agent, csrf, username } = await signedUpAgent(ctx.app);
      const missing = await agent.post('/api/keys').send({ name: 'forged' }).expect(403);
      expect(missing.body).to.deep.equal({ error: 'Invalid CSRF token' });
      const wrong = await agent
        .post('/api/keys')
        .set('X-CSRF-Token', `${csrf.slice(0, -2)}xx`)
        .send({ name: 'forged' })
        .expect(403);
      expect(wrong.body).to.deep.equal({ error: 'Invalid CSRF token' });
      expect(await keyCountOf(ctx, username)).to.equal(0);
    });

    it('refuses a session DELETE without X-CSRF-Token, and the key stays live', async () => {
      const { agent, csrf } = await signedUpAgent(ctx.app);
      const created = await createKey(agent, csrf);
      const res = await agent.delete(`/api/keys/${created.id}`).expect(403);
      expect(res.body).to.deep.equal({ error: 'Invalid CSRF token' });
      expect((await keyRow(ctx, created.id)).revoked_at).to.equal(null);
      await whoIs(ctx, created.key).expect(200);
    });
  });
});

describe('API keys page /settings/keys', () => {
  const ctx = useTestApp();
  const SECRET_BOX = /<div class="secret-box" id="new-key">(bhk_[0-9a-f]{40})<\/div>/;

  it('sends a signed-out visitor to sign in and back', async () => {
    const res = await request(ctx.app).get('/settings/keys').expect(303);
    expect(res.headers.location).to.equal('/signin?next=%2Fsettings%2Fkeys');
  });

  it('creates a key through the form and shows the secret once, then only its prefix', async () => {
    const { agent, csrf, username } = await signedUpAgent(ctx.app);
    const res = await agent.post('/settings/keys').type('form').send({ name: 'form key', expiresAt: '', _csrf: csrf }).expect(201);
    expect(res.text).to.include('<html');
    expect(res.headers['cache-control']).to.equal('no-store');
    const key = SECRET_BOX.exec(res.text)?.[1];
    expect(key, 'secret box with the new key').to.be.a('string');
    expect(res.text).to.include('class="copy small" data-copy-target="#new-key"');
    const row = await ctx
      .db('api_keys')
      .where({ key_hash: sha256(key!) })
      .first();
    expect(row).to.include({ name: 'form key', prefix: key!.slice(0, 8), expires_at: null });
    expect((await whoIs(ctx, key!).expect(200)).body.username).to.equal(username);

    const page = await agent.get('/settings/keys').expect(200);
    expect(page.text).not.to.include(key!);
    expect(page.text).not.to.include('secret-box');
    expect(page.text).to.include(`<code>${key!.slice(0, 8)}…</code>`);
    expect(page.text).to.include('form key');
  });

  it('turns the form’s expiry day into the end of that UTC day', async () => {
    const { agent, csrf } = await signedUpAgent(ctx.app);
    const day = `${new Date().getUTCFullYear() + 1}-03-15`;
    const res = await agent.post('/settings/keys').type('form').send({ name: 'dated', expiresAt: day, _csrf: csrf }).expect(201);
    const key = SECRET_BOX.exec(res.text)![1]!;
    const row = await ctx
      .db('api_keys')
      .where({ key_hash: sha256(key) })
      .first();
    expect(row.expires_at.toISOString()).to.equal(`${day}T23:59:59.999Z`);
  });

  it('answers an htmx create with the #keys-panel fragment only', async () => {
    const { agent, csrf } = await signedUpAgent(ctx.app);
    const res = await agent
      .post('/settings/keys')
      .set({ 'HX-Request': 'true', 'X-CSRF-Token': csrf })
      .type('form')
      .send({ name: 'htmx key' })
      .expect(201);
    expect(res.text).not.to.include('<html');
    expect(res.text).not.to.include('<body');
    expect(res.text.trimStart()).to.match(/^<section id="keys-panel"/);
    expect(res.text).to.match(SECRET_BOX);
    expect(res.headers.vary).to.match(/HX-Request/i);
  });

  it('revokes over htmx with an empty 200, and the key then gives 401', async () => {
    const { agent, csrf } = await signedUpAgent(ctx.app);
    const created = await createKey(agent, csrf, { name: 'to revoke' });
    const page = await agent.get('/settings/keys').expect(200);
    expect(page.text).to.include(`hx-post="/settings/keys/${created.id}/revoke"`);
    expect(page.text).to.match(/hx-target="closest tr" hx-swap="delete"/);

    const res = await agent
      .post(`/settings/keys/${created.id}/revoke`)
      .set('HX-Request', 'true')
      .type('form')
      .send({ _csrf: csrf })
      .expect(200);
    expect(res.text).to.equal('');
    expect((await whoIs(ctx, created.key).expect(401)).body).to.deep.equal(AUTH_REQUIRED);
    expect((await agent.get('/api/keys').expect(200)).body).to.deep.equal([]);
  });

  it('revokes without htmx by redirecting 303 to the list', async () => {
    const { agent, csrf } = await signedUpAgent(ctx.app);
    const created = await createKey(agent, csrf);
    const res = await agent.post(`/settings/keys/${created.id}/revoke`).type('form').send({ _csrf: csrf }).expect(303);
    expect(res.headers.location).to.equal('/settings/keys');
    expect((await keyRow(ctx, created.id)).revoked_at).to.be.instanceOf(Date);
    expect((await agent.get('/settings/keys').expect(200)).text).not.to.include(created.prefix);
  });

  it('refuses a form revoke of another user’s key with 404 and leaves it live', async () => {
    const alice = await signedUpAgent(ctx.app);
    const bob = await signedUpAgent(ctx.app);
    const alicesKey = await createKey(alice.agent, alice.csrf);
    await bob.agent.post(`/settings/keys/${alicesKey.id}/revoke`).type('form').send({ _csrf: bob.csrf }).expect(404);
    await whoIs(ctx, alicesKey.key).expect(200);
  });

  it('re-renders the form with 400 and an inline error when the name is empty', async () => {
    const { agent, csrf, username } = await signedUpAgent(ctx.app);
    const res = await agent.post('/settings/keys').type('form').send({ name: '', expiresAt: '', _csrf: csrf }).expect(400);
    expect(res.text).to.match(/<p class="field-error" id="f-name-error">[^<]+<\/p>/);
    expect(res.text).to.include('aria-invalid="true"');
    expect(res.text).not.to.include('secret-box');
    expect(await keyCountOf(ctx, username)).to.equal(0);
  });

  it('re-renders with 400 and an inline error on expiresAt for a past day', async () => {
    const { agent, csrf, username } = await signedUpAgent(ctx.app);
    const res = await agent.post('/settings/keys').type('form').send({ name: 'old', expiresAt: '2020-01-01', _csrf: csrf }).expect(400);
    expect(res.text).to.match(/<p class="field-error" id="f-expiresAt-error">[^<]+<\/p>/);
    expect(res.text).to.include('value="old"');
    expect(await keyCountOf(ctx, username)).to.equal(0);
  });

  it('shows the limit message with 409 for an 11th key created through the form', async () => {
    const { agent, csrf, username } = await signedUpAgent(ctx.app);
    for (let i = 1; i <= 10; i += 1) await createKey(agent, csrf, { name: `key ${i}` });
    const res = await agent.post('/settings/keys').type('form').send({ name: 'eleventh', _csrf: csrf }).expect(409);
    expect(res.text).to.include('<div class="alert alert-error" role="alert">API key limit reached (10)</div>');
    expect(res.text).not.to.include('secret-box');
    expect(await keyCountOf(ctx, username)).to.equal(10);
  });

  it('refuses a form create without the CSRF token', async () => {
    const { agent, username } = await signedUpAgent(ctx.app);
    await agent.post('/settings/keys').type('form').send({ name: 'forged' }).expect(403);
    expect(await keyCountOf(ctx, username)).to.equal(0);
  });
});
