/**
 * Stated vs defaulted (issue 16, parts 3 and 5): fields a submission leaves out are stored
 * with the spec's defaults and listed in `defaultedFields`; what the launch command states
 * fills them first and counts as stated; explicit fields always win.
 */
import { expect } from 'chai';
import request from 'supertest';
import { useTestApp } from '../helpers/app.ts';
import { validSubmission } from '../helpers/fixtures.ts';
import { csvRecords } from '../helpers/leaderboard.ts';
import { account, submitRun, type Account } from '../helpers/moderation.ts';

type Body = Record<string, unknown>;

const EVERY_DEFAULTED = ['modelRevision', 'promptTokens', 'outputTokens', 'contextLength', 'batchSize', 'prefillTokens'];
const SPEC_VALUES = { modelRevision: 'main', promptTokens: 0, outputTokens: 0, contextLength: 2048, batchSize: 1, prefillTokens: 0 };

describe('stated and defaulted fields of a speed-test run', () => {
  const ctx = useTestApp({ API_REVISION: '3' }, { fakeHub: true });
  let who: Account;

  before(async () => {
    who = await account(ctx, 'stated');
  });

  const dryRun = (body: Body) =>
    request(ctx.app).post('/api/speed-tests/dry-run').set('Authorization', `Bearer ${who.key}`).send(validSubmission(body));
  const stored = async (id: string) => (await request(ctx.app).get(`/api/speed-tests/${id}`).expect(200)).body;

  describe('the dry-run answer', () => {
    it('keeps the spec values of fields left out and lists them in defaultedFields', async () => {
      const { body } = await dryRun({}).expect(200);
      expect(body.parsed).to.deep.include(SPEC_VALUES);
      expect(body.parsed.defaultedFields).to.deep.equal(EVERY_DEFAULTED);
    });

    it('does not list fields given explicitly, even when they equal the spec default', async () => {
      const { body } = await dryRun({ contextLength: 2048, batchSize: 1, promptTokens: 0, modelRevision: 'main' }).expect(200);
      expect(body.parsed.defaultedFields).to.deep.equal(['outputTokens', 'prefillTokens']);
    });

    it('lists nothing when every field is stated', async () => {
      const { body } = await dryRun({ ...SPEC_VALUES, contextLength: 8192 }).expect(200);
      expect(body.parsed.defaultedFields).to.deep.equal([]);
      expect(body.parsed.contextLength).to.equal(8192);
    });

    it('fills context length from the command, says so in filledFields and does not list it as defaulted', async () => {
      const engineFlags = { commandSnippet: 'vllm serve org/x --max-model-len 16384 -tp 2' };
      const { body } = await dryRun({ engineName: 'vllm', engineFlags }).expect(200);
      expect(body.parsed.contextLength).to.equal(16384);
      expect(body.parsed.commandSnippetFlags).to.deep.include({ filledFields: ['contextLength'] });
      expect(body.parsed.defaultedFields).to.deep.equal(['modelRevision', 'promptTokens', 'outputTokens', 'batchSize', 'prefillTokens']);
      // The model id the command names does not replace the required hfId of the body.
      expect(body.parsed.hfId).to.equal(validSubmission().hfId);
    });

    it("fills llama-bench's prompt, output and depth sizes from the command", async () => {
      const engineFlags = { commandSnippet: './build/bin/llama-bench -m model.gguf -p 512 -n 128 -d 4096 -b 2048 -ngl 99' };
      const { body } = await dryRun({ engineFlags }).expect(200);
      expect(body.parsed).to.deep.include({ promptTokens: 512, outputTokens: 128, prefillTokens: 4096, batchSize: 1 });
      expect(body.parsed.commandSnippetFlags.filledFields).to.deep.equal(['promptTokens', 'outputTokens', 'prefillTokens']);
      // -b is llama-bench's prompt batch in tokens: batchSize stays unstated.
      expect(body.parsed.defaultedFields).to.deep.equal(['modelRevision', 'contextLength', 'batchSize']);
    });

    it('lets explicit fields win over the command', async () => {
      const engineFlags = { commandSnippet: 'llama-server -m m.gguf -c 8192 -ngl 99' };
      const { body } = await dryRun({ contextLength: 4096, engineFlags }).expect(200);
      expect(body.parsed.contextLength).to.equal(4096);
      expect(body.parsed.commandSnippetFlags.filledFields).to.deep.equal([]);
      expect(body.parsed.defaultedFields).to.not.include('contextLength');
    });

    it("reads Ollama's environment settings into the flags", async () => {
      const engineFlags = { commandSnippet: 'OLLAMA_FLASH_ATTENTION=1 OLLAMA_KV_CACHE_TYPE=q8_0 OLLAMA_NUM_PARALLEL=4 ollama serve' };
      const { body } = await dryRun({ engineName: 'ollama', engineFlags }).expect(200);
      expect(body.parsed.engineFlags).to.deep.include({ flashAttn: true, kvCacheDtype: 'q8_0', concurrency: 4 });
    });

    it("answers 400 on the command when a value it states breaks the field's bound", async () => {
      const engineFlags = { commandSnippet: 'vllm serve org/x --max-model-len -5' };
      const { body } = await dryRun({ engineName: 'vllm', engineFlags }).expect(400);
      expect(body.details.fieldErrors['engineFlags.commandSnippet']).to.deep.equal([
        'contextLength read from the command: Must be at least 1',
      ]);
    });
  });

  describe('the stored run', () => {
    it('answers defaultedFields on submission, on GET, in the list and on the leaderboard', async () => {
      const run = await submitRun(ctx, who, { contextLength: 2048, notes: 'one default given' });
      expect(run).to.deep.include({ contextLength: 2048, promptTokens: 0, batchSize: 1 });
      expect(run.defaultedFields).to.deep.equal(['modelRevision', 'promptTokens', 'outputTokens', 'batchSize', 'prefillTokens']);
      expect((await stored(run.id)).defaultedFields).to.deep.equal(run.defaultedFields);
      const list = (await request(ctx.app).get('/api/speed-tests').query({ userId: who.id }).expect(200)).body.benchmarks;
      expect(list.find((r: Body) => r.id === run.id).defaultedFields).to.deep.equal(run.defaultedFields);
      const rows = (await request(ctx.app).get('/api/leaderboard').query({ limit: 200 }).expect(200)).body.rows;
      expect(rows.find((r: Body) => r.id === run.id).defaultedFields).to.deep.equal(run.defaultedFields);
    });

    it('stores context length and llama-bench sizes read from a command-only submission as stated', async () => {
      const run = await submitRun(ctx, who, { engineFlags: { commandSnippet: 'llama-bench -m m.gguf -p 1024 -n 256 -ngl 99' } });
      expect(run).to.deep.include({ promptTokens: 1024, outputTokens: 256 });
      expect(run.defaultedFields).to.deep.equal(['modelRevision', 'contextLength', 'batchSize', 'prefillTokens']);
      const server = await submitRun(ctx, who, { engineFlags: { commandSnippet: './llama-server -m m.gguf --ctx-size 32768' } });
      expect(server.contextLength).to.equal(32768);
      expect(server.defaultedFields).to.not.include('contextLength');
      const row = await ctx.db('speed_test_runs').where({ id: server.id }).first('context_length', 'defaulted_fields');
      expect(row).to.deep.equal({
        context_length: 32768,
        defaulted_fields: ['modelRevision', 'promptTokens', 'outputTokens', 'batchSize', 'prefillTokens'],
      });
    });

    it("keeps the spec value stored, so the leaderboard's context bucket still finds a run without one", async () => {
      const run = await submitRun(ctx, who, { notes: 'no context given' });
      expect(run.defaultedFields).to.include('contextLength');
      const inBucket = (await request(ctx.app).get('/api/leaderboard').query({ contextLen: 2048, limit: 200 }).expect(200)).body.rows;
      expect(inBucket.map((r: Body) => r.id)).to.include(run.id);
      const above = (await request(ctx.app).get('/api/leaderboard').query({ contextLen: 4096, limit: 200 }).expect(200)).body.rows;
      expect(above.map((r: Body) => r.id)).to.not.include(run.id);
    });

    it('answers null (unknown) for a run stored before defaulted fields were recorded', async () => {
      const run = await submitRun(ctx, who, { notes: 'an old run' });
      await ctx.db('speed_test_runs').where({ id: run.id }).update({ defaulted_fields: null });
      expect((await stored(run.id)).defaultedFields).to.equal(null);
    });
  });

  describe('the exports', () => {
    let defaulted: Body;
    let stated: Body;

    before(async () => {
      const exporter = await account(ctx, 'exports');
      defaulted = await submitRun(ctx, exporter, { notes: 'export: nothing stated' });
      stated = await submitRun(ctx, exporter, { contextLength: 2048, batchSize: 1, notes: 'export: defaults typed' });
    });

    const download = async (path: string) =>
      (
        await request(ctx.app)
          .get(path)
          .buffer(true)
          .parse((res, done) => {
            let text = '';
            res.setEncoding('utf8');
            res.on('data', (chunk: string) => (text += chunk));
            res.on('end', () => done(null, text));
          })
          .expect(200)
      ).body as string;

    for (const path of ['/api/leaderboard?format=csv&limit=200', '/api/speed-tests?format=csv']) {
      it(`${path.split('?')[0]} CSV: empty cells for fields not stated, named in the notStated column`, async () => {
        const { header, records } = csvRecords(await download(path));
        expect(header).to.include('notStated');
        const byId = (run: Body) => records.find((record) => record.id === run.id)!;
        expect(byId(defaulted)).to.deep.include({
          contextLength: '',
          batchSize: '',
          notStated: 'modelRevision promptTokens outputTokens contextLength batchSize prefillTokens',
        });
        expect(byId(stated)).to.deep.include({
          contextLength: '2048',
          batchSize: '1',
          notStated: 'modelRevision promptTokens outputTokens prefillTokens',
        });
      });
    }

    it('JSON Lines: the spec values with defaultedFields, as the API answers', async () => {
      const lines = (await download('/api/speed-tests?format=jsonl'))
        .trim()
        .split('\n')
        .map((line) => JSON.parse(line) as Body);
      const run = lines.find((line) => line.id === defaulted.id)!;
      expect(run).to.deep.include({ contextLength: 2048, batchSize: 1, promptTokens: 0 });
      expect(run.defaultedFields).to.deep.equal(EVERY_DEFAULTED);
    });
  });

  describe('revision 1, which has no prefillTokens', () => {
    const rev1 = useTestApp({ API_REVISION: '1' }, { fakeHub: true });

    it('lists only the fields the revision takes', async () => {
      const who1 = await account(rev1, 'rev1');
      const res = await request(rev1.app)
        .post('/api/benchmarks')
        .set('Authorization', `Bearer ${who1.key}`)
        .send(validSubmission())
        .expect(201);
      expect(res.body.defaultedFields).to.deep.equal(['modelRevision', 'promptTokens', 'outputTokens', 'contextLength', 'batchSize']);
      expect(res.body).to.not.have.property('prefillTokens');
    });
  });
});
