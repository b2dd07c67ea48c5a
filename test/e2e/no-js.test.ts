import { expect } from 'chai';
import { fakeHubModels } from '../helpers/fake-hub.ts';
import { TEST_PASSWORD, uniqueName, useE2eApp } from './harness.ts';

/** With JavaScript off, every form is a plain GET or POST and still does its job. */
describe('e2e: without JavaScript', () => {
  const e2e = useE2eApp(import.meta.filename, { demoRuns: 80 });
  const noJs = () => e2e.newPage({ javaScriptEnabled: false });

  it('signs up, signs out and signs in again', async () => {
    const page = await noJs();
    const username = await e2e.signUp(page, uniqueName('nojs'));
    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.waitForURL((url) => url.pathname === '/');
    expect(await page.getByRole('link', { name: 'Sign in', exact: true }).isVisible()).to.equal(true);

    // A wrong password is refused on the page.
    await page.goto('/signin');
    await page.getByLabel('Username').fill(username);
    await page.getByLabel('Password').fill('not the password');
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.waitForLoadState();
    expect(await page.locator('main [role="alert"]').innerText()).to.match(/invalid|incorrect|wrong/i);
    expect(await page.getByLabel('Username').inputValue()).to.equal(username);

    await page.getByLabel('Password').fill(TEST_PASSWORD);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.waitForURL((url) => url.pathname === '/');
    expect(await page.locator('.nav-user').innerText()).to.include(`@${username}`);

    // A protected page sends you to sign in and back.
    const other = await noJs();
    await other.goto('/settings/keys');
    expect(new URL(other.url()).pathname).to.equal('/signin');
    await other.getByLabel('Username').fill(username);
    await other.getByLabel('Password').fill(TEST_PASSWORD);
    await other.getByRole('button', { name: 'Sign in' }).click();
    await other.waitForURL('**/settings/keys');
    expect(await other.getByRole('heading', { level: 1 }).innerText()).to.equal('API keys');
  });

  it('filters, sorts and pages the leaderboard with plain GETs', async () => {
    const page = await noJs();
    await page.goto('/');
    await page.getByLabel('Hardware class').selectOption('DISCRETE_GPU');
    await page.getByRole('button', { name: 'Apply' }).click();
    // The empty fields are dropped from the address.
    await page.waitForURL((url) => url.search === '?hwClass=DISCRETE_GPU');
    // A column header ranks by its metric: a plain link keeping the filters.
    await page.locator('#results thead').getByRole('link', { name: 'TTFT ms' }).click();
    await page.waitForURL((url) => url.search === '?hwClass=DISCRETE_GPU&sort=ttftMs');
    expect(await page.getByLabel('Hardware class').inputValue()).to.equal('DISCRETE_GPU');
    // The form keeps the ranking when applied again (a new page load, same address).
    await Promise.all([page.waitForEvent('load'), page.getByRole('button', { name: 'Apply' }).click()]);
    expect(new URL(page.url()).search).to.equal('?hwClass=DISCRETE_GPU&sort=ttftMs');
    expect(await page.locator('#results thead th.sorted').innerText()).to.include('TTFT');
    const summary = await page.locator('#results > p.muted').first().innerText();
    const res = await fetch(`${e2e.baseUrl}/api/leaderboard?hwClass=DISCRETE_GPU&batchSize=1&limit=1`);
    const { total } = (await res.json()) as { total: number };
    expect(summary).to.match(new RegExp(`^${total} runs`));
    const ttft = (await page.locator('#results tbody tr td.sorted').allInnerTexts()).map((t) => Number(t.replace(/,/g, '')));
    expect(ttft).to.deep.equal([...ttft].sort((a, b) => a - b));
    await e2e.screenshot(page, 'leaderboard');

    if (total > 50) {
      await page.getByRole('link', { name: 'Next →' }).click();
      await page.waitForURL((url) => url.searchParams.get('offset') === '50');
      expect(await page.locator('#results tbody tr td:first-child').first().innerText()).to.equal('51');
    }
    await page.getByRole('link', { name: 'Reset' }).click();
    await page.waitForURL((url) => url.pathname === '/' && url.search === '');
    expect(await page.getByLabel('Hardware class').inputValue()).to.equal('');
  });

  it('submits a run: class switch by link, errors inline from the server, then the run page', async () => {
    const page = await noJs();
    await e2e.signUp(page);
    await page.goto('/submit');
    // Without JavaScript every row for other kinds of GPUs shows (a fixed number), with no add or remove buttons.
    expect(await page.locator('.gpu-rows [data-row]:visible').count()).to.equal(3);
    expect(await page.getByRole('button', { name: 'Add another kind of GPU' }).count()).to.equal(0);
    // Without htmx, the hardware class is switched by a link in <noscript>.
    await page.getByRole('link', { name: 'CPU only' }).click();
    await page.waitForURL((url) => url.searchParams.get('hwClass') === 'CPU_ONLY');
    await page.getByLabel('CPU', { exact: true }).fill('AMD Ryzen 9 7950X');
    await page.getByLabel('RAM (GB)', { exact: true }).fill('64');
    await page.getByLabel('Model id on the hub').fill(fakeHubModels.dense);
    await page.getByLabel('Quantization', { exact: true }).fill('Q4_K_M');
    await page.getByLabel('Engine', { exact: true }).selectOption('llama.cpp');
    await page.getByLabel('Paste your launch command').fill('llama-server -m m.gguf -t 16');
    await page.getByLabel('Output tokens per second').fill('0');
    await page.getByRole('button', { name: 'Submit run' }).click();
    await page.waitForLoadState();

    // The server answers with the form, the error next to its field, and the values kept.
    expect(new URL(page.url()).pathname).to.equal('/submit');
    expect(await page.locator('main .alert-error[role="alert"]').innerText()).to.include('Some fields need attention.');
    expect(await page.locator('#f-tokSOut-error').innerText()).to.equal('Must be more than 0.');
    expect(await page.getByLabel('Output tokens per second').getAttribute('aria-invalid')).to.equal('true');
    expect(await page.getByLabel('CPU', { exact: true }).inputValue()).to.equal('AMD Ryzen 9 7950X');
    expect(await page.getByLabel('Paste your launch command').inputValue()).to.equal('llama-server -m m.gguf -t 16');
    await e2e.screenshot(page, 'submit-error');

    await page.getByLabel('Output tokens per second').fill('12.5');
    await page.getByRole('button', { name: 'Submit run' }).click();
    await page.waitForURL(/\/runs\/[0-9a-f-]{36}$/);
    expect(await page.getByRole('heading', { level: 1 }).innerText()).to.include('AMD Ryzen 9 7950X');
    expect(await page.locator('p.lead').innerText()).to.include('12.5');

    // Reacting is a plain form post that comes back to the page.
    const runUrl = page.url();
    await page.locator('main > .reaction-bar').getByRole('button', { name: /^Fire/ }).click();
    await page.waitForURL(runUrl);
    expect(await page.locator('main > .reaction-bar').getByRole('button', { name: 'Fire 1' }).getAttribute('aria-pressed')).to.equal(
      'true',
    );
  });
});
