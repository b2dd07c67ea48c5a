import { expect } from 'chai';
import { fakeHubModels } from '../helpers/fake-hub.ts';
import { markWindow, useE2eApp, windowStillMarked } from './harness.ts';

describe('e2e: submitting a run through /submit', () => {
  const e2e = useE2eApp(import.meta.filename);

  it('switches hardware class, reads flags from a launch command, validates live and lands on the run page', async () => {
    const page = await e2e.newPage();
    await e2e.signUp(page);
    await page.getByRole('link', { name: 'Submit a run' }).click();
    await page.waitForURL('**/submit');
    expect(await page.getByText('You can submit now.').isVisible()).to.equal(true);
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
    expect(await page.locator('#flag-fields').innerText()).to.match(/Read from the command: -ngl, -fa.*Not mapped \(kept in the command\): .*--mlock/s);

    // A bad value is reported inline while typing...
    await page.getByLabel('Output tokens per second').fill('-5');
    const validation = page.locator('#validation');
    await validation.getByText(/Must be positive/).waitFor();
    expect(await validation.innerText()).to.match(/Not valid yet:\s+tokSOut: Must be positive/);
    await e2e.screenshot(page, 'invalid');

    // ...and cleared once fixed.
    await page.getByLabel('Output tokens per second').fill('61.5');
    await validation.getByText('Looks valid').waitFor();
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
    expect(await page.locator('pre code').innerText()).to.include('-ngl 99');
    const flags = await page.locator('table', { hasText: 'Flag' }).innerText();
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
    await page.getByLabel('Model id on the hub').fill(fakeHubModels.missing);
    await page.getByLabel('Quantization', { exact: true }).fill('Q8_0');
    await page.getByLabel('Engine', { exact: true }).selectOption('vllm');
    await page.getByLabel('GPU', { exact: true }).fill('NVIDIA GeForce RTX 4090');
    await page.getByLabel('VRAM per GPU (GB)').fill('24');
    await page.getByLabel('Output tokens per second').fill('80');
    await page.getByRole('button', { name: 'Submit run' }).click();
    await page.waitForLoadState();
    expect(new URL(page.url()).pathname).to.equal('/submit');
    const alert = await page.locator('main .alert-error[role="alert"]').innerText();
    expect(alert.toLowerCase()).to.include('not found');
    expect(await page.getByLabel('Model id on the hub').inputValue()).to.equal(fakeHubModels.missing);
    expect(await page.getByLabel('Output tokens per second').inputValue()).to.equal('80');
  });
});
