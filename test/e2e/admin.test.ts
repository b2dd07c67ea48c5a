import { expect } from 'chai';
import { markWindow, useE2eApp, windowStillMarked } from './harness.ts';

describe('e2e: admin moderation', () => {
  const e2e = useE2eApp(import.meta.filename, { demoRuns: 30 });

  it('verifies a user, whose profile then shows the badge', async () => {
    const userPage = await e2e.newPage();
    const username = await e2e.signUp(userPage);
    await userPage.goto(`/u/${username}`);
    expect(await userPage.locator('p.lead .badge', { hasText: 'verified' }).count()).to.equal(0);

    const admin = await e2e.newPage();
    await e2e.signInAsAdmin(admin);
    await admin.getByRole('link', { name: 'Admin', exact: true }).click();
    await admin.waitForURL('**/admin');
    await admin.getByRole('navigation', { name: 'Admin' }).getByRole('link', { name: 'Users' }).click();
    await admin.waitForURL('**/admin/users');
    await admin.getByRole('searchbox', { name: 'Search users' }).fill(username);
    await admin.getByRole('button', { name: 'Search' }).click();
    await admin.waitForURL((url) => url.searchParams.get('q') === username);
    const row = admin.locator('tbody tr', { hasText: `@${username}` });
    expect(await row.count()).to.equal(1);
    expect(await row.locator('.badge', { hasText: 'unverified' }).count()).to.equal(1);

    await markWindow(admin);
    await row.getByRole('button', { name: 'Verify' }).click();
    await row.getByRole('button', { name: 'Unverify' }).waitFor();
    expect(await row.locator('.badge', { hasText: /^verified$/ }).count()).to.equal(1);
    expect(await windowStillMarked(admin), 'the row was swapped in place').to.equal(true);
    await e2e.screenshot(admin, 'users');

    await userPage.reload();
    const badge = userPage.locator('p.lead .badge', { hasText: 'verified' });
    expect(await badge.isVisible()).to.equal(true);
    await e2e.screenshot(userPage, 'verified-profile');

    // The action is in the audit log.
    await admin.goto('/admin/audit');
    expect(await admin.locator('tbody tr').first().innerText()).to.include(`@${username}`);
    expect(await admin.locator('tbody tr').first().innerText()).to.include('user.verify');
  });

  it('rejects a run with a reason, and the run leaves the leaderboard', async () => {
    const visitor = await e2e.newPage();
    await visitor.goto('/');
    const before = await visitor.locator('#results > p.muted').first().innerText();
    const total = Number(before.split(' ')[0]);
    const topLink = visitor.locator('#results tbody tr').first().locator('td.num a');
    const runPath = (await topLink.getAttribute('href'))!;
    const runId = runPath.split('/').pop()!;

    const admin = await e2e.newPage();
    await e2e.signInAsAdmin(admin);
    await admin.goto('/admin/runs');
    const row = admin.locator(`#run-${runId}`);
    expect(await row.locator('.badge', { hasText: 'approved' }).count()).to.equal(1);

    // A reason is required.
    await row.getByRole('button', { name: 'Reject' }).click();
    await row.locator('.field-error').waitFor();
    expect(await row.locator('.badge', { hasText: 'approved' }).count()).to.equal(1);

    await row.getByLabel('Reason for rejecting').fill('Numbers copied from another run');
    await row.getByRole('button', { name: 'Reject' }).click();
    await row.locator('.badge', { hasText: 'rejected' }).waitFor();
    expect(await row.innerText()).to.include('“Numbers copied from another run”');
    expect(await row.getByRole('button', { name: 'Restore' }).isVisible()).to.equal(true);
    await e2e.screenshot(admin, 'runs');

    await visitor.reload();
    expect(await visitor.locator('#results > p.muted').first().innerText()).to.match(new RegExp(`^${total - 1} runs`));
    expect(await visitor.locator(`#results a[href="${runPath}"]`).count()).to.equal(0);
    const gone = await visitor.goto(runPath);
    expect(gone!.status()).to.equal(404);
    expect(await visitor.getByRole('heading', { level: 1 }).innerText()).to.equal('Page not found');
    await e2e.screenshot(visitor, 'rejected-run-404');

    // The admin still sees the run, with the banner that says why it is hidden.
    await admin.goto(runPath);
    expect(await admin.locator('#moderation-banner').innerText()).to.include('This run is rejected');
  });
});
