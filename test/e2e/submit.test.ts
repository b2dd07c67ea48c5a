import { expect } from 'chai';
import { fakeHubModels } from '../helpers/fake-hub.ts';
import type { Page } from 'playwright-core';
import { axeProblems, validityProblems } from './page-checks.ts';
import { fillRunForm, markWindow, useE2eApp, windowStillMarked } from './harness.ts';

const PHONE = { viewport: { width: 390, height: 844 }, deviceScaleFactor: 2, isMobile: true, hasTouch: true };

/** Waits until the live check answered (htmx swaps #validation) after `act`. */
async function afterLiveCheck(page: Page, act: () => Promise<void>) {
  const answered = page.waitForResponse((response) => response.url().endsWith('/submit/validate'));
  await act();
  await answered;
  // The swap and the placing of messages follow the answer.
  await page.waitForTimeout(150);
}

describe('e2e: submitting a run through /submit', () => {
  const e2e = useE2eApp(import.meta.filename);

  it('switches hardware class, reads flags from a launch command, validates live and lands on the run page', async () => {
    const page = await e2e.newPage();
    await e2e.signUp(page);
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Submit a run' }).click();
    await page.waitForURL('**/submit');
    expect(await page.getByText('You can submit now.').count()).to.equal(0);
    await markWindow(page);

    // Hardware class: the discrete-GPU fieldset is replaced by the unified-memory one.
    expect(await page.getByLabel('GPU', { exact: true }).isVisible()).to.equal(true);
    await page.getByLabel('Hardware class').selectOption('UNIFIED');
    await page.getByLabel('Chip vendor').waitFor();
    expect(await page.getByLabel('GPU', { exact: true }).count()).to.equal(0);
    await page.getByLabel('Chip vendor').fill('Apple');
    await page.getByLabel('Chip family').fill('M4');
    await page.getByLabel('Chip variant').fill('Max');
    await page.getByLabel('Unified memory (GB)').fill('128');

    await page.getByLabel('Model id on the hub').fill(fakeHubModels.dense);
    await page.getByLabel('Quantization', { exact: true }).fill('Q4_K_M');
    await page.getByLabel('Engine', { exact: true }).selectOption('llama.cpp');

    // Paste a llama.cpp command: the flag fields fill from it.
    await page.getByLabel('Paste your launch command').fill('./llama-server -m Dense-7B-Q4_K_M.gguf -ngl 99 -fa on -c 8192 --mlock');
    await page.getByRole('button', { name: 'Read flags from the command' }).click();
    await page.getByText('Read from the command:').waitFor();
    expect(await page.getByLabel('GPU layers (-ngl)').inputValue()).to.equal('99');
    expect(await page.getByLabel('Flash attention').inputValue()).to.equal('true');
    expect(await page.locator('#flag-fields').innerText()).to.match(
      /Read from the command: -ngl, -fa.*Not mapped \(kept in the command\): .*--mlock/s,
    );

    // A bad value is reported once the field is left, next to it and in the list, in plain words...
    await page.getByLabel('Output tokens per second').fill('-5');
    await page.getByLabel('Output tokens per second').press('Tab');
    const validation = page.locator('#validation');
    await validation.getByText(/Must be more than 0/).waitFor();
    expect(await validation.innerText()).to.match(/To fix before submitting:\s+Output tokens per second: Must be more than 0\./);
    expect(await page.locator('#f-tokSOut-error').innerText()).to.equal('Must be more than 0.');
    expect(await page.getByLabel('Output tokens per second').getAttribute('aria-invalid')).to.equal('true');
    await e2e.screenshot(page, 'invalid');

    // ...and cleared once fixed.
    await page.getByLabel('Output tokens per second').fill('61.5');
    await validation.getByText('Everything filled in checks out').waitFor();
    expect(await page.locator('#f-tokSOut-error').count()).to.equal(0);
    expect(await windowStillMarked(page), 'all of this happened without a page load').to.equal(true);
    await e2e.screenshot(page, 'valid');

    await page.getByRole('button', { name: 'Submit run' }).click();
    await page.waitForURL(/\/runs\/[0-9a-f-]{36}$/);
    const heading = await page.getByRole('heading', { level: 1 }).innerText();
    expect(heading).to.include('Dense-7B');
    expect(heading).to.include('Apple M4 Max');
    const lead = await page.locator('p.lead').innerText();
    expect(lead).to.include('61.5');
    expect(lead).to.include('llama.cpp');
    // The launch command as submitted (the recipe's reproduce command is the page's other one).
    expect(await page.locator('pre code', { hasText: 'llama-server' }).innerText()).to.include('-ngl 99');
    const flags = await page
      .getByRole('table')
      .filter({ has: page.getByRole('columnheader', { name: 'Flag' }) })
      .innerText();
    expect(flags).to.match(/gpuLayers\s+99/);
    await e2e.screenshot(page, 'run-page');

    // The new run is on the leaderboard.
    await page.goto(`/?hfId=${encodeURIComponent(fakeHubModels.dense)}`);
    expect(await page.locator('#results tbody tr').count()).to.equal(1);
  });

  it('shows the hub check failing inline when the model does not exist, keeping what was typed', async () => {
    const page = await e2e.newPage();
    await e2e.signUp(page);
    await page.goto('/submit');
    await fillRunForm(page, {
      hfId: fakeHubModels.missing,
      quantization: 'Q8_0',
      engine: 'vllm',
      gpuName: 'NVIDIA GeForce RTX 4090',
      vramGb: 24,
      tokSOut: 80,
    });
    await page.getByRole('button', { name: 'Submit run' }).click();
    await page.waitForLoadState();
    expect(new URL(page.url()).pathname).to.equal('/submit');
    const alert = await page.locator('main .alert-error[role="alert"]').innerText();
    expect(alert.toLowerCase()).to.include('not found');
    expect(await page.getByLabel('Model id on the hub').inputValue()).to.equal(fakeHubModels.missing);
    expect(await page.getByLabel('Output tokens per second').inputValue()).to.equal('80');
  });

  for (const { width, options } of [
    { width: 1280, options: {} },
    { width: 390, options: PHONE },
  ]) {
    it(`at ${width} px: no problem is named while typing the first field, only after leaving a field or submitting`, async () => {
      const page = await e2e.newPage(options);
      await e2e.signUp(page);
      await page.goto('/submit');
      const model = page.getByLabel('Model id on the hub');
      expect(await page.locator('#model-check').innerText()).to.include('The model hub was not asked yet');
      // Typing the model id: the live check runs, names nothing as wrong.
      await afterLiveCheck(page, () => model.pressSequentially('fakeorg/Dense-7', { delay: 20 }));
      expect(await page.locator('.field-error').count(), 'errors while typing the first field').to.equal(0);
      expect(await page.locator('#validation .alert-error').count()).to.equal(0);
      expect(await page.locator('#validation').innerText()).to.match(
        /Still to fill in or fix: Quantization, Engine, GPU, VRAM per GPU \(GB\)/,
      );
      // Leaving it: the hub is asked about the model; other fields are still not blamed.
      await model.fill(fakeHubModels.dense);
      await afterLiveCheck(page, () => model.press('Tab'));
      await page.locator('#model-check').getByText('is on the model hub').waitFor();
      expect(await page.locator('.field-error').count()).to.equal(0);
      // Leaving the (empty) quantization: it, and only it, is named, in plain words next to it.
      await afterLiveCheck(page, () => page.getByLabel('Quantization', { exact: true }).press('Tab'));
      await page.locator('#f-quantization-error').waitFor();
      expect(await page.locator('#f-quantization-error').innerText()).to.equal('Say which quantization you ran, like Q4_K_M or fp16.');
      expect(await page.locator('.field-error').count()).to.equal(1);
      expect(await page.locator('#validation').innerText()).not.to.match(/hardware\.|Required unless|gpus/);
      expect(await axeProblems(page), 'axe with a problem shown').to.deep.equal([]);
      await e2e.screenshot(page, `first-field-${width}`);
      // Fixing it clears its message, though other fields are still to do (the engine, left on the way back, is now named).
      await page.getByLabel('Quantization', { exact: true }).fill('Q4_K_M');
      await afterLiveCheck(page, () => page.getByLabel('Quantization', { exact: true }).press('Tab'));
      expect(await page.locator('#f-quantization-error').count()).to.equal(0);
      expect(await page.locator('.field-error').allInnerTexts()).to.deep.equal(['Choose the engine you ran.']);
      expect(await page.getByLabel('Quantization', { exact: true }).getAttribute('aria-invalid')).to.equal(null);
      // Submitting names everything that is missing, each linked from the summary to its field.
      await page.getByRole('button', { name: 'Submit run' }).click();
      await page.locator('#error-summary').waitFor();
      const summary = await page.locator('#error-summary').innerText();
      for (const label of ['Engine', 'GPU', 'VRAM per GPU (GB)']) expect(summary).to.include(`${label}:`);
      expect(summary).not.to.include('Quantization:');
      await page.locator('#error-summary').getByRole('link', { name: 'VRAM per GPU (GB)' }).click();
      expect(await page.evaluate(() => location.hash)).to.equal('#f-hardware-vramGb');
      expect(await page.evaluate(() => document.documentElement.scrollWidth)).to.be.at.most(width);
      expect(await axeProblems(page), 'axe after a refused submission').to.deep.equal([]);
    });

    it(`at ${width} px: GPU rows are added and removed, and a two-kind machine is submitted`, async () => {
      const page = await e2e.newPage(options);
      await e2e.signUp(page);
      await page.goto('/submit');
      const rows = page.locator('.gpu-rows [data-row]');
      expect(await rows.count()).to.equal(3);
      expect(await page.locator('.gpu-rows [data-row]:visible').count(), 'empty rows wait behind the button').to.equal(0);
      await page.getByRole('button', { name: 'Add another kind of GPU' }).click();
      await page.getByRole('button', { name: 'Add another kind of GPU' }).click();
      expect(await page.locator('.gpu-rows [data-row]:visible').count()).to.equal(2);
      await page.getByRole('button', { name: 'Remove row 2' }).click();
      expect(await page.locator('.gpu-rows [data-row]:visible').count()).to.equal(1);
      expect(await page.evaluate(() => document.documentElement.scrollWidth)).to.be.at.most(width);
      expect(await axeProblems(page), 'axe with a GPU row open').to.deep.equal([]);

      await fillRunForm(page, {
        hfId: fakeHubModels.dense,
        quantization: 'Q4_K_M',
        engine: 'llama.cpp',
        gpuName: 'NVIDIA GeForce RTX 4090',
        vramGb: 24,
      });
      await page.locator('#f-hardware-gpus-1-gpuName').fill('NVIDIA GeForce RTX 3090');
      await page.locator('#f-hardware-gpus-1-count').fill('2');
      await page.locator('#f-hardware-gpus-1-vramGb').fill('24');
      await page.getByLabel('Output tokens per second').fill('40');
      await e2e.screenshot(page, `gpu-rows-${width}`);
      await page.getByRole('button', { name: 'Submit run' }).click();
      await page.waitForURL(/\/runs\/[0-9a-f-]{36}$/);
      const stored = await e2e
        .db('speed_test_runs as r')
        .join('hardware_profiles as h', 'h.id', 'r.hardware_id')
        .where('r.id', page.url().split('/').pop())
        .first('h.gpu_count', 'h.is_heterogeneous_gpu');
      expect(stored).to.deep.equal({ gpu_count: 3, is_heterogeneous_gpu: true });
    });
  }

  it('says the model hub could not be reached and that the run can still be submitted; the form is valid HTML', async () => {
    const page = await e2e.newPage();
    await e2e.signUp(page);
    await page.goto('/submit');
    await page.getByLabel('Model id on the hub').fill(fakeHubModels.rateLimited);
    await page.getByLabel('Model id on the hub').press('Tab');
    await page.locator('#model-check').getByText('Couldn’t reach the model hub just now; you can still submit').waitFor();
    expect(await validityProblems(page, '/submit')).to.deep.equal([]);
  });
});
