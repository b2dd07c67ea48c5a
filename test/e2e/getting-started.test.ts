import { expect } from 'chai';
import { axeProblems } from './page-checks.ts';
import { TEST_PASSWORD, uniqueName, useE2eApp } from './harness.ts';

const PHONE = { viewport: { width: 390, height: 844 }, deviceScaleFactor: 2, isMobile: true, hasTouch: true };

describe('e2e: getting started, from the header to a first run', () => {
  const e2e = useE2eApp(import.meta.filename, { demoRuns: 20 });

  for (const { width, options } of [
    { width: 1280, options: {} },
    { width: 390, options: PHONE },
  ]) {
    it(`at ${width} px: "Submit a run" explains, signs up and lands on the form with the first steps once`, async () => {
      const page = await e2e.newPage(options);
      await page.goto('/');
      await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Submit a run' }).click();
      await page.waitForURL('**/submit');
      expect(await page.getByRole('heading', { level: 1 }).innerText()).to.equal('Submit a run');
      expect(await page.getByRole('link', { name: 'agent guide' }).getAttribute('href')).to.equal('/docs/agents');
      expect(await axeProblems(page), 'axe on the explanation').to.deep.equal([]);
      expect(await page.evaluate(() => document.documentElement.scrollWidth)).to.be.at.most(width);

      await page.getByRole('link', { name: 'Sign up and submit' }).click();
      const username = uniqueName('start');
      await page.getByLabel('Username').fill(username);
      await page.getByLabel('Password').fill(TEST_PASSWORD);
      await page.getByRole('button', { name: 'Create account' }).click();
      await page.waitForURL('**/submit');
      // The form, with the first steps above it.
      const steps = page.getByRole('region', { name: `Welcome, ${username}! Your first steps` });
      await steps.waitFor();
      expect(await steps.getByRole('link').allInnerTexts()).to.deep.equal(['Submit a run', 'Create an API key', 'Agent guide']);
      expect(await page.locator('#submit-form').isVisible()).to.equal(true);
      expect(await axeProblems(page), 'axe with the first steps').to.deep.equal([]);
      expect(await page.evaluate(() => document.documentElement.scrollWidth)).to.be.at.most(width);
      await e2e.screenshot(page, `first-steps-${width}`, { fullPage: false });

      // Once: the next page does not repeat them; the empty profile offers them again.
      await steps.getByRole('link', { name: 'Create an API key' }).click();
      await page.waitForURL('**/settings/keys');
      expect(await page.locator('.first-steps').count()).to.equal(0);
      expect(await page.getByText('No keys yet.').isVisible()).to.equal(true);
      await page.goto(`/u/${username}`);
      expect(await page.locator('.first-steps').count()).to.equal(1);
    });
  }
});
