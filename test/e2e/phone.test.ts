import { expect } from 'chai';
import type { Page } from 'playwright-core';
import { useE2eApp } from './harness.ts';

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
});
