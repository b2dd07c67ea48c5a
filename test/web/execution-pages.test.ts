/**
 * The execution pages: "Run this suite" on an approved CUSTOM suite (check first, errors on
 * the form, run), the execution page with its htmx-polled progress, per-task scores, cancel
 * and the submitted run, the "server-executed" mark, and the owner's list of executions.
 */
import { expect } from 'chai';
import request from 'supertest';
import { useTestApp } from '../helpers/app.ts';
import { FAST_EXECUTION_TIMING } from '../helpers/executions.ts';
import { fakeHubModels } from '../helpers/fake-hub.ts';
import { arithmeticAnswers, startFakeOpenAi, type FakeOpenAi } from '../helpers/fake-openai.ts';
import { account, type Account } from '../helpers/moderation.ts';
import { approveQualityRun, customSuite, lmEvalSuite, registeredApprovedSuite } from '../helpers/quality.ts';

const HTMX = { 'HX-Request': 'true' };
const root = '/api/benchmarks';

describe('Execution pages', () => {
  const ctx = useTestApp(
    { EXECUTE_WORKERS: '1', EXECUTE_ALLOW_HOSTS: '127.0.0.1' },
    { fakeHub: true, executionTiming: FAST_EXECUTION_TIMING },
  );
  let target: FakeOpenAi;
  let ada: Account;
  let bob: Account;
  let suite: Record<string, any>;
  let setupId: string;

  before(async () => {
    target = await startFakeOpenAi({ models: ['fake-model'], answer: arithmeticAnswers({ 'What is 9 / 3?': 'It is 4.' }) });
    ada = await account(ctx, 'ada');
    bob = await account(ctx, 'bob');
    suite = await registeredApprovedSuite(ctx, root, ada);
    const setup = await ada.agent
      .post('/api/setups')
      .set('X-CSRF-Token', ada.csrf)
      .send({ name: 'My 4090', hwClass: 'DISCRETE_GPU', gpuName: 'NVIDIA GeForce RTX 4090', vramGb: 24 })
      .expect(201);
    setupId = setup.body.id;
  });
  after(() => target.close());
  beforeEach(() => {
    target.mode = 'normal';
  });

  const form = (overrides: Record<string, string> = {}) => ({
    baseUrl: target.url,
    model: 'fake-model',
    hfId: fakeHubModels.dense,
    apiKey: '',
    setupId: '',
    quantization: '',
    action: 'run',
    _csrf: ada.csrf,
    ...overrides,
  });
  const post = (who: Account, slug: string, body: Record<string, string>) =>
    who.agent
      .post(`/evals/${slug}/run`)
      .type('form')
      .send({ ...body, _csrf: who.csrf });

  /** Polls the execution page until it is finished; returns its HTML. */
  async function finishedPage(who: Account, path: string): Promise<string> {
    for (let n = 0; n < 200; n += 1) {
      const page = await who.agent.get(path).expect(200);
      if (/data-status="(SUCCEEDED|FAILED|CANCELLED)"/.test(page.text)) return page.text;
      await new Promise((resolve) => setTimeout(resolve, 40));
    }
    throw new Error('the execution did not finish');
  }

  it('offers "Run this suite" on an approved CUSTOM suite: a link when signed in, sign-in otherwise; not on lm-eval suites', async () => {
    expect((await ada.agent.get(`/evals/${suite.slug}`).expect(200)).text).to.include(`href="/evals/${suite.slug}/run"`);
    expect((await request(ctx.app).get(`/evals/${suite.slug}`).expect(200)).text).to.include(
      `/signin?next=${encodeURIComponent(`/evals/${suite.slug}/run`)}`,
    );
    const lmEval = await registeredApprovedSuite(ctx, root, ada, lmEvalSuite());
    expect((await ada.agent.get(`/evals/${lmEval.slug}`).expect(200)).text).not.to.include('/run"');
    expect((await ada.agent.get(`/evals/${lmEval.slug}/run`)).status).to.equal(404);
    const anonymous = await request(ctx.app).get(`/evals/${suite.slug}/run`);
    expect(anonymous.status).to.equal(303);
    expect(anonymous.headers.location).to.match(/^\/signin/);
    const page = await ada.agent.get(`/evals/${suite.slug}/run`).expect(200);
    for (const name of ['baseUrl', 'model', 'hfId', 'apiKey', 'setupId', 'quantization', 'autoSubmit'])
      expect(page.text).to.include(`name="${name}"`);
    expect(page.text).to.include('cloudflared tunnel');
    expect(page.text).to.include('>My 4090</option>');
  });

  it('"Check first" shows the dry-run report on the form', async () => {
    const res = await post(ada, suite.slug, form({ action: 'check' })).expect(200);
    expect(res.text).to.include('Ready to run');
    expect(res.text).to.include('fake-model (');
    expect(res.text).to.include('6 items in 2 tasks');
    expect(res.text).to.include(`value="${target.url}"`);
  });

  it('answers a refused address with the form, its error and the values (never the key), 400', async () => {
    const res = await post(ada, suite.slug, form({ baseUrl: 'http://10.0.0.1:8080', apiKey: 'sk-never-shown', quantization: 'Q8_0' }));
    expect(res.status).to.equal(400);
    expect(res.text).to.include('10.0.0.1 is a private address; only public addresses can be reached');
    expect(res.text).to.include('value="Q8_0"');
    expect(res.text).not.to.include('sk-never-shown');
    const noHardware = await post(ada, suite.slug, form({ autoSubmit: 'on' }));
    expect(noHardware.status).to.equal(400);
    expect(noHardware.text).to.match(/id="f-setupId-error">Required when autoSubmit is true/);
  });

  it('runs: redirects to the execution page, which polls until it shows the per-task scores and the score', async () => {
    const res = await post(ada, suite.slug, form()).expect(303);
    const path = res.headers.location!;
    expect(path).to.match(/^\/evals\/executions\/[0-9a-f-]{36}$/);
    const html = await finishedPage(ada, path);
    expect(html).to.include('data-status="SUCCEEDED"');
    expect(html).to.include('<td class="num">4 / 4</td><td class="num">75.0%</td>');
    expect(html).to.include('<strong class="execution-score">81.25</strong>');
    // Finished: no more polling, no cancel.
    expect(html).not.to.include('hx-trigger="every 2s"');
    expect(html).not.to.include('/cancel"');
    // The fragment alone for htmx; nobody else's.
    const fragment = await ada.agent.get(path).set(HTMX).expect(200);
    expect(fragment.text.trim()).to.match(/^<div id="execution-status"/);
    expect((await bob.agent.get(path)).status).to.equal(404);
    expect((await request(ctx.app).get(path)).status).to.equal(303);
  });

  it('polls while running and cancels from the page', async () => {
    target.mode = 'hang';
    const path = (await post(ada, suite.slug, form()).expect(303)).headers.location!;
    const running = await ada.agent.get(path).expect(200);
    expect(running.text).to.include('hx-trigger="every 2s"');
    expect(running.text).to.include(`<a href="${path}">Refresh</a>`);
    // The polled fragment carries the cancel form too (it is replaced with the status).
    expect((await ada.agent.get(path).set(HTMX).expect(200)).text).to.include(`action="${path}/cancel"`);
    await ada.agent.post(`${path}/cancel`).type('form').send({ _csrf: ada.csrf }).expect(303);
    expect(await finishedPage(ada, path)).to.include('data-status="CANCELLED"');
    // Cancelling again is harmless.
    expect((await ada.agent.post(`${path}/cancel`).type('form').send({ _csrf: ada.csrf })).status).to.equal(303);
  });

  it('auto-submits with a saved setup: the run link, the "server-executed" mark, and the owner\'s list of executions', async () => {
    ctx.clock.advance(10 * 60_000);
    const path = (await post(ada, suite.slug, form({ autoSubmit: 'on', setupId })).expect(303)).headers.location!;
    const html = await finishedPage(ada, path);
    const runId = /href="\/evals\/runs\/([0-9a-f-]{36})"/.exec(html)?.[1];
    expect(runId, html).to.be.a('string');
    const runPage = await ada.agent.get(`/evals/runs/${runId}`).expect(200);
    expect(runPage.text).to.include('>server-executed</span>');
    expect(runPage.text).to.include('NVIDIA GeForce RTX 4090');
    await approveQualityRun(ctx, runId!);
    expect((await request(ctx.app).get(`/evals/${suite.slug}`).expect(200)).text).to.include('>server-executed</span>');
    const list = await ada.agent.get('/settings/submissions').expect(200);
    expect(list.text).to.include('<h2 id="executions">Executions</h2>');
    expect(list.text).to.include(`<a href="${path}">${suite.slug}</a>`);
  });

  it("a suite slug cannot take the executions pages' name", async () => {
    const res = await request(ctx.app)
      .post(`${root}/suites/dry-run`)
      .set('Authorization', `Bearer ${ada.key}`)
      .send(customSuite({ slug: 'executions' }));
    expect(res.status).to.equal(400);
    expect(res.body.details.fieldErrors.slug[0]).to.match(/reserved/);
  });
});
