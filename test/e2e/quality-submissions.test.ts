import { expect } from 'chai';
import type { Page } from 'playwright-core';
import { customSuite } from '../helpers/quality.ts';
import { markWindow, useE2eApp, windowStillMarked } from './harness.ts';

/**
 * /settings/submissions in a real browser: withdrawing asks first and replaces the list in
 * place (htmx), and a refused withdrawal shows its reason in the list without a reload.
 */
describe('e2e: quality submissions', () => {
  const e2e = useE2eApp(import.meta.filename);

  /** Registers a suite through the form with JavaScript on; answers its row id. */
  async function register(page: Page, body: Record<string, any>): Promise<string> {
    await page.goto('/evals/new');
    await page.getByLabel('Suite JSON').fill(JSON.stringify(body, null, 2));
    await page.locator('#suite-check', { hasText: 'Valid: 2 tasks' }).waitFor();
    await page.getByRole('button', { name: 'Register' }).click();
    await page.waitForURL('**/settings/submissions?registered=*');
    return (await e2e.db('quality_suites').where({ slug: body.slug }).first('id')).id;
  }

  it('withdraws a pending suite in place after a confirmation, and shows a refusal inline', async () => {
    const author = await e2e.newPage();
    await e2e.signUp(author);
    const pending = customSuite();
    const pendingId = await register(author, pending);
    const approved = customSuite();
    const approvedId = await register(author, approved);

    // Approved after the page was loaded: its Withdraw button is still there, and is refused.
    await e2e.db('quality_suites').where({ id: approvedId }).update({ status: 'APPROVED', reviewed_at: new Date() });
    await markWindow(author);
    author.once('dialog', (dialog) => void dialog.accept());
    await author.locator(`#suite-${approvedId}`).getByRole('button', { name: 'Withdraw' }).click();
    await author.locator('#submissions .alert-error', { hasText: 'only pending or rejected submissions can be withdrawn' }).waitFor();
    expect(await windowStillMarked(author), 'the refusal came in place').to.equal(true);

    let confirmed = '';
    author.once('dialog', (dialog) => {
      confirmed = dialog.message();
      void dialog.accept();
    });
    await author.locator(`#suite-${pendingId}`).getByRole('button', { name: 'Withdraw' }).click();
    await author.locator(`#suite-${pendingId}`).waitFor({ state: 'detached' });
    expect(confirmed).to.include(`Withdraw ${pending.slug}?`);
    expect(await author.locator('#submissions .alert-success').innerText()).to.include(`${pending.slug} withdrawn.`);
    expect(await windowStillMarked(author), 'withdrawn without a reload').to.equal(true);
    expect(await e2e.db('quality_suites').where({ id: pendingId }).first('status')).to.deep.equal({ status: 'WITHDRAWN' });
    await e2e.screenshot(author, 'withdrawn');
  });
});
