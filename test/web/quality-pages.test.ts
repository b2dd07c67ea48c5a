/**
 * Issue 13 part 5, the public quality pages: the suite catalogue, a suite with its
 * leaderboard and quality-vs-speed chart, the quality section of model pages, a run's page
 * with its traces and reactions; htmx fragments, and the pages only where the revision
 * has quality evaluations.
 */
import { expect } from 'chai';
import { hwClassLabel } from '../../src/lib/labels.ts';
import request from 'supertest';
import { useTestApp, type TestContext } from '../helpers/app.ts';
import { fakeHubModels } from '../helpers/fake-hub.ts';
import { validSubmission } from '../helpers/fixtures.ts';
import { account, submitRun, type Account } from '../helpers/moderation.ts';
import {
  approveQualityRun,
  approveSuite,
  customSuite,
  lmEvalSuite,
  QUALITY_REVISIONS,
  qualityRun,
  registerSuite,
  submitQualityRun,
} from '../helpers/quality.ts';

const UNKNOWN_ID = '00000000-0000-4000-8000-000000000000';
const UNIFIED = { hwClass: 'UNIFIED', chipVendor: 'Apple', chipFamily: 'M3', chipVariant: 'Max', unifiedMemoryGb: 128 };

/** The `data-run` ids of a region's rows, in page order. */
const runIdsIn = (html: string, container: RegExp) =>
  [...(container.exec(html)?.[0] ?? '').matchAll(/<tr data-run="([^"]+)"/g)].map((m) => m[1]!);
const leaderboardIds = (html: string) => runIdsIn(html, /<table class="data quality-runs">[\s\S]*?<\/table>/);
const suiteCards = (html: string) => [...html.matchAll(/<article class="card suite-card" data-suite="([^"]+)"/g)].map((m) => m[1]!);
/** The quality-vs-speed chart's SVG. */
const chartOf = (html: string) => {
  const svg = /<svg [^>]*class="chart chart-scatter"[\s\S]*?<\/svg>/.exec(html)?.[0];
  if (!svg) throw new Error('no quality-vs-speed chart');
  return svg;
};
const count = (text: string, needle: string) => text.split(needle).length - 1;

/** Traces for the custom suite's run: every arithmetic item answered (one wrong), both colours, then repeats up to `total`. */
function traces(total: number) {
  const answers = ['It is 4.', 'The answer is 7', 'Six sevens make 42', 'I think 4'];
  const first = [
    ...answers.map((response, itemIndex) => ({
      taskKey: 'arith',
      itemIndex,
      question: `arith question ${itemIndex}`,
      response,
      score: itemIndex === 3 ? 0 : 1,
    })),
    { taskKey: 'colours', itemIndex: 0, response: 'B', score: 1 },
    { taskKey: 'colours', itemIndex: 1, response: 'Answer: A', score: 1 },
  ];
  const repeats = Array.from({ length: total - first.length }, (_, i) => ({
    taskKey: 'colours',
    itemIndex: i % 2,
    response: `repeat ${i}`,
    score: 0,
  }));
  return [...first, ...repeats];
}

