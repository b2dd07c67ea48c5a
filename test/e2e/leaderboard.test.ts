import { expect } from 'chai';
import type { Page } from 'playwright-core';
import { markWindow, useE2eApp, windowStillMarked } from './harness.ts';

/** The "N runs, showing a–b." line above the table. */
async function summary(page: Page): Promise<string> {
  return (await page.locator('#results > p.muted').first().innerText()).trim();
}

async function apiTotal(baseUrl: string, query: string): Promise<number> {
  const res = await fetch(`${baseUrl}/api/leaderboard?${query}&limit=1`);
  expect(res.status).to.equal(200);
  return ((await res.json()) as { total: number }).total;
}

/** Waits until the results region has been swapped away from `previous`. */
async function resultsChangedFrom(page: Page, previous: string): Promise<void> {
  await page.waitForFunction((text) => document.querySelector('#results > p.muted')?.textContent?.trim() !== text, previous);
}

describe('e2e: leaderboard filters, history, sort, paging and export', () => {
  const e2e = useE2eApp(import.meta.filename, { demoRuns: 300 });

  it('changes only the results region, updates the URL, and restores earlier results on back', async () => {
    const page = await e2e.newPage();
    await page.goto('/');
    const all = await summary(page);
    // The page shows single-stream runs unless asked (the API's default is every run).
    const singles = await apiTotal(e2e.baseUrl, 'batchSize=1');
    expect(singles).to.be.within(51, 299);
    expect(all).to.match(new RegExp(`^${singles} runs, showing 1–50\\.`));
    expect(await page.locator('#results tbody tr').count()).to.equal(50);
    await e2e.screenshot(page, 'start');

    await markWindow(page);
    await page.locator('form.filters').evaluate((form: HTMLElement) => (form.dataset.e2e = 'kept'));

    // A filter: the URL and the results change, the form and the page stay.
    await page.getByLabel('Hardware class').selectOption('DISCRETE_GPU');
    await page.waitForURL((url) => url.search === '?hwClass=DISCRETE_GPU');
    await resultsChangedFrom(page, all);
    const gpuTotal = await apiTotal(e2e.baseUrl, 'hwClass=DISCRETE_GPU&batchSize=1');
    expect(gpuTotal).to.be.within(51, 299);
    const gpuOnly = await summary(page);
    expect(gpuOnly).to.equal(`${gpuTotal} runs, showing 1–50. Export CSV`);
    expect(await page.locator('form.filters').getAttribute('data-e2e'), 'the form was not replaced').to.equal('kept');
    expect(await windowStillMarked(page), 'no page load').to.equal(true);
    const gpuFirstRows = await page.locator('#results tbody').innerText();

    // A second filter narrows further.
    await page.getByLabel('Engine', { exact: true }).selectOption('llama.cpp');
    await page.waitForURL((url) => url.search === '?hwClass=DISCRETE_GPU&engineName=llama.cpp');
    await resultsChangedFrom(page, gpuOnly);
    const llamaTotal = await apiTotal(e2e.baseUrl, 'hwClass=DISCRETE_GPU&engineName=llama.cpp&batchSize=1');
    expect(llamaTotal).to.be.below(gpuTotal);
    expect(await summary(page)).to.match(new RegExp(`^${llamaTotal} runs`));
    const engines = await page.locator('#results tbody tr td:nth-child(4)').allInnerTexts();
    expect(engines.every((text) => text.startsWith('llama.cpp')), engines.join(', ')).to.equal(true);
    await e2e.screenshot(page, 'filtered');

    // Back: the previous results (and the form matching them) come back.
    await page.goBack();
    await page.waitForURL((url) => url.search === '?hwClass=DISCRETE_GPU');
    await page.waitForFunction((text) => document.querySelector('#results > p.muted')?.textContent?.trim() === text, gpuOnly);
    expect(await page.locator('#results tbody').innerText()).to.equal(gpuFirstRows);
    expect(await page.getByLabel('Hardware class').inputValue()).to.equal('DISCRETE_GPU');
    expect(await page.getByLabel('Engine', { exact: true }).inputValue()).to.equal('');
    expect(await page.locator('header.site-header').count(), 'the page is whole after going back').to.equal(1);
    expect(await page.locator('form.filters').count()).to.equal(1);

    // Back again: every run.
    await page.goBack();
    await page.waitForURL((url) => url.search === '');
    await page.waitForFunction((text) => document.querySelector('#results > p.muted')?.textContent?.trim() === text, all);
    expect(await page.locator('header.site-header').count()).to.equal(1);
  });

  it('sorts, pages and exports with the filters kept', async () => {
    const page = await e2e.newPage();
    await page.goto('/?hwClass=DISCRETE_GPU');
    const gpuTotal = await apiTotal(e2e.baseUrl, 'hwClass=DISCRETE_GPU&batchSize=1');

    // Sort by time to first token: the column is ascending.
    const before = await summary(page);
    await page.getByLabel('Rank by').selectOption('ttftMs');
    await page.waitForURL((url) => url.searchParams.get('sort') === 'ttftMs' && url.searchParams.get('hwClass') === 'DISCRETE_GPU');
    await page.waitForFunction(() => document.querySelector('#results tbody tr td:nth-child(7)') !== null);
    await page.waitForFunction(
      () => {
        const values = [...document.querySelectorAll('#results tbody tr td:nth-child(7)')].map((td) => Number(td.textContent!.replace(/,/g, '')));
        return values.every((v, i) => i === 0 || values[i - 1]! <= v);
      },
      undefined,
      { timeout: 5000 },
    );
    expect(await summary(page)).to.equal(before);
    const firstPageTtft = await page.locator('#results tbody tr td:nth-child(7)').allInnerTexts();
    const lastOnFirstPage = Number(firstPageTtft.at(-1)!.replace(/,/g, ''));

    // Next page: ranks 51.., still sorted and filtered.
    await markWindow(page);
    await page.getByRole('link', { name: 'Next →' }).click();
    await page.waitForURL((url) => url.searchParams.get('offset') === '50' && url.searchParams.get('sort') === 'ttftMs');
    await page.waitForFunction(() => document.querySelector('#results tbody tr td:first-child')?.textContent?.trim() === '51');
    expect(await summary(page)).to.equal(`${gpuTotal} runs, showing 51–${Math.min(100, gpuTotal)}. Export CSV`);
    const secondPageTtft = (await page.locator('#results tbody tr td:nth-child(7)').allInnerTexts()).map((t) => Number(t.replace(/,/g, '')));
    expect(secondPageTtft[0]).to.be.at.least(lastOnFirstPage);
    expect(await windowStillMarked(page)).to.equal(true);
    expect(await page.getByRole('link', { name: '← Previous' }).isVisible()).to.equal(true);
    await e2e.screenshot(page, 'page-2');

    // The export link carries the filters and the sort (not the page).
    const href = (await page.getByRole('link', { name: 'Export CSV' }).getAttribute('href'))!;
    const exportUrl = new URL(href, e2e.baseUrl);
    expect(exportUrl.pathname).to.equal('/api/leaderboard');
    expect(exportUrl.searchParams.get('hwClass')).to.equal('DISCRETE_GPU');
    expect(exportUrl.searchParams.get('sort')).to.equal('ttftMs');
    expect(exportUrl.searchParams.get('format')).to.equal('csv');
    expect(exportUrl.searchParams.has('offset')).to.equal(false);
    const csv = await page.request.get(href);
    expect(csv.status()).to.equal(200);
    expect(csv.headers()['content-type']).to.match(/^text\/csv/);
    const lines = (await csv.text()).trim().split('\n');
    expect(lines.length).to.equal(gpuTotal + 1);
    expect(exportUrl.searchParams.get('batchSize'), 'the export holds the runs shown').to.equal('1');
  });

  it('shows single-stream runs by default, says so, and every run one click away', async () => {
    const page = await e2e.newPage();
    await page.goto('/');
    expect(await page.locator('#streams-view').innerText()).to.match(/^Single-stream runs/);
    const singles = await summary(page);
    await markWindow(page);
    await page.getByRole('link', { name: 'Show all runs, throughput runs included' }).click();
    await page.waitForURL((url) => url.search === '?batchSize=all');
    await resultsChangedFrom(page, singles);
    expect(await summary(page)).to.match(/^300 runs, showing 1–50\./);
    expect(await page.locator('#streams-view').innerText()).to.match(/^All runs/);
    expect(await windowStillMarked(page), 'no page load').to.equal(true);
    // Throughput runs carry their streams on the row.
    expect(await page.locator('#results tbody .badge', { hasText: 'streams' }).count()).to.be.above(0);
    await e2e.screenshot(page, 'all-runs');
    await page.getByRole('link', { name: 'Single-stream runs only' }).click();
    await page.waitForURL((url) => url.search === '');
    await page.waitForFunction((text) => document.querySelector('#results > p.muted')?.textContent?.trim() === text, singles);
  });

  it('shows invalid filters as an error in the results region', async () => {
    const page = await e2e.newPage();
    await page.goto('/?memTier=7');
    expect(await page.locator('#results [role="alert"]').innerText()).to.include('memTier');
    expect(await page.locator('form.filters').count()).to.equal(1);
  });
});
