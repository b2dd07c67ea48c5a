import { expect } from 'chai';
import { markWindow, useE2eApp, windowStillMarked } from './harness.ts';

describe('e2e: API keys', () => {
  const e2e = useE2eApp(import.meta.filename);

  it('signs up, creates a key shown once with a working copy button, and revokes it without a reload', async () => {
    const page = await e2e.newPage();
    await page.context().grantPermissions(['clipboard-read', 'clipboard-write'], { origin: e2e.baseUrl });
    await e2e.signUp(page);
    await page.getByRole('link', { name: 'API keys' }).click();
    await page.waitForURL('**/settings/keys');
    expect(await page.getByText('No keys yet.').isVisible()).to.equal(true);

    // An empty name is refused inline, in place.
    await markWindow(page);
    await page.getByRole('button', { name: 'Create key' }).click();
    await page.locator('#f-name-error').waitFor();
    expect(await page.locator('#f-name').getAttribute('aria-invalid')).to.equal('true');

    await page.getByLabel('Name').fill('bench agent on the 4090 box');
    await page.getByRole('button', { name: 'Create key' }).click();
    const secret = page.locator('#new-key');
    await secret.waitFor();
    const key = (await secret.innerText()).trim();
    expect(key).to.match(/^bhk_[0-9a-f]{40}$/);
    expect(await page.getByText('it will not be shown again').isVisible()).to.equal(true);
    expect(await windowStillMarked(page), 'created in place by htmx').to.equal(true);

    const copy = page.getByRole('button', { name: 'Copy' });
    await copy.click();
    await page.getByRole('button', { name: 'Copied' }).waitFor();
    expect(await page.evaluate(() => navigator.clipboard.readText())).to.equal(key);

    const row = page.locator('#keys-panel tbody tr', { hasText: 'bench agent on the 4090 box' });
    expect(await row.count()).to.equal(1);
    expect(await row.innerText()).to.include(`${key.slice(0, 8)}…`);
    await e2e.screenshot(page, 'created');

    // The key works for an agent...
    const before = await fetch(`${e2e.baseUrl}/api/me`, { headers: { Authorization: `Bearer ${key}` } });
    expect(before.status).to.equal(200);

    // ...is never shown again...
    await page.reload();
    expect(await page.locator('#new-key').count()).to.equal(0);
    expect(await page.content()).not.to.include(key);

    // ...and revoking removes the row in place after a confirmation.
    await markWindow(page);
    let confirmed = '';
    page.once('dialog', (dialog) => {
      confirmed = dialog.message();
      void dialog.accept();
    });
    await page.locator('#keys-panel tbody tr', { hasText: 'bench agent on the 4090 box' }).getByRole('button', { name: 'Revoke' }).click();
    await page.locator('#keys-panel tbody tr', { hasText: 'bench agent on the 4090 box' }).waitFor({ state: 'detached' });
    expect(confirmed).to.include('Revoke “bench agent on the 4090 box”?');
    expect(await windowStillMarked(page), 'revoked without a reload').to.equal(true);
    await e2e.screenshot(page, 'revoked');

    const after = await fetch(`${e2e.baseUrl}/api/me`, { headers: { Authorization: `Bearer ${key}` } });
    expect(after.status).to.equal(401);
  });

  it('keeps the key when the revoke confirmation is dismissed', async () => {
    const page = await e2e.newPage();
    await e2e.signUp(page);
    await page.goto('/settings/keys');
    await page.getByLabel('Name').fill('keep me');
    await page.getByRole('button', { name: 'Create key' }).click();
    await page.locator('#new-key').waitFor();
    page.once('dialog', (dialog) => void dialog.dismiss());
    await page.getByRole('button', { name: 'Revoke' }).click();
    await page.waitForTimeout(300);
    expect(await page.locator('#keys-panel tbody tr', { hasText: 'keep me' }).count()).to.equal(1);
  });
});
