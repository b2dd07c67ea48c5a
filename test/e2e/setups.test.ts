import { expect } from 'chai';
import type { Page } from 'playwright-core';
import { markWindow, useE2eApp, windowStillMarked } from './harness.ts';

describe('e2e: saved setups fill the submit form', () => {
  const e2e = useE2eApp(import.meta.filename);

  async function saveSetup(page: Page, fill: () => Promise<void>, name: string) {
    const form = page.locator('form.setup-form').last();
    await form.getByLabel('Name', { exact: true }).fill(name);
    await fill();
    await form.getByRole('button', { name: 'Save setup' }).click();
    await page.locator('#setups-panel [role="status"]', { hasText: `Setup “${name}” saved.` }).waitFor();
  }

  it('creates setups, makes one the default, and opens /submit pre-filled with it', async () => {
    const page = await e2e.newPage();
    await e2e.signUp(page);
    await page.getByRole('link', { name: 'Setups' }).click();
    await page.waitForURL('**/settings/setups');
    expect(await page.getByText('No setups yet.').isVisible()).to.equal(true);
    await markWindow(page);

    const form = page.locator('form.setup-form').last();
    await saveSetup(
      page,
      async () => {
        await form.getByLabel('Hardware class').selectOption('DISCRETE_GPU');
        await form.getByLabel('GPU', { exact: true }).fill('NVIDIA GeForce RTX 4090');
        await form.getByLabel('Number of GPUs').fill('2');
        await form.getByLabel('VRAM per GPU (GB)').fill('24');
        await form.getByLabel('Engine', { exact: true }).selectOption('vllm');
        await form.getByLabel('Quantization (optional)').fill('AWQ');
        await form.getByLabel('Launch command (optional)').fill('vllm serve m --tensor-parallel-size 2');
      },
      'Two 4090s, vLLM',
    );

    // The hardware class swaps the hardware inputs in place.
    await form.getByLabel('Hardware class').selectOption('UNIFIED');
    await form.getByLabel('Chip vendor').waitFor();
    expect(await form.getByLabel('GPU', { exact: true }).count()).to.equal(0);
    await saveSetup(
      page,
      async () => {
        await form.getByLabel('Chip vendor').fill('Apple');
        await form.getByLabel('Chip family').fill('M4');
        await form.getByLabel('Chip variant').fill('Max');
        await form.getByLabel('Unified memory (GB)').fill('128');
        await form.getByLabel('Engine', { exact: true }).selectOption('mlx');
        await form.getByLabel('Quantization (optional)').fill('mlx-4bit');
      },
      'Mac Studio, MLX',
    );

    const cards = page.locator('.setup-list article.setup-row');
    expect(await cards.count()).to.equal(2);
    const mac = cards.filter({ hasText: 'Mac Studio, MLX' });
    expect(await mac.locator('.badge', { hasText: 'default' }).count()).to.equal(0);
    expect(await mac.innerText()).to.include('Apple M4 Max');

    await mac.getByRole('button', { name: 'Make default' }).click();
    await page.getByText('“Mac Studio, MLX” is now your default setup.').waitFor();
    expect(await cards.filter({ hasText: 'Mac Studio, MLX' }).locator('.badge', { hasText: 'default' }).count()).to.equal(1);
    expect(await cards.filter({ hasText: 'Two 4090s, vLLM' }).locator('.badge', { hasText: 'default' }).count()).to.equal(0);
    expect(await windowStillMarked(page), 'all in place').to.equal(true);
    await e2e.screenshot(page, 'list');

    // /submit opens filled from the default setup.
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Submit a run' }).click();
    await page.waitForURL('**/submit');
    expect(await page.getByLabel('Fill from a saved setup').inputValue()).to.equal(
      await page.locator('#f-setup option', { hasText: 'Mac Studio, MLX (default)' }).getAttribute('value'),
    );
    expect(await page.getByLabel('Hardware class').inputValue()).to.equal('UNIFIED');
    expect(await page.getByLabel('Chip vendor').inputValue()).to.equal('Apple');
    expect(await page.getByLabel('Chip family').inputValue()).to.equal('M4');
    expect(await page.getByLabel('Chip variant').inputValue()).to.equal('Max');
    expect(await page.getByLabel('Unified memory (GB)').inputValue()).to.equal('128');
    expect(await page.getByLabel('Engine', { exact: true }).inputValue()).to.equal('mlx');
    expect(await page.getByLabel('Quantization', { exact: true }).inputValue()).to.equal('mlx-4bit');
    await e2e.screenshot(page, 'submit-prefilled');

    // Picking the other setup refills the form.
    await markWindow(page);
    await page.getByLabel('Fill from a saved setup').selectOption({ label: 'Two 4090s, vLLM' });
    await page.getByLabel('GPU', { exact: true }).waitFor();
    expect(await page.getByLabel('GPU', { exact: true }).inputValue()).to.equal('NVIDIA GeForce RTX 4090');
    expect(await page.getByLabel('Number of GPUs').inputValue()).to.equal('2');
    expect(await page.getByLabel('Engine', { exact: true }).inputValue()).to.equal('vllm');
    expect(await page.getByLabel('Paste your launch command').inputValue()).to.equal('vllm serve m --tensor-parallel-size 2');
    expect(await windowStillMarked(page)).to.equal(true);
  });

  it('saves a machine with two kinds of GPUs through the rows, and the submit form opens with them', async () => {
    const page = await e2e.newPage();
    await e2e.signUp(page);
    await page.goto('/settings/setups');
    const form = page.locator('form.setup-form').last();
    await saveSetup(
      page,
      async () => {
        await form.getByLabel('Hardware class').selectOption('DISCRETE_GPU');
        await form.getByLabel('GPU', { exact: true }).fill('NVIDIA GeForce RTX 4090');
        await form.getByLabel('VRAM per GPU (GB)').fill('24');
        // The rows wait behind the button once htmx has swapped the class's inputs in.
        await form.getByRole('button', { name: 'Add another kind of GPU' }).click();
        await form.locator('#f-gpus-1-gpuName').fill('NVIDIA GeForce RTX 3090');
        await form.locator('#f-gpus-1-count').fill('2');
        await form.locator('#f-gpus-1-vramGb').fill('24');
      },
      'Mixed box',
    );
    expect(await page.locator('.setup-row', { hasText: 'Mixed box' }).innerText()).to.include(
      '1× NVIDIA GeForce RTX 4090 (24 GB) + 2× NVIDIA GeForce RTX 3090 (24 GB)',
    );
    await page.locator('.setup-row', { hasText: 'Mixed box' }).getByRole('link', { name: 'Submit a run with it' }).click();
    await page.waitForURL('**/submit?setup=*');
    expect(await page.getByLabel('GPU', { exact: true }).inputValue()).to.equal('NVIDIA GeForce RTX 4090');
    expect(await page.locator('#f-hardware-gpus-1-gpuName').inputValue()).to.equal('NVIDIA GeForce RTX 3090');
    expect(await page.locator('#f-hardware-gpus-1-count').isVisible(), 'a filled row shows').to.equal(true);
  });

  it('after a refused submission shows one error banner and keeps the setup chosen in the picker', async () => {
    const page = await e2e.newPage();
    await e2e.signUp(page);
    await page.goto('/settings/setups');
    const form = page.locator('form.setup-form').last();
    for (const name of ['First box', 'Second box']) {
      await saveSetup(
        page,
        async () => {
          await form.getByLabel('Hardware class').selectOption('DISCRETE_GPU');
          await form.getByLabel('GPU', { exact: true }).fill('NVIDIA GeForce RTX 4090');
          await form.getByLabel('VRAM per GPU (GB)').fill('24');
          await form.getByLabel('Engine', { exact: true }).selectOption('llama.cpp');
        },
        name,
      );
    }
    await page.goto('/submit');
    await page.getByLabel('Fill from a saved setup').selectOption({ label: 'Second box' });
    await page.getByLabel('GPU', { exact: true }).waitFor();
    const chosen = await page.getByLabel('Fill from a saved setup').inputValue();
    // No model id and no speed: refused with field problems.
    await page.getByRole('button', { name: 'Submit run' }).click();
    await page.waitForLoadState();
    await page.locator('#error-summary').waitFor();
    expect(new URL(page.url()).pathname).to.equal('/submit');
    // Leaving a field runs the live check: it must not add a second list of the same problems.
    await page.getByLabel('Quantization', { exact: true }).focus();
    await page.getByLabel('Model id on the hub').focus();
    await page.waitForTimeout(1200);
    const banners = await page.locator('main .alert-error:visible').allInnerTexts();
    expect(banners, banners.join(' | ')).to.have.length(1);
    expect(await page.getByLabel('Fill from a saved setup').inputValue()).to.equal(chosen);
    expect(await page.getByLabel('GPU', { exact: true }).inputValue()).to.equal('NVIDIA GeForce RTX 4090');
  });
});
