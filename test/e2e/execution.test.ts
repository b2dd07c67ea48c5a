import { expect } from 'chai';
import { FAST_EXECUTION_TIMING } from '../helpers/executions.ts';
import { fakeHubModels } from '../helpers/fake-hub.ts';
import { arithmeticAnswers, startFakeOpenAi, type FakeOpenAi } from '../helpers/fake-openai.ts';
import { customSuite } from '../helpers/quality.ts';
import { useE2eApp } from './harness.ts';

/**
 * Server-side execution in a real browser: from an approved suite's page, "Run this suite",
 * check the server first, run, and watch the execution page fill in by itself (htmx
 * polling) until it shows the per-task scores and the aggregate.
 */
describe('e2e: server-side execution', () => {
  const e2e = useE2eApp(import.meta.filename, {
    env: { EXECUTE_WORKERS: '1', EXECUTE_ALLOW_HOSTS: '127.0.0.1' },
    executionTiming: FAST_EXECUTION_TIMING,
  });
  let target: FakeOpenAi;
  before(async () => {
    target = await startFakeOpenAi({ models: ['fake-model'], answer: arithmeticAnswers({ 'What is 9 / 3?': 'It is 4.' }) });
  });
  after(() => target.close());

  it('runs a suite from its page and shows the progress filling in', async () => {
    const page = await e2e.newPage();
    await e2e.signUp(page);
    // The suite: registered by the signed-in browser, approved in the database (the review has its own journey).
    const body = customSuite({ name: 'Executed arithmetic' });
    const csrf = await page.locator('meta[name="csrf-token"]').getAttribute('content');
    const registered = await page.request.post('/api/benchmarks/suites', { data: body, headers: { 'X-CSRF-Token': csrf! } });
    expect(registered.status()).to.equal(201);
    await e2e.db('quality_suites').where({ slug: body.slug }).update({ status: 'APPROVED' });

    await page.goto(`/evals/${body.slug}`);
    await page.getByRole('link', { name: 'Run this suite on your server' }).click();
    await page.waitForURL(`**/evals/${body.slug}/run`);
    await page.getByLabel('Base URL of your server').fill(target.url);
    await page.getByLabel('Served model name').fill('fake-model');
    await page.getByLabel('Model on the hub').fill(fakeHubModels.dense);
    await page.getByRole('button', { name: 'Check first' }).click();
    await page.getByRole('heading', { name: 'Ready to run' }).waitFor();
    await e2e.screenshot(page, 'execute-form');

    // A slow server, so the page is seen running before it finishes.
    target.mode = 'slow';
    target.slowMs = 400;
    await page.getByRole('button', { name: 'Run' }).click();
    await page.waitForURL('**/evals/executions/*');
    expect(await page.locator('#execution-status').getAttribute('hx-trigger')).to.equal('every 2s');
    // No reload: htmx replaces the status until it is finished.
    await page.locator('#execution-status[data-status="SUCCEEDED"]').waitFor({ timeout: 20_000 });
    expect(await page.locator('.execution-score').innerText()).to.equal('81.25');
    expect(await page.locator('tr[data-task="arith"]').innerText()).to.match(/4 \/ 4\s+75\.0%/);
    expect(await page.locator('#execution-status').getAttribute('hx-trigger')).to.equal(null);
    // Cancel went with the swap: a finished execution has none.
    expect(await page.getByRole('button', { name: 'Cancel' }).count()).to.equal(0);
    await e2e.screenshot(page, 'execution-finished');
  });
});
