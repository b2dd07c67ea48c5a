import { randomUUID } from 'node:crypto';
import { expect } from 'chai';
import request from 'supertest';
import { createKey, signedUpAgent, useTestApp, type Agent, type TestContext } from '../helpers/app.ts';
import { expectValidationFailed } from '../helpers/assertions.ts';

const AUTH_REQUIRED = { error: 'Authentication required. Use a session cookie or Authorization: Bearer <api_key>' };
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

const HARDWARE_FIELDS = [
  'hwClass',
  'gpuName',
  'gpuCount',
  'vramGb',
  'gpus',
  'chipVendor',
  'chipFamily',
  'chipVariant',
  'unifiedMemoryGb',
  'npuTops',
  'cpu',
  'ramGb',
  'os',
  'powerWatts',
];
const ENGINE_FIELDS = ['engineName', 'engineVersion', 'backend', 'quantization', 'contextLength', 'batchSize'];
const FLAG_FIELDS = [
  'commandSnippet',
  'tensorParallel',
  'pipelineParallel',
  'gpuLayers',
  'cpuLayers',
  'cpuOffloadGb',
  'splitMode',
  'gpuMemUtil',
  'kvCacheDtype',
  'kvCacheSizeMb',
  'prefixCaching',
  'attentionBackend',
  'flashAttn',
  'chunkedPrefill',
  'prefillChunkSize',
  'contBatching',
  'maxRunningSeqs',
  'schedulerDelayFactor',
  'ropeScaling',
  'ropeScale',
  'yarnExtFactor',
  'engineQuant',
  'sglangQuant',
  'concurrency',
  'numParallel',
  'specDecoding',
  'specMethod',
  'specModel',
  'specDraftModel',
  'specNumTokens',
  'specNgramSize',
  'specDraftTp',
  'specDraftWindowSize',
  'mtpEnabled',
  'mtpDraftLayers',
  'temperature',
  'topP',
  'topK',
  'minP',
  'repeatPenalty',
  'mirostat',
  'extraFlags',
];
const SETUP_FIELDS = [
  'id',
  'name',
  'description',
  'isDefault',
  ...HARDWARE_FIELDS,
  ...ENGINE_FIELDS,
  ...FLAG_FIELDS,
  'createdAt',
  'updatedAt',
];

/** A full discrete-GPU setup as an agent would send it. */
function rigSetup(overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    name: '4090 rig',
    description: 'The box under the desk',
    hwClass: 'DISCRETE_GPU',
    gpuName: 'NVIDIA GeForce RTX 4090',
    gpuCount: 2,
    vramGb: 24,
    cpu: 'AMD Ryzen 9 7950X',
    ramGb: 64,
    os: 'linux',
    powerWatts: 900,
    engineName: 'llama.cpp',
    engineVersion: 'b4500',
    backend: 'cuda',
    quantization: 'Q4_K_M',
    contextLength: 8192,
    batchSize: 4,
    commandSnippet: './llama-server -m model.gguf -ngl 99 -fa',
    gpuLayers: 99,
    flashAttn: true,
    kvCacheDtype: 'q8_0',
    temperature: 0.7,
    mirostat: 2,
    ...overrides,
  };
}

type Browser = { agent: Agent; csrf: string; username: string };

function api(browser: Browser) {
  const send = (method: 'post' | 'patch' | 'delete', path: string, body?: object) => {
    const req = browser.agent[method](path).set('X-CSRF-Token', browser.csrf);
    return body === undefined ? req : req.send(body);
  };
  return {
    /** The setups of the default page (the whole cap). */
    async list() {
      const res = await browser.agent.get('/api/setups').expect(200);
      return Object.assign(res, { setups: res.body.setups as Record<string, any>[] });
    },
    page: (query: string) => browser.agent.get(`/api/setups?${query}`),
    get: (id: string) => browser.agent.get(`/api/setups/${id}`),
    create: (body: object) => send('post', '/api/setups', body),
    patch: (id: string, body: object) => send('patch', `/api/setups/${id}`, body),
    remove: (id: string) => send('delete', `/api/setups/${id}`),
    /** Creates and returns the setup, failing loudly otherwise. */
    async made(body: object) {
      const res = await send('post', '/api/setups', body);
      if (res.status !== 201) throw new Error(`setup creation failed with ${res.status}: ${JSON.stringify(res.body)}`);
      return res.body as Record<string, any>;
    },
  };
}

