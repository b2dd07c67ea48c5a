/**
 * Quality suites, datasets and submissions through the API, in each revision that has them
 * (revision 2 under /api/evals, revision 3 under /api/benchmarks with /api/evals as a
 * deprecated alias), and their absence in revision 1.
 */
import { expect } from 'chai';
import request from 'supertest';
import { useTestApp } from '../helpers/app.ts';
import { expectValidationFailed } from '../helpers/assertions.ts';
import { account, type Account } from '../helpers/moderation.ts';
import {
  approveSuite,
  bearer,
  customSuite,
  lmEvalSuite,
  QUALITY_REVISIONS,
  qualityRun,
  registerSuite,
  submitQualityRun,
  uniqueSlug,
} from '../helpers/quality.ts';

describe('Quality suites, revision 1', () => {
  const ctx = useTestApp({ API_REVISION: '1' });

  it('has no quality endpoints: both roots are unknown routes', async () => {
    for (const path of ['/api/evals/suites', '/api/evals/runs?modelId=x']) {
      const res = await request(ctx.app).get(path);
      expect(res.status, path).to.equal(404);
      expect(res.body).to.deep.equal({ error: 'Not found' });
    }
    // /api/benchmarks holds revision 1's speed tests: a sub-path there is a run id that names nothing.
    expect((await request(ctx.app).get('/api/benchmarks/suites')).status).to.equal(404);
    expect((await request(ctx.app).post('/api/evals/suites').send(customSuite())).status).to.equal(404);
  });
});

