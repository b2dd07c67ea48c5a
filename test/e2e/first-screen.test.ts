/**
 * Answers at a glance (issue 36), at a laptop's 1280x800 and a phone's 390x844: the top
 * runs on the first screen, "my model on my machine" in one step, single-stream figures
 * wherever a page names a best, and phones that keep each table's key values in view.
 */
import { expect } from 'chai';
import type { Page } from 'playwright-core';
import { uniqueName, useE2eApp } from './harness.ts';
import { axeProblems, validityProblems } from './page-checks.ts';

const SCREENS = [
  { name: 'laptop 1280x800', options: { viewport: { width: 1280, height: 800 } }, phone: false },
  {
    name: 'phone 390x844',
    options: { viewport: { width: 390, height: 844 }, deviceScaleFactor: 2, isMobile: true, hasTouch: true },
    phone: true,
  },
] as const;

/** How many result rows (cards on a phone) are wholly on the first screen, and where the chart starts. */
async function firstScreen(page: Page) {
  return page.evaluate(() => {
    const rows = [...document.querySelectorAll('#results tbody tr')];
    const chart = document.querySelector('#results .chart-panel');
    return {
      rowsInView: rows.filter((row) => row.getBoundingClientRect().bottom <= window.innerHeight).length,
      firstRowTop: rows[0] ? Math.round(rows[0].getBoundingClientRect().top) : null,
      lastRowBottom: Math.round(rows.at(-1)?.getBoundingClientRect().bottom ?? -1),
      chartTop: chart ? Math.round(chart.getBoundingClientRect().top) : null,
      headerHeight: Math.round(document.querySelector('header.site-header')!.getBoundingClientRect().height),
    };
  });
}

/** The elements matching `selector` that stick out of the screen sideways, and how wide the page scrolls. */
async function offScreen(page: Page, selector: string) {
  return page.evaluate((sel) => {
    const all = [...document.querySelectorAll(sel)];
    return {
      count: all.length,
      outside: all.filter((el) => {
        const box = el.getBoundingClientRect();
        return box.left < -0.5 || box.right > window.innerWidth + 0.5;
      }).length,
      pageWidth: document.documentElement.scrollWidth,
    };
  }, selector);
}

/** The `streams` of each run a link of `links` points at, from the API. */
async function streamsOf(baseUrl: string, page: Page, links: string): Promise<number[]> {
  const ids = [
    ...new Set(
      await page.locator(links).evaluateAll((as) => as.map((a) => /\/runs\/([0-9a-f-]{36})/.exec(a.getAttribute('href') ?? '')?.[1])),
    ),
  ].filter((id): id is string => Boolean(id));
  return Promise.all(
    ids.map(async (id) => ((await (await fetch(`${baseUrl}/api/speed-tests/${id}`)).json()) as { streams: number }).streams),
  );
}

