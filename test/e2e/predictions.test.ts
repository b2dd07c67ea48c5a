import { expect } from 'chai';
import type { BrowserContextOptions } from 'playwright-core';
import { useE2eApp } from './harness.ts';
import { axeProblems, validityProblems } from './page-checks.ts';

const DESKTOP: BrowserContextOptions = { viewport: { width: 1280, height: 900 } };

describe('e2e: "Will it run?" from a model page', () => {
  const e2e = useE2eApp(import.meta.filename, { demoRuns: 60 });

  it('goes from a model page to a prediction for a device, then to a device that does not hold it, and to one nobody knows', async () => {
    const { hf_id: hfId } = await e2e
      .db('models as m')
      .join('speed_test_runs as r', 'r.model_id', 'm.id')
      .where('r.status', 'APPROVED')
      .whereNotNull('m.params')
      .where('m.is_moe', false)
      .first('m.hf_id');
    const page = await e2e.newPage(DESKTOP);
    await page.goto(`/models/${hfId}`);
    await page.locator('#model-predict').click();
    await page.waitForURL((url) => url.pathname === '/predict');
    expect(await page.locator('#f-hfId').inputValue()).to.equal(hfId);
    await page.locator('#f-hardwareName').fill('RTX 4090');
    await page.locator('#prediction-form button[type=submit]').click();
    await page.waitForURL((url) => url.searchParams.get('hardwareName') === 'RTX 4090');
    const decode = await page.locator('#prediction-decode').innerText();
    expect(decode).to.match(/^[\d,.]+ tok\/s \(80% interval [\d,.]+–[\d,.]+\)$/);
    expect(await page.locator('#prediction-title').innerText()).to.include('estimate, not a run');
    for (const problem of [...(await validityProblems(page, '/predict')), ...(await axeProblems(page))]) expect.fail(problem);
    await e2e.screenshot(page, 'prediction');

    await page.locator('#f-quantization').fill('F32');
    await page.locator('#f-hardwareName').fill('RTX 3050');
    await page.locator('#f-memoryGb').fill('8');
    await page.locator('#prediction-form button[type=submit]').click();
    await page.waitForURL((url) => url.searchParams.get('hardwareName') === 'RTX 3050');
    expect(await page.locator('#prediction-fits').innerText()).to.match(/^No: needs about/);

    await page.locator('#f-hardwareName').fill('Quantum Flux 9000');
    await page.locator('#prediction-form button[type=submit]').click();
    await page.waitForURL((url) => url.searchParams.get('hardwareName') === 'Quantum Flux 9000');
    expect(await page.locator('#prediction-errors').innerText()).to.include("Unknown device 'Quantum Flux 9000'");
  });
});