for (const { revision, root } of QUALITY_REVISIONS) {
  describe(`Quality suites, revision ${revision} (${root})`, () => {
    const ctx = useTestApp({ API_REVISION: String(revision) }, { fakeHub: true });
    let ada: Account;
    let bob: Account;

    before(async () => {
      ada = await account(ctx, 'ada');
      bob = await account(ctx, 'bob');
    });

    const post = (who: Account, path: string, body: unknown) =>
      request(ctx.app)
        .post(`${root}${path}`)
        .set(bearer(who))
        .send(body as object);

    describe('registration', () => {
      it('stores a suite as PENDING, not listed or readable until approved, then public with its whole document', async () => {
        const body = customSuite({ category: 'Math' });
        const res = await post(ada, '/suites', body);
        expect(res.status, JSON.stringify(res.body)).to.equal(201);
        expect(res.body).to.include({
          slug: body.slug,
          status: 'PENDING',
          official: false,
          runner: 'CUSTOM',
          version: '1.0',
          runCount: 0,
          itemCount: 6,
          taskCount: 2,
        });
        expect(res.body.taskKeys).to.deep.equal(['arith', 'colours']);
        expect(res.body.createdBy).to.deep.equal({ username: ada.username, displayName: `Display ${ada.username}` });
        expect(res.body.suiteDoc.tasks[0].dataset.items[2].gold).to.deep.equal([42, 'forty-two']);
        // Defaults are filled in: weight, taskType, extraction, aggregation.
        expect(res.body.suiteDoc.tasks[1]).to.include({ weight: 1, answerExtraction: 'none' });
        expect(res.body.scoring).to.deep.equal({ method: 'exact_match', aggregation: 'weighted_mean', higherIsBetter: true });

        expect((await request(ctx.app).get(`${root}/suites/${body.slug}`)).status).to.equal(404);
        const before = await request(ctx.app).get(`${root}/suites`);
        expect(before.body.suites.map((suite: { slug: string }) => suite.slug)).not.to.include(body.slug);

        await approveSuite(ctx, body.slug);
        const one = await request(ctx.app).get(`${root}/suites/${body.slug}`).expect(200);
        expect(one.body.status).to.equal('APPROVED');
        expect(one.body.suiteDoc.tasks[0].dataset.items).to.have.length(4);
        const list = await request(ctx.app).get(`${root}/suites`).query({ category: 'math' }).expect(200);
        const listed = list.body.suites.find((suite: { slug: string }) => suite.slug === body.slug);
        expect(listed, 'listed after approval (category matches case-insensitively)').to.exist;
        // Lists carry the document for task-key search, without its items (itemCount per task instead).
        expect(listed.suiteDoc.tasks[0]).to.include({ key: listed.taskKeys[0], itemCount: 4 });
        expect(listed.suiteDoc.tasks[0].dataset).to.deep.equal({ source: 'inline' });
      });

      it('filters the list by category, runner and official, and pages it', async () => {
        const math = customSuite({ category: 'algebra' });
        const harness = lmEvalSuite({ category: 'algebra' });
        await registerSuite(ctx, root, ada, math);
        await registerSuite(ctx, root, ada, harness);
        await approveSuite(ctx, math.slug);
        await approveSuite(ctx, harness.slug, { official: true });
        const slugs = async (query: Record<string, string>) =>
          (await request(ctx.app).get(`${root}/suites`).query(query).expect(200)).body.suites.map((s: { slug: string }) => s.slug);
        expect(await slugs({ category: 'algebra' })).to.deep.equal([harness.slug, math.slug]);
        expect(await slugs({ category: 'algebra', runner: 'CUSTOM' })).to.deep.equal([math.slug]);
        expect(await slugs({ category: 'algebra', official: 'true' })).to.deep.equal([harness.slug]);
        expect(await slugs({ category: 'algebra', official: 'false' })).to.deep.equal([math.slug]);
        const page = await request(ctx.app).get(`${root}/suites`).query({ category: 'algebra', limit: '1', offset: '1' }).expect(200);
        expect(page.body).to.include({ total: 2, limit: 1, offset: 1 });
        expect(page.body.suites.map((s: { slug: string }) => s.slug)).to.deep.equal([math.slug]);
        expectValidationFailed(await request(ctx.app).get(`${root}/suites`).query({ runner: 'OTHER' }), ['runner']);
        expectValidationFailed(await request(ctx.app).get(`${root}/suites`).query({ limit: '101' }), ['limit']);
      });

      it('needs a key or a session', async () => {
        const res = await request(ctx.app).post(`${root}/suites`).send(customSuite());
        expect(res.status).to.equal(401);
      });

      it('refuses a taken slug with 409 and a malformed one with 400', async () => {
        const body = customSuite();
        await registerSuite(ctx, root, ada, body);
        const again = await post(bob, '/suites', customSuite({ slug: body.slug }));
        expect(again.status).to.equal(409);
        expect(again.body.error).to.equal(`A suite with the slug '${body.slug}' already exists`);
        for (const slug of ['Bad_Slug', 'ab', 'double--hyphen', '-leading', 'x'.repeat(65), 'new', 'runs'])
          expectValidationFailed(await post(ada, '/suites', customSuite({ slug })), ['slug']);
      });

      it('names each problem by its path in the body', async () => {
        const body = customSuite();
        body.suiteDoc.tasks[0].dataset.items[2] = { input: 'No answer here' };
        delete body.suiteDoc.tasks[1].promptTemplate;
        body.suiteDoc.tasks[1].dataset.items[1].gold = 'Purple';
        expectValidationFailed(await post(ada, '/suites', body), [
          'suiteDoc.tasks.0.dataset.items.2.gold',
          'suiteDoc.tasks.1.promptTemplate',
        ]);
        // With the schema met, the gold that names no choice is reported.
        const golds = customSuite();
        golds.suiteDoc.tasks[1].dataset.items[1].gold = 'Purple';
        expectValidationFailed(await post(ada, '/suites', golds), ['suiteDoc.tasks.1.dataset.items.1.gold']);
      });

      it('refuses a runner mismatch, duplicate keys, perplexity, unsafe regexes, missing choices and unknown fields', async () => {
        const mismatch = customSuite();
        mismatch.suiteDoc.runner = 'lm-eval-harness';
        expectValidationFailed(await post(ada, '/suites', mismatch), ['suiteDoc.runner']);

        const duplicate = customSuite();
        duplicate.suiteDoc.tasks[1].key = 'arith';
        expectValidationFailed(await post(ada, '/suites', duplicate), ['suiteDoc.tasks.1.key']);

        const perplexity = customSuite();
        perplexity.suiteDoc.scoringMethod = 'perplexity';
        const res = await post(ada, '/suites', perplexity);
        expectValidationFailed(res, ['suiteDoc.scoringMethod']);
        expect(res.body.details.fieldErrors['suiteDoc.scoringMethod'][0]).to.match(/perplexity is not supported/);

        const backreference = customSuite();
        Object.assign(backreference.suiteDoc.tasks[0], { answerExtraction: 'regex', answerRegex: '(a)\\1' });
        expectValidationFailed(await post(ada, '/suites', backreference), ['suiteDoc.tasks.0.answerRegex']);

        const noRegex = customSuite();
        noRegex.suiteDoc.tasks[0].answerExtraction = 'regex';
        expectValidationFailed(await post(ada, '/suites', noRegex), ['suiteDoc.tasks.0.answerRegex']);

        const noChoices = customSuite();
        delete noChoices.suiteDoc.tasks[1].dataset.items[0].choices;
        expectValidationFailed(await post(ada, '/suites', noChoices), ['suiteDoc.tasks.1.dataset.items.0.choices']);

        const unknown = customSuite();
        unknown.suiteDoc.tasks[0].wieght = 2;
        expectValidationFailed(await post(ada, '/suites', unknown), ['suiteDoc.tasks.0.wieght']);

        const items = customSuite();
        items.suiteDoc.tasks[0].dataset.items = [];
        expectValidationFailed(await post(ada, '/suites', items), ['suiteDoc.tasks.0.dataset.items']);

        const noItems = customSuite();
        noItems.suiteDoc.tasks[0].dataset = { source: 'huggingface', hfPath: 'openai/gsm8k' };
        expectValidationFailed(await post(ada, '/suites', noItems), ['suiteDoc.tasks.0.dataset']);
      });

      it('takes an lm-eval-harness suite with task keys and no items', async () => {
        const res = await post(ada, '/suites', lmEvalSuite());
        expect(res.status, JSON.stringify(res.body)).to.equal(201);
        expect(res.body).to.include({ runner: 'LM_EVAL_HARNESS', itemCount: 0 });
      });

      it('accepts a suite larger than the 1 MB limit of other bodies, and answers 413 above its own', async () => {
        const big = customSuite();
        big.suiteDoc.tasks[0].dataset.items = Array.from({ length: 1000 }, (_, i) => ({ input: `${i} ${'x'.repeat(1500)}`, gold: i }));
        const res = await post(ada, '/suites', big);
        expect(res.status, JSON.stringify(res.body).slice(0, 300)).to.equal(201);
        expect(res.body.itemCount).to.equal(1002);

        const huge = request(ctx.app)
          .post(`${root}/suites`)
          .set(bearer(ada))
          .set('Content-Type', 'application/json')
          .send(`{"slug":"x","pad":"${'y'.repeat(17 * 1024 * 1024)}"}`);
        const tooLarge = await huge;
        expect(tooLarge.status).to.equal(413);
        expect(tooLarge.body).to.deep.equal({ error: 'Request body is larger than 16 MB' });
      });

      it('keeps every other body at 1 MB', async () => {
        const res = await request(ctx.app)
          .post(revision === 3 ? '/api/speed-tests/dry-run' : '/api/benchmarks/dry-run')
          .set(bearer(ada))
          .set('Content-Type', 'application/json')
          .send(`{"pad":"${'y'.repeat(1100 * 1024)}"}`);
        expect(res.status).to.equal(413);
        expect(res.body).to.deep.equal({ error: 'Request body is larger than 1 MB' });
        // Paths below a larger-limit operation keep 1 MB too (the limit is per method and exact path).
        const below = await ada.agent
          .post(`${root}/runs/00000000-0000-4000-8000-000000000000/react`)
          .set('X-CSRF-Token', ada.csrf)
          .set('Content-Type', 'application/json')
          .send(`{"emoji":"fire","pad":"${'y'.repeat(1100 * 1024)}"}`);
        expect(below.status).to.equal(413);
        expect(below.body).to.deep.equal({ error: 'Request body is larger than 1 MB' });
      });
    });

    if (revision === 2) {
      it('has none of the revision-3 quality endpoints', async () => {
        expect((await post(ada, '/suites/dry-run', customSuite())).status).to.equal(404);
        expect((await request(ctx.app).get(`${root}/submissions`).set(bearer(ada))).status).to.equal(404);
        expect((await post(ada, '/datasets', { slug: 'abc' })).status).to.equal(404);
        const shard = customSuite();
        shard.suiteDoc.tasks[0].dataset = { source: 'shard', datasetSlug: 'some-dataset' };
        expectValidationFailed(await post(ada, '/suites', shard), ['suiteDoc.tasks.0.dataset.source']);
      });
    }

    if (revision === 3) {
      const datasetBody = (overrides: Record<string, unknown> = {}) => ({
        slug: uniqueSlug('data'),
        name: 'Arithmetic shards',
        license: 'CC-BY-4.0',
        shards: [
          {
            name: 'a',
            items: [
              { input: '1+1?', gold: 2 },
              { input: '2+2?', gold: 4 },
            ],
          },
          { items: [{ input: '3+3?', gold: 6 }] },
        ],
        ...overrides,
      });
      const shardSuite = (datasetSlug: string) => {
        const body = customSuite();
        body.suiteDoc.tasks[0].dataset = { source: 'shard', datasetSlug };
        return body;
      };

      describe('dry-run, datasets and submissions', () => {
        it('dry-runs a registration without writing anything', async () => {
          const body = customSuite();
          const res = await post(ada, '/suites/dry-run', body);
          expect(res.status, JSON.stringify(res.body)).to.equal(200);
          expect(res.body).to.deep.equal({ valid: true, slugAvailable: true, taskKeys: ['arith', 'colours'], itemCount: 6, datasets: [] });
          expect(await ctx.db('quality_suites').where({ slug: body.slug }).first()).to.equal(undefined);
        });

        it('dry-run lists a taken slug and unusable dataset references together', async () => {
          const taken = customSuite();
          await registerSuite(ctx, root, ada, taken);
          const foreign = datasetBody();
          expect((await post(bob, '/datasets', foreign)).status).to.equal(201);
          const body = shardSuite(foreign.slug);
          body.slug = taken.slug;
          body.suiteDoc.tasks[1].dataset = { source: 'shard', datasetSlug: 'no-such-dataset' };
          const res = await post(ada, '/suites/dry-run', body);
          expectValidationFailed(res, ['slug', 'suiteDoc.tasks.0.dataset.datasetSlug', 'suiteDoc.tasks.1.dataset.datasetSlug']);
          expect(res.body.details.fieldErrors['suiteDoc.tasks.0.dataset.datasetSlug']).to.deep.equal([
            `Dataset '${foreign.slug}' is not approved and is not yours`,
          ]);
          // The real registration refuses the references the same way (and writes nothing).
          const real = shardSuite(foreign.slug);
          expectValidationFailed(await post(ada, '/suites', real), ['suiteDoc.tasks.0.dataset.datasetSlug']);
          expect(await ctx.db('quality_suites').where({ slug: real.slug }).first()).to.equal(undefined);
        });

        it("lets a suite use the submitter's own pending dataset or anyone's approved one", async () => {
          const mine = datasetBody();
          const created = await post(ada, '/datasets', mine);
          expect(created.status, JSON.stringify(created.body)).to.equal(201);
          expect(created.body).to.include({ slug: mine.slug, status: 'PENDING', shardCount: 2, itemCount: 3 });
          const dry = await post(ada, '/suites/dry-run', shardSuite(mine.slug));
          expect(dry.status, JSON.stringify(dry.body)).to.equal(200);
          expect(dry.body).to.include({ itemCount: 5 });
          expect(dry.body.datasets).to.deep.equal([mine.slug]);
          // Bob may use it only once approved.
          expect((await post(bob, '/suites/dry-run', shardSuite(mine.slug))).status).to.equal(400);
          expect((await request(ctx.app).get(`${root}/datasets/${mine.slug}`)).status).to.equal(404);
          await ctx.db('quality_datasets').where({ slug: mine.slug }).update({ status: 'APPROVED' });
          expect((await post(bob, '/suites/dry-run', shardSuite(mine.slug))).status).to.equal(200);
          const read = await request(ctx.app).get(`${root}/datasets/${mine.slug}`).expect(200);
          expect(read.body.shards).to.deep.equal([
            {
              name: 'a',
              items: [
                { input: '1+1?', gold: 2 },
                { input: '2+2?', gold: 4 },
              ],
            },
            { name: null, items: [{ input: '3+3?', gold: 6 }] },
          ]);
        });

        it('refuses a dataset with a taken slug (409) or a bad item (400 with its path)', async () => {
          const body = datasetBody();
          await post(ada, '/datasets', body).expect(201);
          expect((await post(bob, '/datasets', datasetBody({ slug: body.slug }))).status).to.equal(409);
          expectValidationFailed(await post(ada, '/datasets', datasetBody({ shards: [{ items: [{ input: 'q' }] }] })), [
            'shards.0.items.0.gold',
          ]);
          expectValidationFailed(
            await post(ada, '/datasets', datasetBody({ shards: Array.from({ length: 51 }, () => ({ items: [{ input: 'q', gold: 1 }] })) })),
            ['shards'],
          );
        });

        it('accepts the body wrapped as { submission }', async () => {
          const body = customSuite();
          const res = await post(ada, '/suites', { submission: body });
          expect(res.status, JSON.stringify(res.body)).to.equal(201);
          expect(res.body.slug).to.equal(body.slug);
        });

        it("lists the owner's suites and datasets with status and admin notes, newest first", async () => {
          const carol = await account(ctx, 'carol');
          const suite = await registerSuite(ctx, root, carol, customSuite());
          ctx.clock.advance(1000);
          const dataset = (await post(carol, '/datasets', datasetBody()).expect(201)).body;
          await ctx
            .db('quality_suites')
            .where({ id: suite.id })
            .update({ status: 'REJECTED', admin_notes: 'Items 3 and 4 are duplicates' });
          const res = await request(ctx.app).get(`${root}/submissions`).set(bearer(carol)).expect(200);
          expect(res.body.submissions.map((s: { kind: string; id: string }) => [s.kind, s.id])).to.have.deep.members([
            ['suite', suite.id],
            ['dataset', dataset.id],
          ]);
          const rejected = res.body.submissions.find((s: { id: string }) => s.id === suite.id);
          expect(rejected).to.include({ status: 'REJECTED', adminNotes: 'Items 3 and 4 are duplicates', slug: suite.slug });
          // Nobody else sees them.
          const others = await request(ctx.app).get(`${root}/submissions`).set(bearer(bob)).expect(200);
          expect(others.body.submissions.map((s: { id: string }) => s.id)).not.to.include(suite.id);
        });

        it('PATCH corrects a rejected suite and puts it back to PENDING; an approved one or a foreign one cannot be changed', async () => {
          const suite = await registerSuite(ctx, root, ada, customSuite());
          await ctx.db('quality_suites').where({ id: suite.id }).update({ status: 'REJECTED', admin_notes: 'Fix the name' });
          const corrected = customSuite({ slug: suite.slug, name: 'Arithmetic, corrected' });
          const res = await request(ctx.app)
            .patch(`${root}/submissions/suite/${suite.id}`)
            .set(bearer(ada))
            .send({ submission: corrected });
          expect(res.status, JSON.stringify(res.body)).to.equal(200);
          expect(res.body.kind).to.equal('suite');
          expect(res.body.suite).to.include({ id: suite.id, name: 'Arithmetic, corrected', status: 'PENDING' });
          const row = await ctx.db('quality_suites').where({ id: suite.id }).first();
          expect(row.admin_notes).to.equal(null);

          expect((await request(ctx.app).patch(`${root}/submissions/suite/${suite.id}`).set(bearer(bob)).send(corrected)).status).to.equal(
            404,
          );
          expectValidationFailed(
            await request(ctx.app)
              .patch(`${root}/submissions/suite/${suite.id}`)
              .set(bearer(ada))
              .send({ ...corrected, runner: 'OTHER' }),
            ['runner'],
          );
          await approveSuite(ctx, suite.slug);
          const approved = await request(ctx.app).patch(`${root}/submissions/suite/${suite.id}`).set(bearer(ada)).send(corrected);
          expect(approved.status).to.equal(409);
          expect(approved.body.error).to.match(/approved: only pending or rejected submissions can be corrected/);
          expect((await request(ctx.app).patch(`${root}/submissions/other/${suite.id}`).set(bearer(ada)).send(corrected)).status).to.equal(
            404,
          );
        });

        it('PATCH replaces a pending dataset and its shards', async () => {
          const dataset = (await post(ada, '/datasets', datasetBody()).expect(201)).body;
          const res = await request(ctx.app)
            .patch(`${root}/submissions/dataset/${dataset.id}`)
            .set(bearer(ada))
            .send(datasetBody({ slug: dataset.slug, shards: [{ items: [{ input: 'q', gold: 'a' }] }] }));
          expect(res.status, JSON.stringify(res.body)).to.equal(200);
          expect(res.body.dataset).to.include({ shardCount: 1, itemCount: 1, status: 'PENDING' });
          expect(Number((await ctx.db('quality_dataset_shards').where({ dataset_id: dataset.id }).count('* as n').first())!.n)).to.equal(1);
        });

        it('DELETE withdraws an unused pending submission and frees its slug; a used or approved one is kept (409)', async () => {
          const suite = await registerSuite(ctx, root, ada, customSuite());
          const res = await request(ctx.app).delete(`${root}/submissions/suite/${suite.id}`).set(bearer(ada));
          expect(res.status).to.equal(200);
          expect(res.body).to.deep.equal({ kind: 'suite', id: suite.id, slug: suite.slug, status: 'WITHDRAWN' });
          expect(
            (await request(ctx.app).get(`${root}/submissions`).set(bearer(ada))).body.submissions.map((s: { id: string }) => s.id),
          ).not.to.include(suite.id);
          // The slug is free again.
          await registerSuite(ctx, root, bob, customSuite({ slug: suite.slug }));
          expect((await request(ctx.app).delete(`${root}/submissions/suite/${suite.id}`).set(bearer(ada))).status).to.equal(404);

          const used = await registerSuite(ctx, root, ada, customSuite());
          await approveSuite(ctx, used.slug);
          expect((await request(ctx.app).delete(`${root}/submissions/suite/${used.id}`).set(bearer(ada))).status).to.equal(409);
          await submitQualityRun(ctx, root, ada, qualityRun(used.slug));
          await ctx.db('quality_suites').where({ id: used.id }).update({ status: 'REJECTED' });
          const inUse = await request(ctx.app).delete(`${root}/submissions/suite/${used.id}`).set(bearer(ada));
          expect(inUse.status).to.equal(409);
          expect(inUse.body.error).to.match(/in use/);

          const dataset = (await post(ada, '/datasets', datasetBody()).expect(201)).body;
          await registerSuite(ctx, root, ada, shardSuite(dataset.slug));
          expect((await request(ctx.app).delete(`${root}/submissions/dataset/${dataset.id}`).set(bearer(ada))).status).to.equal(409);
        });
      });

      it('answers the /api/evals alias with the revision-3 rules and deprecation headers', async () => {
        const body = customSuite();
        const res = await request(ctx.app).post('/api/evals/suites').set(bearer(ada)).send(body);
        expect(res.status).to.equal(201);
        expect(res.headers.deprecation).to.equal('true');
        // Its own successor, the revision-3 quality root, never the speed-test path.
        expect(res.headers.link).to.equal('</api/benchmarks>; rel="successor-version"');
        await approveSuite(ctx, body.slug);
        const read = await request(ctx.app).get(`/api/evals/suites/${body.slug}`).expect(200);
        expect(read.headers.deprecation).to.equal('true');
        expect(read.body.slug).to.equal(body.slug);
        expect((await request(ctx.app).get('/api/evals/submissions').set(bearer(ada))).status).to.equal(200);
      });
    }
  });
}
