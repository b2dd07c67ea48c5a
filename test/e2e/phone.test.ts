import { expect } from 'chai';
import type { Page } from 'playwright-core';
import { submitRunThroughForm, useE2eApp } from './harness.ts';

const PHONE = { viewport: { width: 390, height: 844 }, deviceScaleFactor: 2, isMobile: true, hasTouch: true };

/**
 * How far the page itself scrolls sideways, elements that stick out of the screen (other
 * than inside a box that scrolls or clips), and how each table is held.
 */
async function layout(page: Page) {
  return page.evaluate(() => ({
    pageWidth: document.documentElement.scrollWidth,
    viewport: window.innerWidth,
    wideElements: [...document.querySelectorAll('body *')]
      .filter((el) => {
        if (el.getBoundingClientRect().right <= window.innerWidth + 0.5 || el.closest('.visually-hidden')) return false;
        for (let parent = el.parentElement; parent && parent !== document.body; parent = parent.parentElement) {
          if (getComputedStyle(parent).overflowX !== 'visible') return false;
        }
        return true;
      })
      .map((el) => `${el.tagName.toLowerCase()}${el.id ? `#${el.id}` : ''}.${[...el.classList].join('.')}`)
      .slice(0, 5),
    tables: [...document.querySelectorAll('table')].map((table) => {
      const wrap = table.closest('.table-wrap') as HTMLElement | null;
      return {
        wrapped: wrap !== null,
        scrollsInside: wrap !== null && wrap.scrollWidth > wrap.clientWidth && getComputedStyle(wrap).overflowX === 'auto',
        fits: table.getBoundingClientRect().right <= window.innerWidth + 0.5,
      };
    }),
  }));
}

describe('e2e: phone width (390 px)', () => {
  const e2e = useE2eApp(import.meta.filename, { demoRuns: 60 });

  for (const { name, path, signedIn } of [
    { name: 'leaderboard', path: '/', signedIn: false },
    { name: 'leaderboard-signed-in', path: '/', signedIn: true },
    { name: 'model', path: '/models/Qwen/Qwen2.5-7B', signedIn: false },
    { name: 'submit', path: '/submit', signedIn: true },
    { name: 'run', path: 'first-run', signedIn: true },
    { name: 'marketplace', path: '/marketplace', signedIn: false },
    { name: 'listing', path: 'first-listing', signedIn: false },
  ]) {
    it(`${name}: no sideways page scroll; wide tables scroll in their own box (the leaderboard's are cards)`, async () => {
      const page = await e2e.newPage(PHONE);
      if (signedIn) await e2e.signUp(page);
      let target = path;
      if (path === 'first-run') {
        const run = await e2e.db('speed_test_runs').first('id').orderBy('created_at', 'desc');
        target = `/runs/${run.id}`;
      }
      if (path === 'first-listing') {
        const listing = await e2e.db('marketplace_listings').where({ status: 'ACTIVE' }).first('id').orderBy('updated_at', 'desc');
        target = `/marketplace/${listing.id}`;
      }
      await page.goto(target);
      const result = await layout(page);
      await e2e.screenshot(page, `${name}-first-screen`, { fullPage: false });
      if (name !== 'leaderboard-signed-in') await e2e.screenshot(page, name);
      expect(result.viewport).to.equal(390);
      expect(result.wideElements, 'elements sticking out of the page').to.deep.equal([]);
      expect(result.pageWidth, 'document scroll width').to.be.at.most(390);
      for (const table of result.tables)
        expect(table.wrapped || table.fits, 'a table wider than the screen outside a scroll box').to.equal(true);
      if (name.startsWith('leaderboard')) {
        // Runs are cards on phones: nothing scrolls sideways, not even inside the table's box.
        expect(result.tables[0]?.scrollsInside, 'the leaderboard table needs no sideways scroll').to.equal(false);
        expect(result.tables[0]?.fits, 'the leaderboard fits the screen').to.equal(true);
        await page.locator('#results tbody tr').first().scrollIntoViewIfNeeded();
        await e2e.screenshot(page, `${name}-table`, { fullPage: false });
      }
    });
  }

  /** Each row's key cell (the run, the action and its target): inside the screen, left and right. */
  async function keyCellsInView(page: Page, selector: string) {
    return page.locator(selector).evaluateAll((cells) =>
      cells.map((cell) => {
        const box = cell.getBoundingClientRect();
        return {
          text: (cell.textContent ?? '').trim().slice(0, 40),
          inView: box.left >= -0.5 && box.right <= window.innerWidth + 0.5 && box.width > 0,
        };
      }),
    );
  }

  it('Your runs and the admin audit log: rows are cards with their key columns in view, nothing scrolls sideways', async () => {
    const page = await e2e.newPage(PHONE);
    await e2e.signUp(page);
    const model = await e2e.db('models').where('benchmark_count', '>', 0).orderBy('benchmark_count', 'desc').first('hf_id');
    const runUrl = await submitRunThroughForm(page, { hfId: model.hf_id, tokSOut: 42.5 });
    // A correction puts a change list in the audit log.
    await page.goto(`${new URL(runUrl).pathname}/correct`);
    await page.getByLabel('Output tokens per second').fill('38.2');
    await page.locator('#f-notes').fill('Measured again with a longer prompt, on a cold start, after a reboot');
    await page.getByRole('button', { name: 'Save the correction' }).click();
    await page.waitForURL(/done=corrected/);

    await page.goto('/settings/runs');
    let result = await layout(page);
    await e2e.screenshot(page, 'own-runs');
    expect(result.wideElements, 'elements sticking out of the page').to.deep.equal([]);
    expect(result.pageWidth, 'document scroll width').to.be.at.most(390);
    expect(
      result.tables.every((table) => table.fits && !table.scrollsInside),
      'your runs need no sideways scroll',
    ).to.equal(true);
    const runs = await keyCellsInView(page, 'table.own-runs td.key');
    expect(runs).to.have.length.at.least(1);
    expect(
      runs.every((cell) => cell.inView),
      JSON.stringify(runs),
    ).to.equal(true);
    for (const label of ['tok/s', 'Status', 'Hardware']) {
      const cell = page.locator(`table.own-runs td[data-label="${label}"]`).first();
      const box = (await cell.boundingBox())!;
      expect(box.x + box.width, `${label} in view`).to.be.at.most(390.5);
    }

    const admin = await e2e.newPage(PHONE);
    await e2e.signInAsAdmin(admin);
    await admin.goto('/admin/audit');
    result = await layout(admin);
    await e2e.screenshot(admin, 'audit-log');
    expect(result.wideElements, 'elements sticking out of the page').to.deep.equal([]);
    expect(result.pageWidth, 'document scroll width').to.be.at.most(390);
    expect(
      result.tables.every((table) => table.fits && !table.scrollsInside),
      'the audit log needs no sideways scroll',
    ).to.equal(true);
    const actions = await keyCellsInView(admin, 'table.audit td.key');
    expect(
      actions.some((cell) => cell.text.includes('speed_test.corrected')),
      JSON.stringify(actions),
    ).to.equal(true);
    expect(
      actions.every((cell) => cell.inView),
      JSON.stringify(actions),
    ).to.equal(true);
    const target = admin.locator('table.audit td[data-label="Target"]').first();
    const targetBox = (await target.boundingBox())!;
    expect(targetBox.x + targetBox.width, 'the target in view').to.be.at.most(390.5);
    // The correction's changes read one a line, field: before -> after.
    expect(await admin.locator('table.audit ul.changes li').allInnerTexts()).to.include('tokSOut: 42.5 -> 38.2');
  });
});
