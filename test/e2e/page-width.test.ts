import { randomUUID } from 'node:crypto';
import { expect } from 'chai';
import type { Page } from 'playwright-core';
import { demoSuiteBodies } from '../../src/db/seeds/demo-suites.ts';
import { fakeHubModels } from '../helpers/fake-hub.ts';
import { validSubmission } from '../helpers/fixtures.ts';
import { registeredRoutes } from '../helpers/openapi.ts';
import { useE2eApp } from './harness.ts';

const PHONE = { viewport: { width: 390, height: 844 }, deviceScaleFactor: 2, isMobile: true, hasTouch: true };

/** What a route's path parameters are filled with: real rows of the demo data and of the signed-in admin. */
interface Fixtures {
  runId: string;
  hardwareId: string;
  modelHfId: string;
  username: string;
  setupId: string;
  suiteSlug: string;
  qualityRunId: string;
  executionId: string;
  suiteSubmissionId: string;
  reportId: string;
  /** A device page's slug, as the hardware index links it. */
  deviceSlug: string;
  /** Two runs for the compare view. */
  compareRunIds: string[];
  /** The admin's own published listing (its public page and its editor). */
  listingId: string;
}

/**
 * The address of a page route with its parameters filled in. A route this does not know
 * fails the test: add its parameter here (a new page with a new kind of id).
 */
function addressOf(route: string, f: Fixtures): string {
  const [org, model] = f.modelHfId.split('/') as [string, string];
  const byRoute: Record<string, string> = {
    '/evals/executions/:id': f.executionId,
    '/evals/runs/:id': f.qualityRunId,
    '/settings/submissions/suites/:id/edit': f.suiteSubmissionId,
  };
  const byResourceMore: Record<string, string> = { reports: f.reportId, marketplace: f.listingId, listings: f.listingId };
  const byResource: Record<string, string> = { runs: f.runId, hardware: f.hardwareId, setups: f.setupId, ...byResourceMore };
  const byName: Record<string, string> = { org, model, username: f.username, slug: f.suiteSlug, device: f.deviceSlug };
  // Pages that need a query to be a page at all (the report editor names its model).
  const queries: Record<string, string> = {
    '/reports/new': `?model=${encodeURIComponent(f.modelHfId)}`,
    '/compare': `?runs=${f.compareRunIds.join(',')}`,
  };
  const segments = route.split('/');
  const path = segments
    .map((segment, index) => {
      if (!segment.startsWith(':')) return segment;
      const name = segment.slice(1);
      const value = byRoute[route] ?? byName[name] ?? byResource[segments[index - 1] ?? ''];
      if (value === undefined)
        throw new Error(`page-width: no fixture for :${name} in ${route}; add one in addressOf (test/e2e/page-width.test.ts)`);
      return encodeURIComponent(value);
    })
    .join('/');
  return `${path}${queries[route] ?? ''}`;
}

/**
 * How wide the document is, and the first elements or texts that stick out of a 390 px
 * screen outside a box that scrolls or clips (a long unbroken word overflows its element).
 */
async function widthOf(page: Page) {
  return page.evaluate(() => {
    // Not innerWidth: a phone's layout viewport grows with a page that is too wide.
    const right = (node: Node) => {
      const range = document.createRange();
      range.selectNodeContents(node);
      return node instanceof Element ? node.getBoundingClientRect().right : range.getBoundingClientRect().right;
    };
    const inScrollBox = (el: Element | null) => {
      for (let parent = el; parent && parent !== document.body; parent = parent.parentElement) {
        if (getComputedStyle(parent).overflowX !== 'visible') return true;
      }
      return false;
    };
    const describe = (el: Element) =>
      `${el.tagName.toLowerCase()}${el.id ? `#${el.id}` : ''}${[...el.classList].map((c) => `.${c}`).join('')}`;
    const sticking: string[] = [];
    const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_ELEMENT | NodeFilter.SHOW_TEXT);
    for (let node = walker.nextNode(); node && sticking.length < 5; node = walker.nextNode()) {
      if (right(node) <= 390.5) continue;
      const el = node instanceof Element ? node : node.parentElement;
      if (!el || inScrollBox(node instanceof Element ? node.parentElement : el)) continue;
      sticking.push(node instanceof Element ? describe(el) : `text in ${describe(el)}: “${(node.textContent ?? '').trim().slice(0, 40)}”`);
    }
    return { scrollWidth: document.documentElement.scrollWidth, sticking };
  });
}

