import { expect } from 'chai';
import sharp from 'sharp';
import type { Page } from 'playwright-core';
import { reportXssDocument } from '../fixtures/report-xss-corpus.ts';
import { useE2eApp } from './harness.ts';

/** Records CSP violations and dialogs (an alert() that ran) in the page, from before its first script. */
async function watchForActiveContent(page: Page): Promise<() => Promise<string[]>> {
  const dialogs: string[] = [];
  page.on('dialog', async (dialog) => {
    dialogs.push(`${dialog.type()}: ${dialog.message()}`);
    await dialog.dismiss();
  });
  await page.addInitScript(() => {
    const seen: string[] = [];
    (window as unknown as { __cspViolations: string[] }).__cspViolations = seen;
    document.addEventListener('securitypolicyviolation', (event) => seen.push(`${event.violatedDirective} ${event.blockedURI}`));
  });
  return async () => [
    ...dialogs,
    ...(await page.evaluate(() => (window as unknown as { __cspViolations?: string[] }).__cspViolations ?? [])),
  ];
}

describe('e2e: model reports', () => {
  const e2e = useE2eApp(import.meta.filename, { demoRuns: 30 });
  let hfId = '';
  before(async () => {
    const model = await e2e.db('models').where('benchmark_count', '>', 0).orderBy('benchmark_count', 'desc').first('hf_id');
    hfId = model.hf_id;
  });

  it('writes a report with a table, a task list, an uploaded image and an embedded leaderboard; previews, publishes and reads it on a phone', async function () {
    this.timeout(90_000);
    const page = await e2e.newPage();
    const activeContent = await watchForActiveContent(page);
    await e2e.signUp(page);
    await page.goto(`/models/${hfId}`);
    await page.getByRole('link', { name: 'Write a report' }).click();
    await page.waitForURL((url) => url.pathname === '/reports/new');

    await page.getByLabel('Title').fill('Which quant on a 4090');
    await page.getByLabel('Summary (optional)').fill('Q4_K_M is the sweet spot.');
    await page.getByLabel('Tags (comma-separated, optional)').fill('4090, quantization');
    const content = page.getByLabel('Content (GitHub Flavored Markdown)');
    await content.fill(
      '## Results\n\n| quant | tok/s |\n|:--|--:|\n| Q4_K_M | 112 |\n\n- [x] flash attention\n- [ ] speculative decoding\n\n',
    );

    // The upload inserts the image's token where the cursor is.
    const png = await sharp({ create: { width: 320, height: 200, channels: 3, background: '#2a6fdb' } })
      .png()
      .toBuffer();
    await page
      .getByLabel('Add an image (PNG, JPEG or WebP, at most 8 MiB)')
      .setInputFiles({ name: 'chart.png', mimeType: 'image/png', buffer: png });
    await content.focus();
    await page.keyboard.press('Control+End');
    await page.getByRole('button', { name: 'Upload and insert' }).click();
    await page.getByText('Inserted image 320×200.').waitFor();
    expect(await content.inputValue()).to.match(/\[\[report-image:[0-9a-f-]{36}\]\]/);

    await content.press('Control+End');
    await content.pressSequentially(
      `\n\n[[report-embed:${encodeURIComponent(`${e2e.config.publicUrl}/?hfId=${encodeURIComponent(hfId)}`)}]]\n`,
    );

    // The debounced preview renders through the same renderer: table, checkboxes, figure, live card.
    const preview = page.locator('#report-preview');
    await preview.locator('.report-card-leaderboard').waitFor();
    expect(await preview.locator('td.report-align-right').first().innerText()).to.equal('112');
    expect(await preview.locator('input.task-list-item-checkbox').count()).to.equal(2);
    await preview.locator('figure.report-figure img').waitFor();
    expect(await preview.locator('.report-card-leaderboard tbody tr').count()).to.be.within(1, 5);

    await page.getByRole('button', { name: 'Publish' }).click();
    await page.waitForURL(/\/reports\/[0-9a-f-]{36}$/);
    const reportUrl = page.url();
    await page.getByRole('heading', { name: 'Which quant on a 4090', level: 1 }).waitFor();
    const image = page.locator('.report-body figure img');
    await image.scrollIntoViewIfNeeded();
    await page.waitForFunction(() => {
      const img = document.querySelector('.report-body figure img') as HTMLImageElement | null;
      return img?.complete && img.naturalWidth === 320;
    });
    expect(await image.getAttribute('loading')).to.equal('lazy');
    expect(await page.locator('.report-body .report-card-leaderboard').count()).to.equal(1);
    expect(await page.locator('iframe').count()).to.equal(0);
    expect(await activeContent()).to.deep.equal([]);
    await e2e.screenshot(page, 'published');

    // On a phone: nothing wider than the screen; wide tables scroll inside their box.
    const phone = await e2e.newPage({ viewport: { width: 390, height: 844 }, isMobile: true, hasTouch: true });
    await phone.goto(reportUrl);
    await phone.getByRole('heading', { name: 'Which quant on a 4090', level: 1 }).waitFor();
    expect(await phone.evaluate(() => document.documentElement.scrollWidth)).to.be.at.most(390);
    const figure = await phone.locator('.report-body figure img').boundingBox();
    expect(figure!.width).to.be.at.most(390);
    await e2e.screenshot(phone, 'phone');
  });

  it('shows a pasted run address of this service (as the agent-context gives it) as a card, and the run picker inserts a card', async function () {
    this.timeout(60_000);
    const page = await e2e.newPage();
    await e2e.signUp(page);
    await page.goto(`/reports/new?model=${encodeURIComponent(hfId)}`);
    const run = await e2e
      .db('speed_test_runs as r')
      .join('models as m', 'm.id', 'r.model_id')
      .where({ 'r.status': 'APPROVED' })
      .where('m.hf_id', hfId)
      .first('r.id');
    // The agent-context's base URL here is the address the server answers on: http://127.0.0.1:<port>.
    const agentContext = await (await fetch(`${e2e.baseUrl}/api/agent-context`)).text();
    expect(agentContext).to.include(e2e.baseUrl);
    const content = page.getByLabel('Content (GitHub Flavored Markdown)');
    await content.fill(
      `Fastest so far:\n\n${e2e.baseUrl}/runs/${run.id}\n\nAnd in a sentence: ${e2e.baseUrl}/runs/${run.id} stays a link.\n`,
    );
    const preview = page.locator('#report-preview');
    await preview.locator('.report-card-run').waitFor();
    expect(await preview.locator('.report-card-run').count()).to.equal(1);
    expect(await preview.locator(`a.report-embed-link, a[href="${e2e.baseUrl}/runs/${run.id}"]`).count()).to.be.at.least(1);

    // The picker's button puts the run's embed token where the cursor is.
    await content.fill('');
    await page
      .getByRole('button', { name: /^Insert as card/ })
      .first()
      .click();
    expect(await content.inputValue()).to.match(/^\s*\[\[report-embed:[^\]]*%2Fruns%2F[0-9a-f-]{36}\]\]\s*$/);
    await preview.locator('.report-card-run').waitFor();
  });

  it('renders the XSS corpus inert in the browser: no dialog, no CSP violation, nothing loaded from elsewhere', async function () {
    this.timeout(60_000);
    const page = await e2e.newPage();
    const activeContent = await watchForActiveContent(page);
    await e2e.signUp(page);
    await page.goto('/settings/reports');
    const csrf = await page.locator('meta[name="csrf-token"]').getAttribute('content');
    const created = await page.request.post(`/api/models/${hfId}/reports`, {
      headers: { 'X-CSRF-Token': csrf! },
      data: {
        title: '<img src=x onerror=alert(1)> title',
        summary: '<script>alert(2)</script>',
        tags: ['<svg onload=alert(3)>'],
        content: reportXssDocument,
        published: true,
      },
    });
    expect(created.status()).to.equal(201);
    const { report } = (await created.json()) as { report: { id: string } };
    const outside: string[] = [];
    page.on('request', (request) => {
      if (!request.url().startsWith(e2e.baseUrl)) outside.push(request.url());
    });
    await page.goto(`/reports/${report.id}`);
    await page.getByRole('heading', { name: '<img src=x onerror=alert(1)> title', level: 1 }).waitFor();
    await page.waitForLoadState('networkidle');
    expect(await activeContent()).to.deep.equal([]);
    expect(outside).to.deep.equal([]);
    expect(await page.locator('.report-body script, .report-body iframe, .report-body svg, .report-body style').count()).to.equal(0);
  });
});
