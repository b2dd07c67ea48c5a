import { expect } from 'chai';
import type { Page } from 'playwright-core';
import { fakeHubModels } from '../helpers/fake-hub.ts';
import { validSubmission } from '../helpers/fixtures.ts';
import { customSuite, qualityRun } from '../helpers/quality.ts';
import { markWindow, useE2eApp, windowStillMarked } from './harness.ts';

/**
 * The life of a quality suite and a run in a real browser: an author registers a suite, an
 * admin approves it on /admin/quality, the author uploads a run (with traces), the admin
 * approves the run, and a visitor finds it on the suite page (leaderboard and the
 * quality-vs-speed chart) and on the model page.
 */
describe('e2e: quality evaluations', () => {
  const e2e = useE2eApp(import.meta.filename);

  /** A JSON call made by the signed-in browser itself (its session cookie and CSRF token). */
  async function callApi(page: Page, method: 'post', path: string, data: unknown) {
    const csrf = await page.locator('meta[name="csrf-token"]').getAttribute('content');
    const res = await page.request[method](path, { data: data as object, headers: { 'X-CSRF-Token': csrf! } });
    expect(res.status(), `${path}: ${await res.text()}`).to.be.within(200, 201);
    return (await res.json()) as Record<string, any>;
  }

  it('takes a suite and a run from registration to the public pages', async () => {
    const author = await e2e.newPage();
    await e2e.signUp(author);
    await author.goto('/evals');

    // Registered through the form: pasted, checked live (htmx), sent.
    const body = customSuite({ name: 'Journey arithmetic' });
    await author.getByRole('link', { name: 'Register a suite' }).click();
    await author.waitForURL('**/evals/new');
    const broken = structuredClone(body);
    delete broken.suiteDoc.tasks[0].promptTemplate;
    await author.getByLabel('Suite JSON').fill(JSON.stringify(broken, null, 2));
    await author.locator('#suite-check', { hasText: 'suiteDoc.tasks.0.promptTemplate' }).waitFor();
    await author.getByLabel('Suite JSON').fill(JSON.stringify(body, null, 2));
    await author.locator('#suite-check', { hasText: 'Valid: 2 tasks' }).waitFor();
    await e2e.screenshot(author, 'suite-form');
    await author.getByRole('button', { name: 'Register' }).click();
    await author.waitForURL('**/settings/submissions?registered=*');
    expect(await author.locator('#suites').count()).to.equal(1);
    expect(await author.locator('main').innerText()).to.include(body.slug);
    const suite = await e2e.db('quality_suites').where({ slug: body.slug }).first('id', 'status');
    expect(suite.status).to.equal('PENDING');

    // A pending suite is not public yet.
    const visitor = await e2e.newPage();
    const hidden = await visitor.goto(`/evals/${body.slug}`);
    expect(hidden!.status()).to.equal(404);

    const admin = await e2e.newPage();
    await e2e.signInAsAdmin(admin);
    await admin.goto('/admin/quality');
    const suiteCard = admin.locator(`#quality-suite-${suite.id}`);
    expect(await suiteCard.locator('code', { hasText: body.slug }).count()).to.be.greaterThan(0);
    await markWindow(admin);
    await suiteCard.getByRole('button', { name: 'Approve' }).click();
    await admin
      .locator(`#quality-suite-${suite.id} .badge`, { hasText: /^approved$/ })
      .first()
      .waitFor();
    expect(await windowStillMarked(admin), 'the card was swapped in place').to.equal(true);
    await e2e.screenshot(admin, 'suite-approved');

    // A speed test of the same model, quantization and hardware gives the run its place on the chart.
    await author.goto('/evals');
    await callApi(author, 'post', '/api/speed-tests', validSubmission({ tokSOut: 88.8 }));
    e2e.clock.advance(10 * 60_000);
    const run = await callApi(
      author,
      'post',
      '/api/benchmarks/runs',
      qualityRun(body.slug, {
        artifacts: [0, 1, 2, 3].map((itemIndex) => ({
          taskKey: 'arith',
          itemIndex,
          response: `Final answer: ${[4, 7, 42, 3][itemIndex]}`,
        })),
      }),
    );
    expect(run).to.include({ status: 'PENDING', score: 87.5 });
    await author.goto(`/evals/runs/${run.id}`);
    expect(await author.locator('main').innerText()).to.match(/pending/i);

    await admin.goto('/admin/quality');
    const runCard = admin.locator(`#quality-run-${run.id}`);
    expect(await runCard.innerText()).to.include('87.5');
    await runCard.getByRole('button', { name: 'Approve' }).click();
    await admin
      .locator(`#quality-run-${run.id} .badge`, { hasText: /^approved$/ })
      .first()
      .waitFor();
    // Approved, it has left the queue: the swapped card offers no Reject (a scripted "first Reject" finds none).
    expect(await runCard.getByRole('button', { name: 'Reject' }).count()).to.equal(0);
    expect(await runCard.getByRole('status').innerText()).to.equal('Approved: it has left the queue.');

    // Public: the catalogue, the suite page with the run and the chart, the run page, the model page.
    await visitor.goto('/evals');
    await visitor.getByRole('link', { name: 'Journey arithmetic' }).first().click();
    await visitor.waitForURL(`**/evals/${body.slug}`);
    const row = visitor.locator(`#suite-runs tr[data-run="${run.id}"]`);
    expect(await row.innerText()).to.include('87.5');
    expect(await visitor.locator('#suite-runs svg title', { hasText: 'Quality vs speed' }).count()).to.equal(1);
    expect(await visitor.locator('#suite-runs svg .chart-points .chart-point').count()).to.equal(1);
    await e2e.screenshot(visitor, 'suite-page');

    await row.locator(`a[href="/evals/runs/${run.id}"]`).click();
    await visitor.waitForURL(`**/evals/runs/${run.id}`);
    expect(await visitor.locator('main').innerText()).to.include('Final answer: 42');

    await visitor.goto(`/models/${fakeHubModels.dense}`);
    const quality = visitor.locator('#quality');
    expect(await quality.innerText()).to.include('Journey arithmetic');
    await e2e.screenshot(visitor, 'model-page');
  });
});
