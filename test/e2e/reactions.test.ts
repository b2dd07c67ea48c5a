import { expect } from 'chai';
import { markWindow, useE2eApp, windowStillMarked } from './harness.ts';

describe('e2e: reactions', () => {
  const e2e = useE2eApp(import.meta.filename, { demoRuns: 20 });

  it('reacts to a run, sees the count change in place, and sees counts without buttons once signed out', async () => {
    const page = await e2e.newPage();
    await e2e.signUp(page);

    // The top run of the leaderboard.
    await page.goto('/');
    await page.locator('#results tbody tr').first().locator('td.num a').click();
    await page.waitForURL(/\/runs\/[0-9a-f-]{36}$/);
    const runUrl = page.url();
    const bar = page.locator('main > .reaction-bar');
    const fire = bar.getByRole('button', { name: /^Fire/ });
    expect(await fire.getAttribute('aria-pressed')).to.equal('false');
    expect(await bar.locator('.reaction-count').count()).to.equal(0);

    await markWindow(page);
    await fire.click();
    await bar.getByRole('button', { name: 'Fire 1' }).waitFor();
    expect(await bar.getByRole('button', { name: /^Fire/ }).getAttribute('aria-pressed')).to.equal('true');
    expect(await windowStillMarked(page), 'the bar was swapped, not the page').to.equal(true);

    // Another reaction replaces the first (one reaction per person).
    await bar.getByRole('button', { name: /^Rocket/ }).click();
    await bar.getByRole('button', { name: 'Rocket 1' }).waitFor();
    expect(await bar.getByRole('button', { name: /^Fire/ }).innerText()).not.to.match(/\d/);
    expect(await bar.getByRole('button', { name: /^Rocket/ }).getAttribute('aria-pressed')).to.equal('true');
    await e2e.screenshot(page, 'signed-in');

    // Someone else adds theirs; the count is shared.
    const other = await e2e.newPage();
    await e2e.signUp(other);
    await other.goto(runUrl);
    const otherBar = other.locator('main > .reaction-bar');
    expect(await otherBar.getByRole('button', { name: /^Rocket/ }).innerText()).to.include('1');
    await otherBar.getByRole('button', { name: /^Rocket/ }).click();
    await otherBar.getByRole('button', { name: 'Rocket 2' }).waitFor();

    // Signed out: counts only, and a way to sign in.
    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.waitForURL((url) => url.pathname === '/');
    await page.goto(runUrl);
    expect(await bar.getByRole('button').count()).to.equal(0);
    expect((await bar.innerText()).replace(/\s+/g, ' ')).to.include('Rocket 2');
    const signIn = bar.getByRole('link', { name: 'Sign in to react' });
    expect(await signIn.isVisible()).to.equal(true);
    expect(new URL((await signIn.getAttribute('href'))!, e2e.baseUrl).searchParams.get('next')).to.equal(new URL(runUrl).pathname);
    await e2e.screenshot(page, 'signed-out');

    // The leaderboard row shows the same count, read-only.
    await page.goto('/');
    const firstRow = page.locator('#results tbody tr').first();
    expect((await firstRow.locator('.reaction-bar').innerText()).replace(/\s+/g, ' ')).to.include('Rocket 2');
    expect(await firstRow.getByRole('button').count()).to.equal(0);
  });
});
