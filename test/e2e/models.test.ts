import { expect } from 'chai';
import { markWindow, useE2eApp, windowStillMarked } from './harness.ts';

describe('e2e: models', () => {
  const e2e = useE2eApp(import.meta.filename, { demoRuns: 120 });

  it('narrows the list while typing, then opens a model page with its charts', async () => {
    const page = await e2e.newPage();
    await page.goto('/models');
    const countLine = page.locator('#model-list > p.muted');
    const initial = await countLine.innerText();
    const total = Number(initial.split(' ')[0]);
    expect(total).to.be.at.least(10);
    expect(await page.locator('#model-list tbody tr').count()).to.equal(total);
    await markWindow(page);

    // Type without pressing Enter: the list narrows by itself.
    await page.getByRole('searchbox', { name: 'Search models' }).pressSequentially('qwen3', { delay: 40 });
    await page.waitForURL((url) => url.searchParams.get('search') === 'qwen3');
    await page.waitForFunction((text) => document.querySelector('#model-list > p.muted')?.textContent !== text, initial);
    const ids = await page.locator('#model-list tbody tr td:first-child a').allInnerTexts();
    expect(ids.length).to.be.within(1, total - 1);
    for (const id of ids) expect(id.toLowerCase()).to.include('qwen3');
    expect(await countLine.innerText()).to.equal(`${ids.length} model${ids.length === 1 ? '' : 's'}`);
    expect(await windowStillMarked(page), 'searched in place').to.equal(true);
    await e2e.screenshot(page, 'search');

    // Nothing matches: an empty state, not an empty table.
    await page.getByRole('searchbox', { name: 'Search models' }).fill('no-such-model-anywhere');
    await page.getByText('No models match.').waitFor();

    await page.getByRole('searchbox', { name: 'Search models' }).fill('Qwen3-8B');
    await page.locator('#model-list tbody tr').first().getByRole('link', { name: 'Qwen/Qwen3-8B' }).waitFor();
    await page.getByRole('link', { name: 'Qwen/Qwen3-8B', exact: true }).click();
    await page.waitForURL('**/models/Qwen/Qwen3-8B');
    expect(await page.getByRole('heading', { level: 1 }).innerText()).to.equal('Qwen3-8B');
    const runs = Number(await page.locator('section.card', { hasText: 'approved run' }).locator('strong').first().innerText());
    expect(runs).to.be.above(0);

    // The wide variant of each chart is drawn (the phone one hidden): bars by hardware, prefill
    // against decode, speed against memory; a chart without data says so. No demo run of this
    // model states its context depth, so the depth chart is a sentence saying that instead.
    const charts = page.locator('section.charts svg.chart:visible');
    expect(await charts.count()).to.equal(3);
    expect(await page.locator('#no-depth-data').isVisible()).to.equal(true);
    for (const chart of await charts.all()) {
      const box = (await chart.boundingBox())!;
      expect(box.width).to.be.above(200);
      if (!(await chart.innerHTML()).includes('No data')) expect(box.height).to.be.above(100);
    }
    expect(await charts.nth(0).locator('.chart-bar').count()).to.be.above(0);
    expect(await charts.nth(2).locator('.chart-point, .chart-point-suspect').count()).to.be.above(0);
    // The table lists the same runs the figures count (this model alone), 50 to a page.
    expect(await page.locator('table.data', { hasText: 'tok/s out' }).locator('tbody tr').count()).to.equal(Math.min(runs, 50));
    await e2e.screenshot(page, 'model-page');
  });

  it('shows the tree of base models and their derivatives', async () => {
    const page = await e2e.newPage();
    await page.goto('/models');
    await page.getByLabel('tree view').check();
    await page.waitForURL((url) => url.searchParams.get('tree') === 'true');
    const base = page.locator('ul.model-tree > li.model-node', {
      has: page.getByRole('link', { name: 'meta-llama/Llama-3.1-8B', exact: true }),
    });
    await base.waitFor();
    expect(await base.locator('ul li').allInnerTexts()).to.satisfy((items: string[]) =>
      items.some((text) => text.includes('meta-llama/Llama-3.1-8B-Instruct') && text.includes('finetune')),
    );
  });
});