describe('e2e: no page wider than a 390 px phone', () => {
  const e2e = useE2eApp(import.meta.filename, { demoRuns: 60 });

  it('every page GET route the app registers fits 390 px (signed in as an admin and signed out, demo data)', async function () {
    this.timeout(240_000);
    const page = await e2e.newPage(PHONE);
    // tsx keeps function names with a helper (`__name`) that the page does not have.
    await page.addInitScript('window.__name = (fn) => fn');
    await e2e.signInAsAdmin(page);
    const csrf = (await page.locator('meta[name="csrf-token"]').getAttribute('content'))!;
    const headers = { 'X-CSRF-Token': csrf };
    // The admin's own run (so /runs/:id/correct is open), setup and suite submission.
    const run = await page.request.post('/api/speed-tests', { headers, data: validSubmission({ hfId: fakeHubModels.dense }) });
    expect(run.status(), await run.text()).to.equal(201);
    const setup = await page.request.post('/api/setups', {
      headers,
      data: { name: 'Phone test box', hwClass: 'DISCRETE_GPU', gpuName: 'NVIDIA GeForce RTX 4090', vramGb: 24 },
    });
    expect(setup.status(), await setup.text()).to.equal(201);
    const suite = await page.request.post('/api/benchmarks/suites', {
      headers,
      data: { ...demoSuiteBodies[0], slug: `phone-${randomUUID().slice(0, 8)}` },
    });
    expect(suite.status(), await suite.text()).to.equal(201);
    const admin = await e2e.db('users').where({ is_admin: true }).first('id');
    const approved = await e2e.db('quality_suites').where({ status: 'APPROVED', runner: 'CUSTOM' }).first('id', 'slug');
    const [execution] = await e2e
      .db('quality_executions')
      .insert({
        user_id: admin.id,
        suite_id: approved.id,
        total: 1,
        request: JSON.stringify({
          suiteSlug: approved.slug,
          baseUrl: 'https://llm.example.net',
          model: 'phone',
          hfId: 'phone/model',
          autoSubmit: false,
          hardware: null,
          quantization: null,
          modelRevision: 'main',
          notes: null,
          taskKeys: null,
          tasks: [],
          aggregation: 'mean',
          judged: false,
        }),
      })
      .returning('id');
    // A long unbroken word and a wide table in the admin's own report (its page and its editor).
    const report = await page.request.post(`/api/models/${fakeHubModels.dense}/reports`, {
      headers,
      data: {
        title: 'Phone width',
        content: `# Phone width\n\n${'a'.repeat(120)}\n\n| ${Array.from({ length: 12 }, (_, i) => `column ${i}`).join(' | ')} |\n|${' --- |'.repeat(12)}\n| ${Array.from({ length: 12 }, () => '1234567').join(' | ')} |\n`,
        published: true,
      },
    });
    expect(report.status(), await report.text()).to.equal(201);
    // The admin's own listing with the run as proof and a long unbroken word, published.
    const listing = await page.request.post('/api/marketplace/listings', {
      headers,
      data: {
        title: 'Phone width listing',
        description: 'b'.repeat(120),
        condition: 'USED',
        price: 1200,
        currency: 'EUR',
        hwClass: 'DISCRETE_GPU',
        hardwareName: 'NVIDIA GeForce RTX 4090',
        contactUrl: 'mailto:seller@example.com',
        benchmarkRunIds: [(await run.json()).id],
      },
    });
    expect(listing.status(), await listing.text()).to.equal(201);
    const listingId: string = (await listing.json()).listing.id;
    const published = await page.request.post(`/api/marketplace/listings/${listingId}/publish`, { headers });
    expect(published.status(), await published.text()).to.equal(200);
    const demoRun = await e2e
      .db('speed_test_runs as r')
      .join('models as m', 'm.id', 'r.model_id')
      .join('users as u', 'u.id', 'r.user_id')
      .where('r.status', 'APPROVED')
      .whereNot('r.user_id', admin.id)
      .first('r.hardware_id', 'm.hf_id', 'u.username');
    await page.goto('/hardware');
    const deviceLink = await page.locator('main a[href^="/hardware/"]').first().getAttribute('href');
    const compareRunIds = await e2e.db('speed_test_runs').where({ status: 'APPROVED' }).orderBy('created_at').limit(2).pluck('id');
    const fixtures: Fixtures = {
      runId: (await run.json()).id,
      hardwareId: demoRun.hardware_id,
      modelHfId: demoRun.hf_id,
      username: demoRun.username,
      setupId: (await setup.json()).id,
      suiteSlug: approved.slug,
      qualityRunId: (await e2e.db('quality_runs').where({ status: 'APPROVED' }).first('id')).id,
      executionId: execution.id,
      suiteSubmissionId: (await suite.json()).id,
      reportId: (await report.json()).report?.id ?? (await report.json()).id,
      deviceSlug: decodeURIComponent(deviceLink!.split('/')[2]!),
      compareRunIds,
      listingId,
    };

    const routes = registeredRoutes(e2e.app).filter(
      (route) => route.method === 'get' && !route.path.startsWith('/api/') && route.path !== '/healthz',
    );
    expect(routes.length, 'page routes found').to.be.above(20);
    const tooWide: string[] = [];
    const fragments = new Set<string>();
    // Signed in as an admin every page is reachable; signed out, the pages that differ for a
    // visitor (the submit page's explanation, sign-in and sign-up) are measured too.
    const visitor = await e2e.newPage(PHONE);
    await visitor.addInitScript('window.__name = (fn) => fn');
    for (const [who, browser] of [
      ['admin', page],
      ['visitor', visitor],
    ] as const) {
      for (const route of routes) {
        const address = addressOf(route.path, fixtures);
        const response = await browser.goto(address);
        expect(response?.status(), `${address} answers the ${who}`).to.be.below(400);
        // A visitor sent to sign in: that page is measured once, as itself.
        if (who === 'visitor' && new URL(browser.url()).pathname === '/signin' && route.path !== '/signin') continue;
        // GET routes that answer an htmx fragment even to a plain request (a form's class fieldset,
        // suggestions) have no layout and no viewport: they are measured inside the pages that swap them in.
        const isPage = (await browser.locator('meta[name="viewport"]').count()) > 0;
        if (!isPage) {
          fragments.add(route.path);
          continue;
        }
        const { scrollWidth, sticking } = await widthOf(browser);
        if (scrollWidth > 390) {
          tooWide.push(`${route.path} (${address}, ${who}): ${scrollWidth} px, sticking out: ${sticking.join(', ')}`);
          await e2e.screenshot(browser, `${who}${route.path.replace(/[^a-z0-9]+/gi, '-')}`, { fullPage: false });
        }
      }
    }
    expect(tooWide, 'pages wider than 390 px').to.deep.equal([]);
    // Most routes are pages: a layout lost from every page would not pass as "all fragments".
    expect(fragments.size, [...fragments].join(', ')).to.be.below(routes.length / 4);
  });
});