async function setupCount(ctx: TestContext, username: string): Promise<number> {
  const user = await ctx.db('users').whereRaw('lower(username) = lower(?)', [username]).first('id');
  const [{ count }] = await ctx.db('setups').where({ user_id: user.id }).count('* as count');
  return Number(count);
}

async function defaultsOf(ctx: TestContext, username: string): Promise<string[]> {
  const user = await ctx.db('users').whereRaw('lower(username) = lower(?)', [username]).first('id');
  return (await ctx.db('setups').where({ user_id: user.id, is_default: true }).select('id')).map((row) => row.id);
}

describe('saved setups through /api/setups', () => {
  const ctx = useTestApp();
  let alice: Browser;
  let bob: Browser;
  // A third account whose setups stay empty while its requests fail.
  let carol: Browser;

  before(async () => {
    alice = await signedUpAgent(ctx.app);
    bob = await signedUpAgent(ctx.app);
    carol = await signedUpAgent(ctx.app);
  });

  // The clock is frozen in tests; moving it apart gives each write its own timestamp.
  const tick = () => ctx.clock.advance(1000);

  describe('creating a setup', () => {
    it('answers 201 with every field (unset ones null), id, createdAt and updatedAt, and a Location', async () => {
      const res = await api(alice).create(rigSetup()).expect(201);
      expect(res.body).to.have.all.keys(...SETUP_FIELDS);
      expect(res.body.id).to.match(UUID);
      expect(res.headers.location).to.equal(`/api/setups/${res.body.id}`);
      expect(res.body).to.deep.include({
        name: '4090 rig',
        description: 'The box under the desk',
        isDefault: false,
        hwClass: 'DISCRETE_GPU',
        gpuName: 'NVIDIA GeForce RTX 4090',
        gpuCount: 2,
        vramGb: 24,
        powerWatts: 900,
        engineName: 'llama.cpp',
        quantization: 'Q4_K_M',
        contextLength: 8192,
        batchSize: 4,
        commandSnippet: './llama-server -m model.gguf -ngl 99 -fa',
        gpuLayers: 99,
        flashAttn: true,
        mirostat: 2,
        chipVendor: null,
        gpus: null,
        tensorParallel: null,
        extraFlags: null,
      });
      expect(res.body.createdAt).to.equal(ctx.clock.now().toISOString());
      expect(res.body.updatedAt).to.equal(res.body.createdAt);
      const row = await ctx.db('setups').where({ id: res.body.id }).first();
      expect(row).to.include({ name: '4090 rig', is_default: false });
      expect(row.config).to.include({ gpuName: 'NVIDIA GeForce RTX 4090', gpuLayers: 99 });
      expect(row.config).not.to.have.property('chipVendor');
    });

    it('accepts a partial setup: only a name, or engine fields with no hardware class', async () => {
      const bare = await api(alice).create({ name: 'just a name' }).expect(201);
      for (const field of [...HARDWARE_FIELDS, ...ENGINE_FIELDS, ...FLAG_FIELDS, 'description'])
        expect(bare.body[field], field).to.equal(null);
      expect(bare.body.isDefault).to.equal(false);
      // Hardware fields alone are checked one by one until hwClass says which apply.
      const partial = await api(alice)
        .create({ name: 'vllm flags', engineName: 'vllm', tensorParallel: 2, gpuName: 'NVIDIA H100' })
        .expect(201);
      expect(partial.body).to.deep.include({ engineName: 'vllm', tensorParallel: 2, gpuName: 'NVIDIA H100', hwClass: null, vramGb: null });
    });

    it('trims text, stores gpus slots with their default count, and a blank description as null', async () => {
      const res = await api(alice)
        .create({
          name: '  mixed box  ',
          description: '   ',
          hwClass: 'DISCRETE_GPU',
          gpus: [
            { gpuName: ' NVIDIA GeForce RTX 3090 ', vramGb: 24 },
            { gpuName: 'NVIDIA GeForce RTX 4090', count: 2, vramGb: 24 },
          ],
        })
        .expect(201);
      expect(res.body.name).to.equal('mixed box');
      expect(res.body.description).to.equal(null);
      expect(res.body.gpus).to.deep.equal([
        { gpuName: 'NVIDIA GeForce RTX 3090', count: 1, vramGb: 24 },
        { gpuName: 'NVIDIA GeForce RTX 4090', count: 2, vramGb: 24 },
      ]);
    });

    const invalid: [string, Record<string, unknown>, string[]][] = [
      ['a missing name', { name: undefined, gpuName: 'x' }, ['name']],
      ['an empty name', { name: '' }, ['name']],
      ['a blank name', { name: '   ' }, ['name']],
      ['a 101-character name', { name: 'x'.repeat(101) }, ['name']],
      ['a name with a control character', { name: 'tab\there' }, ['name']],
      ['a 2001-character description', { description: 'd'.repeat(2001) }, ['description']],
      ['isDefault as text', { isDefault: 'yes' }, ['isDefault']],
      ['an unknown hwClass', { hwClass: 'TPU' }, ['hwClass']],
      ['a negative vramGb and zero gpuCount', { vramGb: -1, gpuCount: 0 }, ['vramGb', 'gpuCount']],
      ['17 gpus slots', { gpus: Array.from({ length: 17 }, () => ({ gpuName: 'A', vramGb: 8 })) }, ['gpus']],
      ['an unknown engine', { engineName: 'my-engine' }, ['engineName']],
      ['a 65-character quantization', { quantization: 'q'.repeat(65) }, ['quantization']],
      ['contextLength 0 and a fractional batchSize', { contextLength: 0, batchSize: 1.5 }, ['contextLength', 'batchSize']],
      ['a 4001-character commandSnippet', { commandSnippet: 'x'.repeat(4001) }, ['commandSnippet']],
      [
        'flags out of bounds',
        { gpuMemUtil: 1.5, temperature: 101, mirostat: 3, flashAttn: 'on' },
        ['gpuMemUtil', 'temperature', 'mirostat', 'flashAttn'],
      ],
      [
        'unknown fields, including the nested submission shape',
        { hardware: { hwClass: 'CPU_ONLY' }, engineFlags: {}, owner: 'me' },
        ['hardware', 'engineFlags', 'owner'],
      ],
      ['a class without its required fields', { hwClass: 'DISCRETE_GPU', gpuCount: 2 }, ['gpuName', 'vramGb']],
      [
        'fields of another class',
        { hwClass: 'CPU_ONLY', cpu: 'AMD EPYC 9654', ramGb: 768, chipVendor: 'Apple', gpuName: 'x' },
        ['chipVendor', 'gpuName'],
      ],
      [
        'flat GPU fields next to gpus',
        { hwClass: 'DISCRETE_GPU', gpuName: 'A', vramGb: 8, gpus: [{ gpuName: 'B', vramGb: 8 }] },
        ['gpuName', 'vramGb'],
      ],
    ];
    for (const [label, body, fields] of invalid) {
      it(`rejects ${label} with the 400 validation body and writes nothing`, async () => {
        const res = await api(carol).create({ name: 'bad setup', ...body });
        expectValidationFailed(res, fields);
        expect(await setupCount(ctx, carol.username)).to.equal(0);
      });
    }

    it('uses the submission’s bounds and messages for the same fields', async () => {
      const bad = { engineName: 'my-engine', quantization: '', vramGb: -1, gpuMemUtil: 1.5, temperature: 101, contextLength: 0 };
      const setup = await api(carol).create({ name: 'mirror', ...bad });
      const dryRun = await carol.agent
        .post('/api/speed-tests/dry-run')
        .set('X-CSRF-Token', carol.csrf)
        .send({
          hfId: 'org/model',
          engineName: bad.engineName,
          quantization: bad.quantization,
          tokSOut: 10,
          contextLength: bad.contextLength,
          hardware: { hwClass: 'DISCRETE_GPU', gpuName: 'A', vramGb: bad.vramGb },
          engineFlags: { commandSnippet: 'x', gpuMemUtil: bad.gpuMemUtil, temperature: bad.temperature },
        });
      expect(dryRun.status).to.equal(400);
      const submission = dryRun.body.details.fieldErrors;
      const saved = setup.body.details.fieldErrors;
      expect(saved.engineName).to.deep.equal(submission.engineName);
      expect(saved.quantization).to.deep.equal(submission.quantization);
      expect(saved.contextLength).to.deep.equal(submission.contextLength);
      expect(saved.vramGb).to.deep.equal(submission['hardware.vramGb']);
      expect(saved.gpuMemUtil).to.deep.equal(submission['engineFlags.gpuMemUtil']);
      expect(saved.temperature).to.deep.equal(submission['engineFlags.temperature']);
    });
  });

  describe('reading setups', () => {
    it('lists only the caller’s setups: the default first, then the most recently updated', async () => {
      const mine = api(bob);
      tick();
      const first = await mine.made({ name: 'first' });
      tick();
      const second = await mine.made({ name: 'second' });
      tick();
      const third = await mine.made({ name: 'third' });
      const ids = async () => (await mine.list()).setups.map((s) => s.id);
      expect(await ids()).to.deep.equal([third.id, second.id, first.id]);

      tick();
      await mine.patch(first.id, { description: 'touched' }).expect(200);
      expect(await ids()).to.deep.equal([first.id, third.id, second.id]);

      tick();
      await mine.patch(second.id, { isDefault: true }).expect(200);
      expect(await ids()).to.deep.equal([second.id, first.id, third.id]);
      const listed = (await mine.list()).setups;
      expect(listed[0]).to.have.all.keys(...SETUP_FIELDS);
      expect(listed.map((s) => s.isDefault)).to.deep.equal([true, false, false]);
      for (const other of (await api(alice).list()).setups) expect([first.id, second.id, third.id]).not.to.include(other.id);
    });

    it('pages with limit and offset in the usual shape: { setups, total, limit, offset }', async () => {
      const dave = api(await signedUpAgent(ctx.app));
      const made = [];
      for (const name of ['a', 'b', 'c', 'd', 'e']) {
        tick();
        made.unshift((await dave.made({ name })).id);
      }
      const whole = await dave.list();
      expect(whole.body).to.have.all.keys('setups', 'total', 'limit', 'offset');
      expect(whole.body).to.deep.include({ total: 5, limit: 50, offset: 0 });
      expect(whole.setups.map((s) => s.id)).to.deep.equal(made);

      const page = await dave.page('limit=2&offset=1').expect(200);
      expect(page.body).to.deep.include({ total: 5, limit: 2, offset: 1 });
      expect(page.body.setups.map((s: { id: string }) => s.id)).to.deep.equal(made.slice(1, 3));
      expect((await dave.page('offset=5').expect(200)).body).to.deep.include({ setups: [], total: 5 });
    });

    for (const [query, field, message] of [
      ['limit=51', 'limit', 'Must be at most 50'],
      ['limit=0', 'limit', 'Must be at least 1'],
      ['offset=-1', 'offset', 'Must be a whole number'],
      ['limit=2&limit=3', 'limit', 'Must be given once'],
      ['page=2', 'page', 'Unknown field'],
    ] as const) {
      it(`answers ${query} with the 400 validation body`, async () => {
        const res = await api(alice).page(query);
        expectValidationFailed(res, [field]);
        expect(res.body.details.fieldErrors[field][0]).to.include(message);
      });
    }

    it('answers GET /api/setups/:id with the setup as created', async () => {
      const created = await api(alice).made(rigSetup({ name: 'read me' }));
      const res = await api(alice).get(created.id).expect(200);
      expect(res.body).to.deep.equal(created);
    });
  });

  describe('updating a setup', () => {
    it('changes only the fields given and moves updatedAt', async () => {
      const created = await api(alice).made(rigSetup({ name: 'patch me' }));
      tick();
      const res = await api(alice)
        .patch(created.id, { description: 'Moved to the lab', gpuLayers: 80, engineVersion: 'b4600' })
        .expect(200);
      expect(res.body).to.deep.equal({
        ...created,
        description: 'Moved to the lab',
        gpuLayers: 80,
        engineVersion: 'b4600',
        updatedAt: ctx.clock.now().toISOString(),
      });
      expect(res.body.updatedAt).not.to.equal(created.updatedAt);
      expect((await api(alice).get(created.id)).body).to.deep.equal(res.body);
    });

    it('clears nullable fields given as null', async () => {
      const created = await api(alice).made(rigSetup({ name: 'clear me' }));
      const res = await api(alice)
        .patch(created.id, { description: null, gpuCount: null, flashAttn: null, commandSnippet: null, powerWatts: null })
        .expect(200);
      expect(res.body).to.deep.include({
        description: null,
        gpuCount: null,
        flashAttn: null,
        commandSnippet: null,
        powerWatts: null,
        gpuName: created.gpuName,
        gpuLayers: 99,
      });
      const row = await ctx.db('setups').where({ id: created.id }).first();
      expect(row.config).not.to.have.any.keys('gpuCount', 'flashAttn', 'commandSnippet', 'powerWatts');
    });

    it('answers an empty PATCH with the setup unchanged', async () => {
      const created = await api(alice).made({ name: 'untouched' });
      tick();
      expect((await api(alice).patch(created.id, {}).expect(200)).body).to.deep.equal(created);
    });

    it('changes the hardware class only together with clearing the fields it does not take', async () => {
      const created = await api(alice).made(rigSetup({ name: 'to cpu' }));
      const refused = await api(alice).patch(created.id, { hwClass: 'CPU_ONLY' });
      expectValidationFailed(refused, ['gpuName', 'gpuCount', 'vramGb', 'powerWatts']);
      expect(refused.body.details.fieldErrors.gpuName[0]).to.match(/Does not apply to hwClass CPU_ONLY/);
      expect((await api(alice).get(created.id)).body).to.deep.equal(created);

      const res = await api(alice)
        .patch(created.id, { hwClass: 'CPU_ONLY', gpuName: null, gpuCount: null, vramGb: null, powerWatts: null })
        .expect(200);
      expect(res.body).to.deep.include({ hwClass: 'CPU_ONLY', cpu: 'AMD Ryzen 9 7950X', ramGb: 64, gpuName: null, vramGb: null });
    });

    it('checks the class on the setup as it would be stored: clearing a required field is a 400', async () => {
      const created = await api(alice).made(rigSetup({ name: 'keep vram' }));
      expectValidationFailed(await api(alice).patch(created.id, { vramGb: null }), ['vramGb']);
      // Without a class the same field may go.
      const loose = await api(alice).made({ name: 'loose', gpuName: 'A', vramGb: 8 });
      expect((await api(alice).patch(loose.id, { vramGb: null }).expect(200)).body.vramGb).to.equal(null);
    });

    const invalidPatches: [string, Record<string, unknown>, string[]][] = [
      ['a null name', { name: null }, ['name']],
      ['an empty name', { name: '' }, ['name']],
      ['a null isDefault', { isDefault: null }, ['isDefault']],
      ['bad values', { vramGb: 0, topP: 2, engineName: 'LLAMA.CPP' }, ['vramGb', 'topP', 'engineName']],
      ['an unknown field', { id: randomUUID(), createdAt: '2020-01-01T00:00:00Z' }, ['id', 'createdAt']],
    ];
    for (const [label, body, fields] of invalidPatches) {
      it(`rejects a PATCH with ${label} (400 with the shape) and changes nothing`, async () => {
        const created = await api(alice).made(rigSetup({ name: `invalid patch: ${label}` }));
        tick();
        expectValidationFailed(await api(alice).patch(created.id, body), fields);
        expect((await api(alice).get(created.id)).body).to.deep.equal(created);
      });
    }
  });

  describe('deleting a setup', () => {
    it('answers 204 with no body; the setup is gone from GET and the list, and a second DELETE is 404', async () => {
      const created = await api(alice).made({ name: 'doomed' });
      const res = await api(alice).remove(created.id).expect(204);
      expect(res.text).to.equal('');
      expect(res.headers['content-type']).to.equal(undefined);
      await api(alice).get(created.id).expect(404);
      expect((await api(alice).list()).setups.map((s) => s.id)).not.to.include(created.id);
      expect(await ctx.db('setups').where({ id: created.id }).first()).to.equal(undefined);
      await api(alice).remove(created.id).expect(404);
    });
  });

  describe('names', () => {
    it('answers 409 for a name the user already has, in any case, on create and on rename', async () => {
      await api(alice).made({ name: 'Office Box' });
      const other = await api(alice).made({ name: 'Home box' });
      const count = await setupCount(ctx, alice.username);
      const dup = await api(alice).create({ name: 'office box' }).expect(409);
      expect(dup.body).to.deep.equal({ error: 'You already have a setup with this name' });
      const rename = await api(alice).patch(other.id, { name: 'OFFICE BOX' }).expect(409);
      expect(rename.body).to.deep.equal({ error: 'You already have a setup with this name' });
      expect((await api(alice).get(other.id)).body.name).to.equal('Home box');
      expect(await setupCount(ctx, alice.username)).to.equal(count);
      // Renaming a setup to its own name in another case is fine.
      expect((await api(alice).patch(other.id, { name: 'HOME BOX' }).expect(200)).body.name).to.equal('HOME BOX');
    });

    it('lets another user use the same name', async () => {
      await api(alice).made({ name: 'Shared Name' });
      await api(bob).create({ name: 'shared name' }).expect(201);
    });
  });

  describe('the cap of 50 setups per account', () => {
    it('answers the 51st with 409 and a clear message, on the API and the settings page, and stores nothing', async () => {
      const erin = await signedUpAgent(ctx.app);
      const user = await ctx.db('users').whereRaw('lower(username) = lower(?)', [erin.username]).first('id');
      const now = ctx.clock.now();
      await ctx
        .db('setups')
        .insert(
          Array.from({ length: 49 }, (_, i) => ({ user_id: user.id, name: `filler ${i}`, config: '{}', created_at: now, updated_at: now })),
        );
      await api(erin).create({ name: 'the fiftieth' }).expect(201);

      const res = await api(erin).create({ name: 'one too many' }).expect(409);
      expect(res.body).to.deep.equal({ error: 'Setup limit reached (50): delete one you no longer use first' });
      const page = await erin.agent.post('/settings/setups').type('form').send({ _csrf: erin.csrf, name: 'from the page' }).expect(409);
      expect(page.text).to.include('Setup limit reached (50)');
      expect(await setupCount(ctx, erin.username)).to.equal(50);

      // Deleting one makes room again.
      const [first] = (await api(erin).list()).setups;
      await api(erin).remove(first!.id).expect(204);
      await api(erin).create({ name: 'room again' }).expect(201);
    });

    it('lets no more than 50 through when 10 creations race for the last 5 places', async () => {
      const frank = await signedUpAgent(ctx.app);
      const user = await ctx.db('users').whereRaw('lower(username) = lower(?)', [frank.username]).first('id');
      const now = ctx.clock.now();
      await ctx
        .db('setups')
        .insert(
          Array.from({ length: 45 }, (_, i) => ({ user_id: user.id, name: `filler ${i}`, config: '{}', created_at: now, updated_at: now })),
        );
      const statuses = (await Promise.all(Array.from({ length: 10 }, (_, i) => api(frank).create({ name: `racer ${i}` })))).map(
        (res) => res.status,
      );
      expect(statuses.filter((s) => s === 201)).to.have.length(5);
      expect(statuses.filter((s) => s === 409)).to.have.length(5);
      expect(await setupCount(ctx, frank.username)).to.equal(50);
    });
  });

  describe('the default setup', () => {
    it('keeps one default: a new default clears the old one, on create and on PATCH', async () => {
      const a = await api(alice).made({ name: 'default A', isDefault: true });
      expect(a.isDefault).to.equal(true);
      expect(await defaultsOf(ctx, alice.username)).to.deep.equal([a.id]);
      const b = await api(alice).made({ name: 'default B', isDefault: true });
      expect(await defaultsOf(ctx, alice.username)).to.deep.equal([b.id]);
      expect((await api(alice).get(a.id)).body.isDefault).to.equal(false);
      await api(alice).patch(a.id, { isDefault: true }).expect(200);
      expect(await defaultsOf(ctx, alice.username)).to.deep.equal([a.id]);
      expect((await api(alice).list()).setups[0]!.id).to.equal(a.id);
      // Unsetting leaves no default at all.
      await api(alice).patch(a.id, { isDefault: false }).expect(200);
      expect(await defaultsOf(ctx, alice.username)).to.deep.equal([]);
      // Deleting the default leaves none either.
      await api(alice).patch(b.id, { isDefault: true }).expect(200);
      await api(alice).remove(b.id).expect(204);
      expect(await defaultsOf(ctx, alice.username)).to.deep.equal([]);
    });

    it('leaves exactly one default after 20 concurrent "make default" requests, all answered 200', async () => {
      const setups = [];
      for (let i = 0; i < 10; i += 1) setups.push(await api(bob).made({ name: `racer ${i}` }));
      const targets = [...setups, ...setups].map((s) => s.id);
      const responses = await Promise.all(targets.map((id) => api(bob).patch(id, { isDefault: true })));
      expect(responses.map((r) => r.status)).to.deep.equal(targets.map(() => 200));
      for (const res of responses) expect(res.body.isDefault).to.equal(true);
      const defaults = await defaultsOf(ctx, bob.username);
      expect(defaults).to.have.lengthOf(1);
      expect(targets).to.include(defaults[0]);
      const listed = (await api(bob).list()).setups;
      expect(listed.filter((s) => s.isDefault).map((s) => s.id)).to.deep.equal(defaults);
      expect(listed[0].id).to.equal(defaults[0]);
    });

    it('leaves exactly one default after 10 concurrent creations marked default, all answered 201', async () => {
      const responses = await Promise.all(
        Array.from({ length: 10 }, (_, i) => api(carol).create({ name: `concurrent default ${i}`, isDefault: true })),
      );
      expect(responses.map((r) => r.status)).to.deep.equal(responses.map(() => 201));
      expect(await defaultsOf(ctx, carol.username)).to.have.lengthOf(1);
      await Promise.all(responses.map((r) => api(carol).remove(r.body.id).expect(204)));
    });
  });

  describe('ownership', () => {
    it('answers 404 for another user’s setup on GET, PATCH and DELETE, the same as for an unknown id', async () => {
      const alicesSetup = await api(alice).made(rigSetup({ name: 'mine alone' }));
      const unknown = randomUUID();
      const theirs = [
        await api(bob).get(alicesSetup.id),
        await api(bob).patch(alicesSetup.id, { name: 'stolen', isDefault: true }),
        await api(bob).remove(alicesSetup.id),
      ];
      const none = [await api(bob).get(unknown), await api(bob).patch(unknown, { name: 'x' }), await api(bob).remove(unknown)];
      for (const [index, res] of theirs.entries()) {
        expect(res.status).to.equal(404);
        expect(res.body).to.deep.equal(none[index]!.body);
        expect(res.text).not.to.include('mine alone');
      }
      expect((await api(alice).get(alicesSetup.id).expect(200)).body).to.deep.equal(alicesSetup);
    });

    it('answers a JSON 404 for ids that are not uuids', async () => {
      for (const id of ['not-a-uuid', '123', `${randomUUID()}x`, "1' or '1'='1"]) {
        for (const res of [
          await api(alice).get(encodeURIComponent(id)),
          await api(alice).patch(encodeURIComponent(id), {}),
          await api(alice).remove(encodeURIComponent(id)),
        ]) {
          expect(res.status).to.equal(404);
          expect(res.type).to.equal('application/json');
          expect(res.body).to.deep.equal({ error: 'Setup not found' });
        }
      }
    });
  });

  describe('session only', () => {
    // DECISIONS.md "API keys": one answer for a key on every session-only endpoint, the keys' 403.
    it('refuses a valid Bearer key with 403 on every setups call and changes nothing', async () => {
      const owner = alice;
      const created = await api(owner).made({ name: 'key cannot touch' });
      const { key } = await createKey(owner.agent, owner.csrf);
      const auth = { Authorization: `Bearer ${key}` };
      const count = await setupCount(ctx, owner.username);
      const responses = [
        await request(ctx.app).get('/api/setups').set(auth),
        await request(ctx.app).post('/api/setups').set(auth).send({ name: 'via key' }),
        await request(ctx.app).get(`/api/setups/${created.id}`).set(auth),
        await request(ctx.app).patch(`/api/setups/${created.id}`).set(auth).send({ name: 'renamed by key' }),
        await request(ctx.app).delete(`/api/setups/${created.id}`).set(auth),
      ];
      for (const res of responses) {
        expect(res.status).to.equal(403);
        expect(res.body.error).to.match(/signed-in browser session/);
        expect(res.text).not.to.include('key cannot touch');
      }
      expect(await setupCount(ctx, owner.username)).to.equal(count);
      expect((await api(owner).get(created.id)).body.name).to.equal('key cannot touch');
      // The same key still works where keys are accepted.
      await request(ctx.app).get('/api/me').set(auth).expect(200);
    });

    it('answers 401 with the exact body when no credentials are given', async () => {
      const id = randomUUID();
      const responses = [
        await request(ctx.app).get('/api/setups'),
        await request(ctx.app).post('/api/setups').send({ name: 'anonymous' }),
        await request(ctx.app).get(`/api/setups/${id}`),
        await request(ctx.app).patch(`/api/setups/${id}`).send({ name: 'anonymous' }),
        await request(ctx.app).delete(`/api/setups/${id}`),
      ];
      for (const res of responses) {
        expect(res.status).to.equal(401);
        expect(res.body).to.deep.equal(AUTH_REQUIRED);
      }
      expect(await ctx.db('setups').where({ name: 'anonymous' }).first()).to.equal(undefined);
    });
  });

  describe('CSRF protection for session requests', () => {
    it('refuses POST, PATCH and DELETE without or with a wrong X-CSRF-Token, writing nothing', async () => {
      const created = await api(alice).made({ name: 'csrf target' });
      const wrong = `${alice.csrf.slice(0, -2)}xx`;
      const responses = [
        await alice.agent.post('/api/setups').send({ name: 'forged' }),
        await alice.agent.post('/api/setups').set('X-CSRF-Token', wrong).send({ name: 'forged' }),
        await alice.agent.patch(`/api/setups/${created.id}`).send({ name: 'forged' }),
        await alice.agent.delete(`/api/setups/${created.id}`).set('X-CSRF-Token', wrong),
      ];
      for (const res of responses) {
        expect(res.status).to.equal(403);
        expect(res.body).to.deep.equal({ error: 'Invalid CSRF token' });
      }
      expect(await ctx.db('setups').where({ name: 'forged' }).first()).to.equal(undefined);
      expect((await api(alice).get(created.id).expect(200)).body.name).to.equal('csrf target');
    });
  });
});

describe('saved setups in API revision 1', () => {
  const ctx = useTestApp({ API_REVISION: '1' });
  let user: Browser;
  before(async () => void (user = await signedUpAgent(ctx.app)));

  it('applies the revision’s bounds and refuses its missing flags', async () => {
    const setups = api(user);
    const res = await setups.create({ name: 'rev1', engineName: 'exllamav3', temperature: 3, specDraftWindowSize: 4 });
    expectValidationFailed(res, ['engineName', 'temperature', 'specDraftWindowSize']);
    expect(res.body.details.fieldErrors.specDraftWindowSize).to.deep.equal(['Not accepted in API revision 1']);
    const ok = await setups.create({ name: 'rev1', engineName: 'vllm', temperature: 1.5 }).expect(201);
    expect(ok.body).not.to.have.property('specDraftWindowSize');
    expect(ok.body).to.include({ engineName: 'vllm', temperature: 1.5 });
  });
});
