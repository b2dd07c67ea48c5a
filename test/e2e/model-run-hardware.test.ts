import { expect } from 'chai';
import type { BrowserContextOptions, Page } from 'playwright-core';
import { markWindow, useE2eApp, windowStillMarked } from './harness.ts';
import { axeProblems, validityProblems } from './page-checks.ts';

const DESKTOP: BrowserContextOptions = { viewport: { width: 1280, height: 900 } };
const PHONE: BrowserContextOptions = { viewport: { width: 390, height: 844 }, deviceScaleFactor: 2, isMobile: true, hasTouch: true };

/** The first number in a text ("1,234 runs" -> 1234). */
const firstNumber = (text: string) => Number(/[\d,]+/.exec(text)![0].replace(/,/g, ''));

describe('e2e: model scope, run context, compare and hardware pages', () => {
  const e2e = useE2eApp(import.meta.filename, { demoRuns: 120 });

  /** The base model with derived models whose tree has the most runs beyond its own. */
  async function modelWithDerivedRuns(): Promise<string> {
    const { rows } = await e2e.db.raw(
      `select b.hf_id from models b join models c on c.base_model_id = b.id
       group by b.id, b.hf_id, b.benchmark_count having sum(c.benchmark_count) > 0 and b.benchmark_count > 0
       order by sum(c.benchmark_count) + b.benchmark_count desc limit 1`,
    );
    expect(rows, 'a demo model with runs of its own and of its derived models').to.have.length(1);
    return rows[0].hf_id as string;
  }

  for (const [width, viewport] of [
    [1280, DESKTOP],
    [390, PHONE],
  ] as const) {
    describe(`at ${width} px`, () => {
      const problems: string[] = [];

      /** Every page of the journey: valid HTML, no serious axe violation, no sideways scroll. */
      async function checkPage(page: Page, name: string): Promise<void> {
        const path = new URL(page.url()).pathname + new URL(page.url()).search;
        for (const problem of await validityProblems(page, path)) problems.push(`${name} (${path}) html-validate: ${problem}`);
        for (const problem of await axeProblems(page)) problems.push(`${name} (${path}) axe: ${problem}`);
        const scrollWidth = await page.evaluate(() => document.documentElement.scrollWidth);
        if (scrollWidth > width) problems.push(`${name} (${path}) is ${scrollWidth} px wide`);
        await e2e.screenshot(page, `${width}-${name}`);
      }

      /** At the end of each journey: what the checks found on its pages. */
      function expectNoProblems(): void {
        const found = problems.splice(0);
        expect(found, found.join('\n')).to.deep.equal([]);
      }

      it('a model page counts one scope everywhere, toggles it with a plain link, and pages its table in place', async () => {
        const hfId = await modelWithDerivedRuns();
        const page = await e2e.newPage(viewport);
        await page.goto(`/models/${hfId}`);
        const figures = async () => firstNumber(await page.locator('#model-figures strong').first().innerText());
        const tableCount = async () => firstNumber(await page.locator('#model-runs-count').innerText());
        const own = await figures();
        expect(await tableCount()).to.equal(own);
        expect(await page.locator('#model-runs tbody tr').count()).to.equal(Math.min(own, 50));
        // The charts sit above the table, drawn for this width (the other variant hidden); no run
        // of these states its context depth, so the depth chart is a sentence instead.
        const charts = page.locator('section.charts svg.chart:visible');
        expect(await charts.count()).to.equal(3);
        expect(await page.locator('#no-depth-data').isVisible()).to.equal(true);
        const chartBottom = (await charts.last().boundingBox())!;
        expect(chartBottom.y).to.be.below((await page.locator('#model-runs').boundingBox())!.y);
        await checkPage(page, 'model');

        await page.getByRole('link', { name: /With its finetunes and quantizations/ }).click();
        await page.waitForURL((url) => url.searchParams.get('scope') === 'tree');
        const tree = await figures();
        expect(tree).to.be.above(own);
        expect(await tableCount()).to.equal(tree);
        await checkPage(page, 'model-tree');

        // A short page size to have pages: "Next" swaps the table in place and updates the address.
        await page.goto(`/models/${hfId}?scope=tree&limit=2`);
        await markWindow(page);
        await page.locator('#model-runs').getByRole('link', { name: 'Next →' }).click();
        await page.waitForURL((url) => url.searchParams.get('offset') === '2');
        await page.locator('#model-runs-count', { hasText: 'showing 3–4' }).waitFor();
        expect(await windowStillMarked(page), 'paged in place').to.equal(true);
        expect(await page.locator('#model-runs tbody tr').count()).to.equal(2);
        expectNoProblems();
      });

      it('from a table to the compare view, then a run page with its ranks, similar runs and link to copy', async () => {
        const hfId = await modelWithDerivedRuns();
        const page = await e2e.newPage({ ...viewport, permissions: ['clipboard-read', 'clipboard-write'] });
        await page.goto(`/models/${hfId}?scope=tree`);
        const boxes = page.locator('#model-runs input[type="checkbox"][name="runs"]');
        await boxes.nth(0).check();
        await boxes.nth(1).check();
        const picked = [await boxes.nth(0).getAttribute('value'), await boxes.nth(1).getAttribute('value')];
        await page.getByRole('button', { name: 'Compare selected' }).click();
        await page.waitForURL((url) => url.pathname === '/compare' && url.searchParams.get('runs') === picked.join(','));
        expect(await page.locator('table.compare thead th').count()).to.equal(3);
        expect(await page.locator('table.compare tr.differs').count()).to.be.above(0);
        await checkPage(page, 'compare');

        // A bad address: the page with what is wrong and the form to fix it.
        await page.goto('/compare?runs=nope,also-nope');
        await page.locator('#compare-problems', { hasText: 'Not run ids' }).waitFor();
        await page.getByLabel(/Run ids/).fill(picked.join(','));
        await page.getByRole('button', { name: 'Compare', exact: true }).click();
        await page.locator('table.compare').waitFor();
        await checkPage(page, 'compare-fixed');

        await page.getByRole('link', { name: 'Run 1' }).click();
        await page.waitForURL(`**/runs/${picked[0]}`);
        const standing = await page.locator('#run-standing').innerText();
        expect(standing).to.match(/#\d+ of \d+ (single-stream runs|runs of [\d a-z]+ streams) of/);
        expect(standing).to.match(/#\d+ of \d+ .* on this hardware profile/);
        const copy = page.getByRole('button', { name: 'Copy link' });
        await copy.click();
        await page.locator('[data-copy-status]', { hasText: 'Copied.' }).waitFor();
        expect(await page.evaluate(() => navigator.clipboard.readText())).to.equal(`${e2e.baseUrl}/runs/${picked[0]}`);
        await checkPage(page, 'run');
        expectNoProblems();
      });

      it('the hardware index leads to a device page, its machines, and back up', async () => {
        const page = await e2e.newPage(viewport);
        await page.goto('/hardware');
        await checkPage(page, 'hardware-index');
        const first = page.locator('main table tbody tr').first().getByRole('link');
        const name = await first.innerText();
        await first.click();
        await page.waitForURL(/\/hardware\/[a-z0-9-]+$/);
        expect(await page.getByRole('heading', { level: 1 }).innerText()).to.equal(name);
        await page.locator('#device-specs').waitFor();
        expect(await page.locator('section.charts svg.chart:visible').count()).to.equal(1);
        expect(await page.locator('#device-best tbody tr').count()).to.be.above(0);
        const device = page.url();
        await checkPage(page, 'hardware-device');
        await page.locator('#device-profiles a').first().click();
        await page.waitForURL(/\/hardware\/[0-9a-f-]{36}$/);
        await checkPage(page, 'hardware-profile');
        await page.locator('#device-link').click();
        await page.waitForURL(device);
        expectNoProblems();
      });
    });
  }

  it('without JavaScript: the scope toggle, the compare boxes and the link to copy still work', async () => {
    const hfId = await modelWithDerivedRuns();
    const page = await e2e.newPage({ javaScriptEnabled: false });
    await page.goto(`/models/${hfId}`);
    await page.getByRole('link', { name: /With its finetunes and quantizations/ }).click();
    await page.waitForURL((url) => url.searchParams.get('scope') === 'tree');
    const boxes = page.locator('#model-runs input[type="checkbox"][name="runs"]');
    await boxes.nth(0).check();
    await boxes.nth(1).check();
    await page.getByRole('button', { name: 'Compare selected' }).click();
    await page.waitForURL((url) => url.pathname === '/compare' && (url.searchParams.get('runs') ?? '').split(',').length === 2);
    await page.getByRole('link', { name: 'Run 1' }).click();
    await page.waitForURL(/\/runs\//);
    expect(await page.locator('#share-url').inputValue()).to.equal(page.url());
    expect(await page.getByRole('button', { name: 'Copy link' }).isVisible()).to.equal(false);
  });
});