describe('e2e: answers at a glance (issue 36)', () => {
  const e2e = useE2eApp(import.meta.filename, { demoRuns: 300 });

  for (const { name, options, phone } of SCREENS) {
    describe(`at ${name}`, () => {
      it('shows the top runs on the first screen, signed out and signed in, the chart after them', async () => {
        for (const signedIn of [false, true]) {
          const page = await e2e.newPage(options);
          // A long name (32 characters, the most allowed) must not push the phone's header to a second row.
          if (signedIn) await e2e.signUp(page, uniqueName('a_rather_long_username'));
          await page.goto('/');
          const screen = await firstScreen(page);
          await e2e.screenshot(page, `first-screen-${phone ? 'phone' : 'laptop'}${signedIn ? '-signed-in' : ''}`, { fullPage: false });
          expect(screen.rowsInView, JSON.stringify(screen)).to.be.at.least(phone ? 1 : 3);
          expect(screen.chartTop!, 'the chart follows the runs').to.be.above(screen.lastRowBottom);
          // The signed-in header stays one compact block (its account links wait behind a menu on phones).
          expect(screen.headerHeight, 'header height').to.be.at.most(phone ? 130 : 100);
          if (signedIn && phone) {
            expect(await page.getByRole('link', { name: 'API keys' }).isVisible()).to.equal(false);
            await page.locator('details.account-menu > summary').click();
            expect(await page.getByRole('link', { name: 'API keys' }).isVisible()).to.equal(true);
          }
        }
      });

      it('answers "my model on my machine" in one step: the best run per device that fits', async () => {
        const page = await e2e.newPage(options);
        await page.goto('/');
        await page.getByLabel('Model', { exact: true }).fill('llama 3.1 8b');
        await page.getByLabel('Your machine').fill('24 GB');
        await page.getByRole('button', { name: 'Best run per device' }).click();
        await page.waitForURL((url) => url.searchParams.get('bestPer') === 'hardware' && url.searchParams.get('machine') === '24 GB');
        await page.locator('#machine-read').waitFor();
        expect(await page.locator('#machine-read').innerText()).to.equal(
          'Your machine read as up to 24 GB of memory: the best run on each device.',
        );
        const expected = await (
          await fetch(
            `${e2e.baseUrl}/api/leaderboard?hfId=meta-llama/Llama-3.1-8B&scope=tree&memoryAtMost=24&bestPer=hardware&batchSize=1&limit=50`,
          )
        ).json();
        expect(expected.total).to.be.above(1);
        await page.waitForFunction((n) => document.querySelectorAll('#results tbody tr').length === n, expected.rows.length);
        const shown = await page.locator('#results tbody td.speed a').evaluateAll((as) => as.map((a) => a.getAttribute('href')));
        expect(shown).to.deep.equal(expected.rows.map((row: { id: string }) => `/runs/${row.id}`));
        const memory = expected.rows.map(
          (row: { hardware: { vramGb?: number; unifiedMemoryGb?: number; ramGb?: number; gpuCount?: number } }) => row.hardware,
        );
        expect(new Set(expected.rows.map((row: { hardwareId: string }) => row.hardwareId)).size, 'one run per device').to.equal(
          expected.rows.length,
        );
        expect(memory.length).to.be.above(0);
        // The first answer is on the first screen.
        expect((await firstScreen(page)).rowsInView).to.be.at.least(1);
        await e2e.screenshot(page, `my-model-my-machine-${phone ? 'phone' : 'laptop'}`, { fullPage: false });

        // A device's name instead of a size.
        await page.goto('/?hfId=qwen3%2030b&machine=4090&bestPer=hardware');
        expect(await page.locator('#machine-read').innerText()).to.equal(
          'Your machine read as hardware named “4090”: the best run on each device.',
        );
        const hardware = await page.locator('#results tbody td.hardware').allInnerTexts();
        expect(hardware.length).to.be.above(0);
        expect(
          hardware.every((text) => text.includes('4090')),
          hardware.join(', '),
        ).to.equal(true);
      });

      it('draws and names only single-stream figures on a model page and a device page; throughput is marked', async () => {
        const page = await e2e.newPage(options);
        await page.goto('/models/meta-llama/Llama-3.1-8B-Instruct?scope=tree');
        expect(await page.locator('#charts-streams').innerText()).to.match(/^The charts draw single-stream runs/);
        const drawn = await streamsOf(e2e.baseUrl, page, 'section.charts a[href^="/runs/"]');
        expect(drawn.length).to.be.above(0);
        expect(new Set(drawn)).to.deep.equal(new Set([1]));
        // The "fastest" line: single-stream first; a throughput figure only with its streams.
        const figures = await page.locator('#model-figures').innerText();
        expect(figures).to.match(/Fastest single-stream: [\d,.]+ output tok\/s/);
        if (figures.includes('throughput')) expect(figures).to.match(/Fastest throughput run: [\d,.]+ output tok\/s ×\d+ streams/);
        // Every table cell of a throughput run says so.
        for (const cell of await page.locator('#model-runs td.speed').all()) {
          const href = await cell.locator('a').first().getAttribute('href');
          const [streams] = await streamsOf(e2e.baseUrl, page, `#model-runs td.speed a[href="${href}"]`);
          if (streams! > 1) expect(await cell.innerText()).to.include(`×${streams} streams`);
        }

        await page.goto('/hardware');
        await page.locator('main table a[href^="/hardware/"]').first().click();
        await page.waitForURL((url) => /^\/hardware\/[^/]+$/.test(url.pathname));
        const onDevice = await streamsOf(e2e.baseUrl, page, 'main td.speed a[href^="/runs/"]');
        expect(onDevice.length).to.be.above(0);
        expect(new Set(onDevice)).to.deep.equal(new Set([1]));
      });

      if (phone) {
        it('keeps the key values of secondary tables in view: API keys, compare, model quality', async () => {
          const page = await e2e.newPage(options);
          await e2e.signUp(page);
          await page.goto('/settings/keys');
          await page.getByLabel('Name').fill('phone agent with a long descriptive name');
          await page.getByRole('button', { name: 'Create key' }).click();
          await page.locator('#keys-panel table').waitFor();
          const keys = await offScreen(page, '#keys-panel tbody td');
          expect(keys.count).to.be.at.least(5);
          expect(keys, 'key table cells').to.include({ outside: 0, pageWidth: 390 });
          expect(await page.locator('#keys-panel tbody td.key').innerText()).to.equal('phone agent with a long descriptive name');

          const ids = await e2e.db('speed_test_runs').where({ status: 'APPROVED' }).orderBy('created_at').limit(3).pluck('id');
          await page.goto(`/compare?runs=${ids.join(',')}`);
          // The fact column stays on screen while the runs scroll beside it.
          await page.locator('.compare-wrap').evaluate((el) => el.scrollTo({ left: el.scrollWidth }));
          const facts = await offScreen(page, 'table.compare th[scope="row"]');
          expect(facts.count).to.be.above(10);
          expect(facts, 'fact column').to.include({ outside: 0, pageWidth: 390 });

          const model = await e2e
            .db('quality_runs as q')
            .join('models as m', 'm.id', 'q.model_id')
            .where('q.status', 'APPROVED')
            .first('m.hf_id');
          await page.goto(`/models/${model.hf_id}`);
          const quality = await offScreen(page, 'table.model-quality td');
          expect(quality.count).to.be.above(0);
          expect(quality, 'quality table cells').to.include({ outside: 0, pageWidth: 390 });
          await e2e.screenshot(page, 'quality-cards-phone', { fullPage: false });
        });
      }

      it('passes axe and html-validate in its new states', async function () {
        this.timeout(90_000);
        const page = await e2e.newPage(options);
        await e2e.signUp(page);
        const problems: string[] = [];
        for (const path of [
          '/',
          '/?hfId=llama%203.1%208b&machine=24%20GB&bestPer=hardware',
          '/settings/keys',
          '/models/meta-llama/Llama-3.1-8B-Instruct?scope=tree',
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