describe('Quality pages (revision 3)', () => {
  const ctx = useTestApp({ API_REVISION: '3' }, { fakeHub: true });
  const root = QUALITY_REVISIONS.find((entry) => entry.revision === 3)!.root;
  let ada: Account;
  let bob: Account;
  let custom: Record<string, any>;
  let lmEval: Record<string, any>;
  let pending: Record<string, any>;
  /** Approved runs of the custom suite: q4 (4090, with traces), q8 (4090, "q8_0" speed match), unified (no speed match), moe (other family). */
  const runs: Record<'q4' | 'q8' | 'unified' | 'moe' | 'lmEval' | 'pendingRun', Record<string, any>> = {} as never;

  const run = async (who: Account, suiteSlug: string, overrides: Record<string, unknown>, approve = true) => {
    const body = await submitQualityRun(ctx, root, who, qualityRun(suiteSlug, overrides));
    if (approve) await approveQualityRun(ctx, body.id);
    return body;
  };

  before(async () => {
    ada = await account(ctx, 'ada');
    bob = await account(ctx, 'bob');
    custom = await registerSuite(ctx, root, ada, customSuite({ category: 'math', sourceUrl: 'https://example.org/arith' }));
    lmEval = await registerSuite(ctx, root, ada, lmEvalSuite({ category: 'reasoning' }));
    pending = await registerSuite(ctx, root, ada, customSuite({ category: 'pendingcat' }));
    await approveSuite(ctx, custom.slug, { official: true });
    await approveSuite(ctx, lmEval.slug);

    // Every task with nSamples (or re-scored from traces): these scores have a standard error.
    runs.q4 = await run(ada, custom.slug, {
      results: { arith: { score: 0.75, nSamples: 4 }, colours: { score: 1, nSamples: 2 } },
      artifacts: traces(25),
    });
    // No nSamples on arith: no standard error, so no error bar.
    runs.q8 = await run(ada, custom.slug, { quantization: 'Q8_0', results: { arith: 1, colours: 1 } });
    runs.unified = await run(bob, custom.slug, {
      hardware: UNIFIED,
      results: { arith: { score: 0.5, nSamples: 4 }, colours: { score: 0.5, nSamples: 2 } },
    });
    runs.moe = await run(bob, custom.slug, { hfId: fakeHubModels.moeByArchitecture, results: { arith: 0.25, colours: 0 } });
    runs.lmEval = await run(ada, lmEval.slug, { results: { hellaswag: 0.6, arc_challenge: 0.4 } });
    runs.pendingRun = await run(bob, custom.slug, { results: { arith: 0.9, colours: 0.9 } }, false);
    await ctx.db('quality_runs').where({ id: runs.pendingRun.id }).update({ admin_notes: 'Please add traces' });
    await ctx.db('models').where({ hf_id: fakeHubModels.dense }).update({ family: 'densefam' });
    await ctx.db('models').where({ hf_id: fakeHubModels.moeByArchitecture }).update({ family: 'moefam' });

    // Speed tests: the best approved Q4_K_M 4090 run is 80 tok/s (a rejected 999 does not count), Q8_0 is spelled in lower case.
    await submitRun(ctx, ada, { quantization: 'Q4_K_M', tokSOut: 50 });
    await submitRun(ctx, ada, { quantization: 'Q4_K_M', tokSOut: 80 });
    const rejected = await submitRun(ctx, bob, { quantization: 'Q4_K_M', tokSOut: 999 });
    await ctx.db('speed_test_runs').where({ id: rejected.id }).update({ status: 'REJECTED' });
    await submitRun(ctx, bob, { quantization: 'q8_0', tokSOut: 40 });
  });

  describe('the catalogue /evals', () => {
    it('lists the approved suites as cards, official first, with their facts', async () => {
      const res = await request(ctx.app).get('/evals').expect(200);
      expect(suiteCards(res.text)).to.deep.equal([custom.slug, lmEval.slug]);
      const card = new RegExp(`<article class="card suite-card" data-suite="${custom.slug}">[\\s\\S]*?</article>`).exec(res.text)![0];
      expect(card).to.include(`href="/evals/${custom.slug}"`).and.include('<span class="badge badge-ok">official</span>');
      expect(card).to.include('math · custom runner').and.include('2 tasks · 6 items · <strong>4</strong> approved runs');
      expect(res.text).to.not.include(pending.slug);
      // The category select offers the approved suites' categories only.
      expect(res.text).to.include('<option value="math">math</option>').and.include('<option value="reasoning">reasoning</option>');
      expect(res.text).to.not.include('pendingcat');
    });

    it('filters by category, runner and official', async () => {
      const cards = async (query: string) => suiteCards((await request(ctx.app).get(`/evals?${query}`).expect(200)).text);
      expect(await cards('category=reasoning')).to.deep.equal([lmEval.slug]);
      expect(await cards('runner=CUSTOM')).to.deep.equal([custom.slug]);
      expect(await cards('runner=LM_EVAL_HARNESS&official=false')).to.deep.equal([lmEval.slug]);
      expect(await cards('official=true')).to.deep.equal([custom.slug]);
      expect(await cards('category=chat')).to.deep.equal([]);
    });

    it('pages with previous/next links that keep the filters', async () => {
      const first = await request(ctx.app).get('/evals?limit=1').expect(200);
      expect(suiteCards(first.text)).to.deep.equal([custom.slug]);
      expect(first.text).to.include('href="/evals?limit=1&amp;offset=1"');
      const second = await request(ctx.app).get('/evals?limit=1&offset=1').expect(200);
      expect(suiteCards(second.text)).to.deep.equal([lmEval.slug]);
      expect(second.text).to.include('href="/evals?limit=1"').and.not.include('offset=2');
    });

    it('answers htmx with the list alone, and says the answer varies with HX-Request', async () => {
      const res = await request(ctx.app).get('/evals?runner=CUSTOM').set('HX-Request', 'true').expect(200);
      expect(res.text.trimStart()).to.match(/^<section id="suite-list"/);
      expect(res.text).to.not.include('<html');
      expect(suiteCards(res.text)).to.deep.equal([custom.slug]);
      expect(res.headers.vary).to.match(/HX-Request/i);
    });

    it('shows a bad filter inline with a 400, and drops empty fields from the address', async () => {
      const bad = await request(ctx.app).get('/evals?runner=PYTHON').expect(400);
      expect(bad.text).to.include('role="alert"').and.include('<code>runner</code>: Must be one of: CUSTOM, LM_EVAL_HARNESS');
      expect(bad.text).to.include('<form class="filters"');
      const redirect = await request(ctx.app).get('/evals?category=&runner=CUSTOM').expect(302);
      expect(redirect.headers.location).to.equal('/evals?runner=CUSTOM');
    });
  });

  describe('a suite /evals/{slug}', () => {
    it('shows the description, source, scoring, run config and every task with its prompt template', async () => {
      const res = await request(ctx.app).get(`/evals/${custom.slug}`).expect(200);
      expect(res.text).to.include('<h1>Arithmetic and colours <span class="badge badge-ok">official</span></h1>');
      expect(res.text).to.include('<p class="lead">A test suite</p>');
      expect(res.text).to.include('<a href="https://example.org/arith" rel="nofollow noopener noreferrer">');
      // Methods and settings in words, not the API's codes.
      expect(res.text).to.include('<td>exact match of the expected answer</td>').and.include('<td>weighted mean over the task weights');
      expect(res.text).to.not.include('exact_match').and.not.include('weighted_mean');
      expect(res.text).to.include('<th scope="row">Temperature</th><td>0</td>');
      const arith = /<tr data-task="arith">[\s\S]*?<\/tr>/.exec(res.text)![0];
      expect(arith)
        .to.include('Arithmetic')
        .and.include('<td>qa</td>')
        .and.include('<td class="num">3</td>')
        .and.include('<td>4 inline</td>');
      expect(arith).to.include('<pre>Q: {{input}}\nA:</pre>');
      expect(/<tr data-task="colours">[\s\S]*?<\/tr>/.exec(res.text)![0])
        .to.include('multiple_choice')
        .and.include('<td>2 inline</td>');
    });

    it('ranks the approved runs by score, with model, quantization, hardware, runner, date and uncertainty', async () => {
      const res = await request(ctx.app).get(`/evals/${custom.slug}`).expect(200);
      // q8: 100; q4: re-scored arith 3/4 = 0.75 (weight 3) and colours 1 -> 81.25; unified 50; moe 18.75.
      expect(leaderboardIds(res.text)).to.deep.equal([runs.q8.id, runs.q4.id, runs.unified.id, runs.moe.id]);
      expect(res.text).to.not.include(runs.pendingRun.id);
      const q4 = new RegExp(`<tr data-run="${runs.q4.id}">[\\s\\S]*?</tr>`).exec(res.text)![0];
      expect(q4)
        .to.include('href="/models/fakeorg/Dense-7B"')
        .and.include('<td>Q4_K_M</td>')
        .and.include('NVIDIA GeForce RTX 4090')
        .and.include('on the submitter’s machine, with the suite’s runner')
        .and.not.include('CUSTOM_LOCAL');
      expect(q4).to.match(/<a href="\/evals\/runs\/[^"]+">81\.3 ± \d+(\.\d)?<\/a>/);
      expect(q4).to.include('<td class="num">80</td>');
      // No standard error on every task: the score alone.
      expect(new RegExp(`<tr data-run="${runs.q8.id}">[\\s\\S]*?</tr>`).exec(res.text)![0]).to.include('>100</a>');
    });

    it('filters by quantization (any case), hardware class and model family', async () => {
      const ids = async (query: string) => leaderboardIds((await request(ctx.app).get(`/evals/${custom.slug}?${query}`).expect(200)).text);
      expect(await ids('quantization=q8_0')).to.deep.equal([runs.q8.id]);
      expect(await ids('hwClass=UNIFIED')).to.deep.equal([runs.unified.id]);
      expect(await ids('modelFamily=moefam')).to.deep.equal([runs.moe.id]);
      expect(await ids('modelFamily=densefam&quantization=Q4_K_M')).to.deep.equal([runs.q4.id, runs.unified.id]);
      const page = await request(ctx.app).get(`/evals/${custom.slug}`).expect(200);
      expect(page.text).to.include('<option value="densefam">densefam</option>').and.include('<option value="Q8_0">Q8_0</option>');
    });

    it('folds family spellings that differ only in separators (qwen3_moe, qwen3moe) into one option that finds both', async () => {
      await ctx.db('models').where({ hf_id: fakeHubModels.moeByArchitecture }).update({ family: 'dense_fam' });
      try {
        const page = (await request(ctx.app).get(`/evals/${custom.slug}`).expect(200)).text;
        const options = [...page.matchAll(/<option value="([^"]*)">[^<]*<\/option>/g)].map((m) => m[1]);
        expect(options.filter((value) => value === 'densefam' || value === 'dense_fam')).to.have.length(1);
        const ids = leaderboardIds((await request(ctx.app).get(`/evals/${custom.slug}?modelFamily=densefam`).expect(200)).text);
        expect(ids).to.include(runs.moe.id).and.include(runs.q4.id);
      } finally {
        await ctx.db('models').where({ hf_id: fakeHubModels.moeByArchitecture }).update({ family: 'moefam' });
      }
    });

    it('draws one chart point per run with a matching speed test and lists the others', async () => {
      const res = await request(ctx.app).get(`/evals/${custom.slug}`).expect(200);
      const chart = chartOf(res.text);
      expect(chart).to.match(/<title id="[^"]+-title">Quality vs speed<\/title>/);
      expect(chart).to.include('best output tok/s (log scale)').and.include('>score</text>');
      // q4 at 80 tok/s (the best approved match) and q8 at 40 (matched case-insensitively); unified and moe have no speed test.
      expect(count(chart, 'class="chart-point ')).to.equal(2);
      expect(chart).to.include(`href="/evals/runs/${runs.q4.id}"`).and.include(`href="/evals/runs/${runs.q8.id}"`);
      expect(chart).to.match(
        new RegExp(
          `Dense-7B · Q4_K_M · NVIDIA GeForce RTX 4090 · 24 GB: 80 best output tok/s, 81\\.3 score · ${hwClassLabel('DISCRETE_GPU')}</title>`,
        ),
      );
      // The rejected 999 tok/s run is no point and sets no axis (ids are random, so look for the number as a value).
      expect(chart)
        .to.not.match(/[>: ]999(\.0)? best output tok\/s/)
        .and.not.match(/>999<\/text>/);
      const unplaced = /<ul class="without-speed">[\s\S]*?<\/ul>/.exec(res.text)![0];
      expect([...unplaced.matchAll(/<li data-run="([^"]+)"/g)].map((m) => m[1])).to.deep.equal([runs.unified.id, runs.moe.id]);
      expect(unplaced).to.include('no speed measurement yet');
      expect(res.text).to.include('<h3>No speed measurement yet</h3>');
    });

    it('answers htmx with the leaderboard region alone', async () => {
      const res = await request(ctx.app).get(`/evals/${custom.slug}?hwClass=DISCRETE_GPU`).set('HX-Request', 'true').expect(200);
      expect(res.text.trimStart()).to.match(/^<section id="suite-runs"/);
      expect(res.text).to.not.include('<html').and.not.include('data-task=');
      expect(leaderboardIds(res.text)).to.deep.equal([runs.q8.id, runs.q4.id, runs.moe.id]);
      expect(count(chartOf(res.text), 'class="chart-point ')).to.equal(2);
      expect(res.headers.vary).to.match(/HX-Request/i);
    });

    it('shows a bad filter inline with a 400', async () => {
      const res = await request(ctx.app).get(`/evals/${custom.slug}?hwClass=TPU`).expect(400);
      expect(res.text).to.include('<code>hwClass</code>: Must be one of DISCRETE_GPU, UNIFIED, CPU_ONLY');
      expect(res.text).to.include('data-task="arith"');
      await request(ctx.app).get(`/evals/${custom.slug}?offset=-1`).expect(400);
    });

    it('is a 404 page for unknown, unapproved and impossible slugs', async () => {
      for (const slug of ['no-such-suite', pending.slug, 'Not_A_Slug']) {
        const res = await request(ctx.app).get(`/evals/${slug}`).expect(404);
        expect(res.text).to.include('Page not found');
      }
    });
  });

  describe('the quality section of a model page', () => {
    it('shows the best run per suite with its score', async () => {
      const res = await request(ctx.app).get(`/models/${fakeHubModels.dense}`).expect(200);
      const section = /<section id="quality"[\s\S]*?<\/section>/.exec(res.text)![0];
      const rows = [...section.matchAll(/<tr data-suite="([^"]+)">[\s\S]*?<\/tr>/g)];
      expect(rows.map((m) => m[1])).to.have.members([custom.slug, lmEval.slug]);
      const best = rows.find((m) => m[1] === custom.slug)![0];
      expect(best).to.include(`href="/evals/runs/${runs.q8.id}">100</a>`).and.include('<td data-label="Quant">Q8_0</td>');
    });

    it('puts the same suite side by side across quantizations, with error bars where the scores have a standard error', async () => {
      const res = await request(ctx.app).get(`/models/${fakeHubModels.dense}`).expect(200);
      const deltas = [...res.text.matchAll(/<div class="quantization-delta" data-suite="([^"]+)">([\s\S]*?)<\/div>/g)];
      // Only the custom suite has runs of this model in two quantizations.
      expect(deltas.map((m) => m[1])).to.deep.equal([custom.slug]);
      const chart = deltas[0]![2]!;
      expect(chart).to.include('<title id="').and.include('Arithmetic and colours: score by quantization of Dense-7B</title>');
      expect(count(chart, 'class="chart-bar"')).to.equal(2);
      // Q4_K_M's best (the 4090 run) has a standard error; Q8_0's has none.
      expect(count(chart, 'class="chart-error"')).to.equal(1);
      expect(chart)
        .to.match(/>81\.3 ± \d+(\.\d)?<\/text>/)
        .and.include('>100</text>');
      expect(chart).to.include(`href="/evals/runs/${runs.q4.id}"`).and.include(`href="/evals/runs/${runs.q8.id}"`);
    });

    it('says so when a model has no approved quality runs', async () => {
      await submitRun(ctx, ada, { hfId: fakeHubModels.finetune });
      const res = await request(ctx.app).get(`/models/${fakeHubModels.finetune}`).expect(200);
      expect(/<section id="quality"[\s\S]*?<\/section>/.exec(res.text)![0]).to.include('No approved quality runs of this model yet');
    });
  });

  describe('a run /evals/runs/{id}', () => {
    it('shows the model, suite, hardware, score and every task with client score, standard error and re-scoring', async () => {
      const res = await request(ctx.app).get(`/evals/runs/${runs.q4.id}`).expect(200);
      expect(res.text)
        .to.include(`<a href="/evals/${custom.slug}">Arithmetic and colours</a>`)
        .and.include('href="/models/fakeorg/Dense-7B"');
      expect(res.text).to.match(/<strong id="run-score">81\.3 ± \d/);
      expect(res.text).to.include('NVIDIA GeForce RTX 4090').and.not.include('id="review-status"');
      const arith = /<tr data-task="arith">[\s\S]*?<\/tr>/.exec(res.text)![0];
      // Score and client score in points; all four items re-scored, 0 disagreement (the client's item scores agree).
      expect(arith).to.include('<td class="num">75</td>').and.include('<td class="num">4 of 4</td>');
      expect([...arith.matchAll(/<td class="num">([^<]+)<\/td>/g)].map((m) => m[1])).to.deep.equal(['3', '75', '75', '25', '4 of 4', '0']);
      expect(res.text).to.include(`href="${root}/runs/${runs.q4.id}"`);
      // How it ran, in words: no API codes.
      expect(res.text).to.include('<tr><th scope="row">Judge</th><td>no judge model: scored by the suite’s rule</td></tr>');
      expect(res.text).to.not.include('CUSTOM_LOCAL').and.not.include('>NONE<');
    });

    it('pages the traces 20 at a time with the expected and extracted answers', async () => {
      const first = await request(ctx.app).get(`/evals/runs/${runs.q4.id}`).expect(200);
      expect(count(first.text, '<article class="card trace"')).to.equal(20);
      expect(first.text).to.include('25 traces, page 1 of 2.');
      const third = /<article class="card trace" data-seq="2">[\s\S]*?<\/article>/.exec(first.text)![0];
      expect(third).to.include('<pre>arith question 2</pre>').and.include('<pre class="trace-response">Six sevens make 42</pre>');
      expect(third).to.include('<td class="trace-expected">42 | forty-two</td>').and.include('<td class="trace-extracted">42</td>');
      const colour = /<article class="card trace" data-seq="4">[\s\S]*?<\/article>/.exec(first.text)![0];
      expect(colour).to.include('<pre>Colour of the sky?</pre>').and.include('<td class="trace-expected">B. Blue</td>');
      expect(first.text).to.include(`href="/evals/runs/${runs.q4.id}?page=2#artifacts"`);

      const second = await request(ctx.app).get(`/evals/runs/${runs.q4.id}?page=2`).expect(200);
      expect(count(second.text, '<article class="card trace"')).to.equal(5);
      expect(second.text).to.include('data-seq="24"').and.include(`href="/evals/runs/${runs.q4.id}#artifacts"`);

      const fragment = await request(ctx.app).get(`/evals/runs/${runs.q4.id}?page=2`).set('HX-Request', 'true').expect(200);
      expect(fragment.text.trimStart()).to.match(/^<section id="artifacts"/);
      expect(count(fragment.text, '<article class="card trace"')).to.equal(5);
      expect(fragment.text).to.not.include('data-task=');

      const beyond = await request(ctx.app).get(`/evals/runs/${runs.q4.id}?page=3`).expect(200);
      expect(beyond.text).to.include('No traces on this page');
      for (const page of ['0', 'abc', '9999']) {
        const bad = await request(ctx.app).get(`/evals/runs/${runs.q4.id}?page=${page}`).expect(400);
        expect(bad.text).to.include('page: Must');
      }
    });

    it('shows a pending run to its submitter only, with its status and the admin notes', async () => {
      await request(ctx.app).get(`/evals/runs/${runs.pendingRun.id}`).expect(404);
      await ada.agent.get(`/evals/runs/${runs.pendingRun.id}`).expect(404);
      const own = await bob.agent.get(`/evals/runs/${runs.pendingRun.id}`).expect(200);
      expect(/<div [^>]*id="review-status">[\s\S]*?<\/div>/.exec(own.text)![0])
        .to.include('This run is pending')
        .and.include('Please add traces');
      // Nobody reacts to a run that is not public.
      expect(own.text).to.not.include('class="reaction-form"');
      await bob.agent.post(`/evals/runs/${runs.pendingRun.id}/react`).type('form').send({ _csrf: bob.csrf, emoji: 'fire' }).expect(404);
    });

    it('is a 404 page for unknown and impossible ids', async () => {
      await request(ctx.app).get(`/evals/runs/${UNKNOWN_ID}`).expect(404);
      await request(ctx.app).get('/evals/runs/not-a-uuid').expect(404);
    });

    it('takes reactions through the page: a form post goes back, htmx gets the bar', async () => {
      const page = await ada.agent.get(`/evals/runs/${runs.q4.id}`).expect(200);
      expect(page.text).to.include(
        `<form class="reaction-form" method="post" action="/evals/runs/${runs.q4.id}/react" hx-post="/evals/runs/${runs.q4.id}/react"`,
      );
      const posted = await ada.agent
        .post(`/evals/runs/${runs.q4.id}/react`)
        .type('form')
        .send({ _csrf: ada.csrf, emoji: 'brain', back: `/evals/runs/${runs.q4.id}?page=2` })
        .expect(303);
      expect(posted.headers.location).to.equal(`/evals/runs/${runs.q4.id}?page=2`);
      const bar = await bob.agent
        .post(`/evals/runs/${runs.q4.id}/react`)
        .set('HX-Request', 'true')
        .type('form')
        .send({ _csrf: bob.csrf, emoji: 'brain' })
        .expect(200);
      expect(bar.text.trimStart()).to.match(new RegExp(`^<div class="reaction-bar" id="reactions-${runs.q4.id}">`));
      expect(bar.text).to.include(`action="/evals/runs/${runs.q4.id}/react"`).and.include('<span class="reaction-count">2</span>');
      expect((await ctx.db('quality_runs').where({ id: runs.q4.id }).first('reaction_counts')).reaction_counts).to.deep.equal({ brain: 2 });
      const anonymous = await request(ctx.app).get(`/evals/runs/${runs.q4.id}`).expect(200);
      expect(anonymous.text).to.include('Sign in to react').and.include('<span class="reaction-count">2</span>');
      await ada.agent.post(`/evals/runs/${runs.q4.id}/react`).type('form').send({ _csrf: ada.csrf, emoji: 'shrug' }).expect(400);
      await request(ctx.app)
        .post(`/evals/runs/${runs.q4.id}/react`)
        .type('form')
        .send({ emoji: 'fire' })
        .expect((res) => expect(res.status).to.be.oneOf([302, 303, 401, 403]));
    });
  });

  it('links Evals in the header', async () => {
    const res = await request(ctx.app).get('/').expect(200);
    expect(res.text).to.include('<li><a href="/evals">Evals</a></li>');
    const evals = await request(ctx.app).get('/evals').expect(200);
    expect(evals.text).to.include('<li><a href="/evals" aria-current="page">Evals</a></li>');
  });
});

describe('Quality pages (revision 2)', () => {
  const ctx = useTestApp({ API_REVISION: '2' }, { fakeHub: true });
  const root = QUALITY_REVISIONS.find((entry) => entry.revision === 2)!.root;

  it('serves the catalogue, a suite and a run', async () => {
    const ada = await account(ctx, 'ada');
    const suite = await registerSuite(ctx, root, ada, customSuite());
    await approveSuite(ctx, suite.slug);
    const body = await submitQualityRun(ctx, root, ada, qualityRun(suite.slug));
    await approveQualityRun(ctx, body.id);
    const catalogue = await request(ctx.app).get('/evals').expect(200);
    expect(suiteCards(catalogue.text)).to.deep.equal([suite.slug]);
    expect(catalogue.text).to.include('<li><a href="/evals" aria-current="page">Evals</a></li>');
    const page = await request(ctx.app).get(`/evals/${suite.slug}`).expect(200);
    expect(leaderboardIds(page.text)).to.deep.equal([body.id]);
    expect(page.text).to.include(`href="${root}/suites/${suite.slug}"`);
    const runPage = await request(ctx.app).get(`/evals/runs/${body.id}`).expect(200);
    expect(runPage.text).to.include(`href="${root}/runs/${body.id}"`).and.include('This run was uploaded without per-item traces.');
  });
});

describe('Quality pages (revision 1)', () => {
  const ctx: TestContext = useTestApp({ API_REVISION: '1' }, { fakeHub: true });

  it('are not there: 404 pages, no header link, no model-page section', async () => {
    for (const path of ['/evals', '/evals/arithmetic-qa-mini', `/evals/runs/${UNKNOWN_ID}`]) {
      const res = await request(ctx.app).get(path).expect(404);
      expect(res.text).to.include('Page not found');
    }
    const ada = await account(ctx, 'ada');
    await ada.agent.post(`/evals/runs/${UNKNOWN_ID}/react`).type('form').send({ _csrf: ada.csrf, emoji: 'fire' }).expect(404);
    const home = await request(ctx.app).get('/').expect(200);
    expect(home.text).to.not.include('href="/evals"');
    await request(ctx.app).post('/api/benchmarks').set('Authorization', `Bearer ${ada.key}`).send(validSubmission()).expect(201);
    const model = await request(ctx.app).get(`/models/${fakeHubModels.dense}`).expect(200);
    expect(model.text).to.not.include('id="quality"');
  });
});
