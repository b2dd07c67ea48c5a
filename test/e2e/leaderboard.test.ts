import { expect } from 'chai';
import type { Page } from 'playwright-core';
import { markWindow, useE2eApp, windowStillMarked } from './harness.ts';
import { axeProblems, validityProblems } from './page-checks.ts';

const WIDTHS = [
  { width: 'desktop 1280 px', options: { viewport: { width: 1280, height: 900 } }, phone: false },
  {
    width: 'phone 390 px',
    options: { viewport: { width: 390, height: 844 }, deviceScaleFactor: 2, isMobile: true, hasTouch: true },
    phone: true,
  },
] as const;

/** Numbers of the highlighted (ranked) cells, top to bottom; a cell without the figure is NaN. */
async function rankedValues(page: Page): Promise<number[]> {
  return (await page.locator('#results tbody td.sorted').allInnerTexts()).map((text) => Number.parseFloat(text.replace(/,/g, '')));
}

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
    expect(
      engines.every((text) => text.startsWith('llama.cpp')),
      engines.join(', '),
    ).to.equal(true);
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

    // Sort by time to first token from its column header: the highlighted column is ascending.
    const before = await summary(page);
    await page.locator('#results thead').getByRole('link', { name: 'TTFT ms' }).click();
    await page.waitForURL((url) => url.searchParams.get('sort') === 'ttftMs' && url.searchParams.get('hwClass') === 'DISCRETE_GPU');
    await page.waitForFunction(() => document.querySelector('#results thead th.sorted')?.textContent?.includes('TTFT'));
    const ttftCells = '#results tbody tr td.sorted';
    await page.waitForFunction(
      (cells) => {
        const values = [...document.querySelectorAll(cells)].map((td) => Number(td.textContent!.replace(/,/g, '')));
        return values.length > 0 && values.every((v, i) => i === 0 || values[i - 1]! <= v);
      },
      ttftCells,
      { timeout: 5000 },
    );
    expect(await summary(page)).to.equal(before);
    const firstPageTtft = await page.locator(ttftCells).allInnerTexts();
    const lastOnFirstPage = Number(firstPageTtft.at(-1)!.replace(/,/g, ''));

    // Next page: ranks 51.., still sorted and filtered.
    await markWindow(page);
    await page.getByRole('link', { name: 'Next →' }).click();
    await page.waitForURL((url) => url.searchParams.get('offset') === '50' && url.searchParams.get('sort') === 'ttftMs');
    await page.waitForFunction(() => document.querySelector('#results tbody tr td:first-child')?.textContent?.trim() === '51');
    expect(await summary(page)).to.equal(`${gpuTotal} runs, showing 51–${Math.min(100, gpuTotal)}. Export CSV`);
    const secondPageTtft = (await page.locator(ttftCells).allInnerTexts()).map((t) => Number(t.replace(/,/g, '')));
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
    // The form followed the link: another filter keeps "all runs".
    expect(await page.getByLabel(/^(Streams|Batch size)/).inputValue()).to.equal('all');
    const allRuns = await summary(page);
    await page.getByLabel('Hardware class').selectOption('CPU_ONLY');
    await page.waitForURL((url) => url.searchParams.get('batchSize') === 'all' && url.searchParams.get('hwClass') === 'CPU_ONLY');
    await resultsChangedFrom(page, allRuns);
    await page.getByLabel('Hardware class').selectOption('');
    await page.waitForURL((url) => url.search === '?batchSize=all');
    await page.waitForFunction((text) => document.querySelector('#results > p.muted')?.textContent?.trim() === text, allRuns);
    await page.getByRole('link', { name: 'Single-stream runs only' }).click();
    await page.waitForURL((url) => url.search === '');
    await page.waitForFunction((text) => document.querySelector('#results > p.muted')?.textContent?.trim() === text, singles);
  });

  it('shows invalid filters by their fields, with one notice in the results region', async () => {
    const page = await e2e.newPage();
    await page.goto('/?memTier=7');
    expect(await page.locator('#results [role="alert"]').innerText()).to.include('Some filters are not valid');
    // The field is behind "More filters", opened to show it.
    expect(await page.locator('#lb-memTier-error').isVisible()).to.equal(true);
    expect(await page.locator('#lb-memTier-error').innerText()).to.include('“7” is not one of the choices');
    expect(await page.locator('form.filters').count()).to.equal(1);
  });

  for (const { width, options, phone } of WIDTHS) {
    describe(`at ${width} (issue 17)`, () => {
      it('ranks by a metric from the table, highlights it, and keeps it through filters, reload and back', async () => {
        const page = await e2e.newPage(options);
        await page.goto('/');
        expect(await page.locator('#results thead th.sorted').innerText()).to.include('tok/s out');
        // Desktop: the column header; phone (headers hidden by the card layout): the "Rank by" line.
        const ranker = phone ? page.getByRole('navigation', { name: 'Rank by' }) : page.locator('#results thead');
        await ranker.getByRole('link', { name: 'prefill tok/s' }).click();
        await page.waitForURL((url) => url.search === '?sort=tokSPrefill');
        await page.waitForFunction(() => document.querySelector('#results thead th.sorted')?.textContent?.includes('prefill'));
        const values = await rankedValues(page);
        expect(values.length).to.equal(50);
        const measured = values.filter((v) => !Number.isNaN(v));
        expect(measured, 'prefill descending').to.deep.equal([...measured].sort((a, b) => b - a));
        expect(await page.locator('#results tbody tr').first().locator('td.sorted').isVisible()).to.equal(true);
        // A filter keeps the ranking (the form carries it).
        await page.getByLabel('Hardware class').selectOption('DISCRETE_GPU');
        await page.waitForURL(
          (url) => url.searchParams.get('sort') === 'tokSPrefill' && url.searchParams.get('hwClass') === 'DISCRETE_GPU',
        );
        await page.reload();
        expect(await page.locator('#results thead th.sorted').textContent()).to.include('prefill');
        expect(await page.getByLabel('Hardware class').inputValue()).to.equal('DISCRETE_GPU');
        await page.goBack();
        await page.waitForURL((url) => url.search === '?sort=tokSPrefill');
        await page.waitForFunction(() => document.querySelector('#results thead th.sorted')?.textContent?.includes('prefill'));
        await e2e.screenshot(page, `ranked-by-prefill-${phone ? 'phone' : 'desktop'}`, { fullPage: false });
      });

      it('explains tok/W and ranks only the runs with a power figure, saying how many have one (issue 36)', async () => {
        const page = await e2e.newPage(options);
        await page.goto('/?sort=tokPerWatt');
        expect(await page.locator('#metric-note').innerText()).to.match(
          /^tok\/W is output tokens per second divided by the power in watts/,
        );
        const all = await apiTotal(e2e.baseUrl, 'batchSize=1');
        const withPower = (await (await fetch(`${e2e.baseUrl}/api/leaderboard?batchSize=1&sort=tokPerWatt&limit=200`)).json()).rows.filter(
          (row: { tokPerWatt: number | null }) => row.tokPerWatt !== null,
        ).length;
        expect(await page.locator('#figure-count').innerText()).to.equal(`${withPower} of ${all}`);
        const ranked = await rankedValues(page);
        expect(ranked.length).to.equal(Math.min(50, withPower));
        expect(
          ranked.every((value) => !Number.isNaN(value)),
          'every ranked run has the figure',
        ).to.equal(true);
        await page.locator('#metric-note').getByRole('link', { name: 'How it is worked out' }).click();
        await page.waitForURL((url) => url.pathname === '/methodology' && url.hash === '#efficiency');
        expect(await page.getByRole('heading', { name: 'Efficiency: tok/W and tok/$' }).isVisible()).to.equal(true);
      });

      it('finds hardware, quantization and models as people type them', async () => {
        const page = await e2e.newPage(options);
        await page.goto('/');
        await page.getByLabel('Hardware name').fill('Apple M4 Max');
        await page.getByLabel('Hardware name').press('Enter');
        await page.waitForURL((url) => url.searchParams.get('hardwareName') === 'Apple M4 Max');
        await page.waitForFunction(() => document.querySelector('#results tbody td.hardware')?.textContent?.includes('M4 Max'));
        const hardware = await page.locator('#results tbody td.hardware').allInnerTexts();
        expect(hardware.length).to.be.above(0);
        expect(
          hardware.every((text) => text.includes('M4 Max')),
          hardware.join(', '),
        ).to.equal(true);

        await page.goto('/');
        await page.getByLabel('Quantization').fill('q4_k_m');
        await page.getByLabel('Quantization').press('Enter');
        await page.waitForURL((url) => url.searchParams.get('quantization') === 'q4_k_m');
        await page.locator('#quantization-read').waitFor();
        expect(await page.locator('#quantization-read').innerText()).to.equal('Quantization “q4_k_m” read as Q4_K_M.');
        const quants = await page.locator('#results tbody td.quant').allInnerTexts();
        expect(quants.length).to.be.above(0);
        expect(new Set(quants)).to.deep.equal(new Set(['Q4_K_M']));

        // The model field suggests catalogue models for the words typed.
        await page.goto('/');
        await page.getByLabel('Model', { exact: true }).pressSequentially('qwen 7b', { delay: 20 });
        await page.waitForFunction(() => document.querySelectorAll('#model-suggestions option').length > 0);
        const suggested = await page
          .locator('#model-suggestions option')
          .evaluateAll((options) => options.map((o) => (o as HTMLOptionElement).value));
        expect(
          suggested.every((id) => /qwen/i.test(id) && /7b/i.test(id)),
          suggested.join(', '),
        ).to.equal(true);
      });

      it('reads words in the model box as the base model, its quantizations and finetunes included, "this repo only" one click away (issue 36)', async () => {
        const page = await e2e.newPage(options);
        await page.goto('/');
        await page.getByLabel('Model', { exact: true }).fill('30B qwen3');
        await page.getByLabel('Model', { exact: true }).press('Enter');
        await page.waitForURL((url) => url.searchParams.get('hfId') === '30B qwen3');
        await page.locator('#model-read').waitFor();
        expect(await page.locator('#model-read').innerText()).to.equal(
          '“30B qwen3” read as Qwen/Qwen3-30B-A3B with its quantizations and finetunes (1 more repository). This repo only',
        );
        const modelsShown = async () =>
          new Set(await page.locator('#results tbody td.model a').evaluateAll((as) => as.map((a) => (a as HTMLAnchorElement).title)));
        const tree = await modelsShown();
        const treeTotal = await apiTotal(e2e.baseUrl, 'hfId=Qwen/Qwen3-30B-A3B&scope=tree&batchSize=1');
        expect(await summary(page)).to.match(new RegExp(`^${treeTotal} runs`));
        expect(tree, 'the base and its GGUF repository').to.deep.equal(new Set(['Qwen/Qwen3-30B-A3B', 'unsloth/Qwen3-30B-A3B-GGUF']));
        const before = await summary(page);
        await page.locator('#model-read').getByRole('link', { name: 'This repo only' }).click();
        await page.waitForURL((url) => url.searchParams.get('scope') === 'model' && url.searchParams.get('hfId') === 'Qwen/Qwen3-30B-A3B');
        await resultsChangedFrom(page, before);
        expect(await page.locator('#model-read').innerText()).to.equal(
          'Only the repository Qwen/Qwen3-30B-A3B. Include its quantizations and finetunes',
        );
        expect(await modelsShown()).to.deep.equal(new Set(['Qwen/Qwen3-30B-A3B']));
        const exactTotal = await apiTotal(e2e.baseUrl, 'hfId=Qwen/Qwen3-30B-A3B&batchSize=1');
        expect(exactTotal).to.be.below(treeTotal);
        expect(await summary(page)).to.match(new RegExp(`^${exactTotal} runs`));
        await e2e.screenshot(page, `model-words-${phone ? 'phone' : 'desktop'}`, { fullPage: false });

        // A hub id typed with separators and case of its own, and words that name nothing.
        await page.goto('/?hfId=Llama-3.1-8B-instruct');
        expect(await page.locator('#model-read').innerText()).to.match(
          /^“Llama-3.1-8B-instruct” read as meta-llama\/Llama-3.1-8B with its quantizations and finetunes \(\d+ more repositories\)/,
        );
        expect((await modelsShown()).size).to.be.above(1);
        await page.goto('/?hfId=zzz%20unknown');
        expect(await page.locator('#model-read').innerText()).to.match(/^No catalogued model matches “zzz unknown”/);
      });

      it('answers edges with the page, its form and one inline message', async () => {
        const page = await e2e.newPage(options);
        await page.goto('/?offset=999999');
        expect(await page.locator('form.filters').isVisible()).to.equal(true);
        expect(await page.locator('#past-the-end').innerText()).to.match(/^This page is past the end of the ranking: \d+ runs match\./);
        expect(await summary(page)).not.to.include('showing');
        await page.locator('#past-the-end').getByRole('link', { name: 'First page' }).click();
        await page.waitForURL((url) => url.search === '');
        await page.waitForFunction(() => document.querySelectorAll('#results tbody tr').length === 50);

        await page.goto(`/?hfId=${'x'.repeat(300)}`);
        expect(await page.locator('form.filters').isVisible()).to.equal(true);
        expect(await page.locator('#lb-hfId-error').innerText()).to.equal('Must be at most 256 characters');

        await page.goto('/?engineName=turbo');
        expect(await page.locator('form.filters').isVisible()).to.equal(true);
        expect(await page.getByText('is not one of the choices').count()).to.equal(1);
        expect(await page.getByText('Must be one of').count()).to.equal(0);
      });

      it('shows its chart open after the table (the runs first, issue 36), by hardware class, legible at this width', async () => {
        const page = await e2e.newPage(options);
        await page.goto('/');
        const chartTop = (await page.locator('details.chart-panel').boundingBox())!.y;
        const table = (await page.locator('#results table').boundingBox())!;
        expect(await page.locator('details.chart-panel').getAttribute('open')).to.equal('');
        expect(chartTop).to.be.above(table.y + table.height - 1);
        const svg = page.locator(phone ? '.chart-narrow svg' : '.chart-wide svg');
        expect(await svg.isVisible()).to.equal(true);
        expect(await page.locator(phone ? '.chart-wide svg' : '.chart-narrow svg').isVisible()).to.equal(false);
        // Text drawn at 11 px or more on screen, whatever the viewBox.
        const smallest = await svg.evaluate((el) => {
          const scale = el.getBoundingClientRect().width / (el as SVGSVGElement).viewBox.baseVal.width;
          return Math.min(...[...el.querySelectorAll('text')].map((t) => Number(t.getAttribute('font-size')) * scale));
        });
        expect(smallest).to.be.at.least(11);
        if (!phone) {
          const legend = await svg.locator('.chart-legend text').allTextContents();
          expect(legend).to.include.members(['Discrete GPU', 'Unified memory']);
          const series = await svg
            .locator('.chart-points [class*="chart-series-"]')
            .evaluateAll((marks) => new Set(marks.map((m) => m.getAttribute('class'))).size);
          expect(series).to.be.at.least(2);
          expect(await svg.locator('.chart-direct-label').count()).to.be.at.least(1);
        } else {
          expect(await svg.locator('.chart-bar').count()).to.equal(10);
        }
        await svg.scrollIntoViewIfNeeded();
        await e2e.screenshot(page, `chart-${phone ? 'phone' : 'desktop'}`, { fullPage: false });
      });

      it(
        phone
          ? 'shows each run as a card with model, speed, hardware, engine and quantization, and five filters'
          : 'keeps each row on one line with a compact reaction bar',
        async () => {
          const page = await e2e.newPage(options);
          await e2e.signUp(page);
          await page.goto('/');
          const first = page.locator('#results tbody tr').first();
          if (phone) {
            for (const cell of ['td.model', 'td.speed', 'td.hardware', 'td.engine', 'td.quant']) {
              const box = (await first.locator(cell).boundingBox())!;
              expect(box, cell).to.not.equal(null);
              expect(box.x, cell).to.be.at.least(0);
              expect(box.x + box.width, cell).to.be.at.most(390);
            }
            expect(await page.evaluate(() => document.documentElement.scrollWidth)).to.be.at.most(390);
            for (const label of ['Model', 'Hardware name', 'Hardware class', 'Engine', 'Quantization']) {
              expect(await page.getByLabel(label, { exact: true }).isVisible(), label).to.equal(true);
            }
            expect(await page.getByLabel('Memory tier').isVisible()).to.equal(false);
            await page.locator('details.more-filters > summary').click();
            expect(await page.getByLabel('Memory tier').isVisible()).to.equal(true);
            await first.scrollIntoViewIfNeeded();
            await e2e.screenshot(page, 'cards-phone', { fullPage: false });
          } else {
            const heights = await page
              .locator('#results tbody tr')
              .evaluateAll((rows) => rows.slice(0, 20).map((row) => row.getBoundingClientRect().height));
            expect(Math.max(...heights), 'one line per row').to.be.below(48);
            expect(await page.evaluate(() => document.documentElement.scrollWidth)).to.be.at.most(1280);
            // The whole row is in view: the table needs no sideways scroll either.
            const wrap = await page.locator('#results .table-wrap').evaluate((el) => ({ scroll: el.scrollWidth, client: el.clientWidth }));
            const cols = await page
              .locator('#results thead th')
              .evaluateAll((ths) =>
                ths.map((th) => `${th.textContent!.replace(/\s+/g, ' ').trim()}=${Math.round(th.getBoundingClientRect().width)}`),
              );
            expect(wrap.scroll, JSON.stringify(wrap) + cols.join(' ')).to.be.at.most(wrap.client);
            // The five emoji buttons wait behind "React".
            expect(await first.locator('button.reaction-button').first().isVisible()).to.equal(false);
            await first.locator('details.reaction-picker > summary').click();
            expect(await first.locator('button.reaction-button').count()).to.equal(5);
            expect(await first.locator('button.reaction-button').first().isVisible()).to.equal(true);
            await e2e.screenshot(page, 'rows-desktop', { fullPage: false });
          }
        },
      );

      it('passes axe and html-validate in its states', async function () {
        // Seven states, each checked by axe and html-validate.
        this.timeout(120_000);
        const page = await e2e.newPage(options);
        const problems: string[] = [];
        for (const path of [
          '/',
          '/?sort=tokPerWatt',
          '/?engineName=turbo',
          '/?offset=999999',
          '/?quantization=q4_k_m',
          '/?hfId=qwen3%2030b',
          '/?hfId=Qwen/Qwen3-30B-A3B&scope=model',
        ]) {
          await page.goto(path);
          for (const problem of await axeProblems(page)) problems.push(`${path} axe: ${problem}`);
          for (const problem of await validityProblems(page, path)) problems.push(`${path} html: ${problem}`);
        }
        expect(problems, problems.join('\n')).to.deep.equal([]);
      });
    });
  }
});
