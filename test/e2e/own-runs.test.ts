import { expect } from 'chai';
import { fakeHubModels } from '../helpers/fake-hub.ts';
import { submitRunThroughForm, useE2eApp } from './harness.ts';

describe('e2e: an owner corrects and withdraws a run', () => {
  const e2e = useE2eApp(import.meta.filename);

  it('submits, corrects the speed on the prefilled form, withdraws after the confirmation and finds it among their runs', async () => {
    const page = await e2e.newPage();
    await e2e.signUp(page);
    const runUrl = await submitRunThroughForm(page, { hfId: fakeHubModels.dense, tokSOut: 83 });

    // The correction form comes filled with the run; one field changed, saved.
    await page.getByRole('link', { name: 'Correct this run' }).click();
    await page.waitForURL(/\/correct$/);
    expect(await page.getByLabel('Model id on the hub').inputValue()).to.equal(fakeHubModels.dense);
    expect(await page.getByLabel('GPU', { exact: true }).inputValue()).to.equal('NVIDIA GeForce RTX 4090');
    await page.getByLabel('Output tokens per second').fill('38.5');
    await page.getByRole('button', { name: 'Save the correction' }).click();
    await page.waitForURL(/\?done=corrected$/);
    expect(await page.getByText('Correction saved').isVisible()).to.equal(true);
    expect(await page.locator('p.lead').innerText()).to.include('38.5');
    await e2e.screenshot(page, 'corrected');

    // Withdraw asks first; dismissed, nothing happens.
    page.once('dialog', (dialog) => void dialog.dismiss());
    await page.getByRole('button', { name: 'Withdraw' }).click();
    await page.waitForTimeout(300);
    expect(page.url()).to.match(/\?done=corrected$/);

    let asked = '';
    page.once('dialog', (dialog) => {
      asked = dialog.message();
      void dialog.accept();
    });
    await page.getByRole('button', { name: 'Withdraw' }).click();
    await page.waitForURL(/\?done=withdrawn$/);
    expect(asked).to.include('Withdraw this run?');
    expect(await page.locator('#status-banner').innerText()).to.include('This run is withdrawn');
    await e2e.screenshot(page, 'withdrawn');

    // Gone for everyone else; listed among the owner's runs.
    const anonymous = await fetch(runUrl);
    expect(anonymous.status).to.equal(404);
    await page.getByRole('link', { name: 'Your runs', exact: true }).click();
    await page.waitForURL('**/settings/runs');
    expect(await page.locator('table.own-runs tbody tr').first().innerText()).to.include('withdrawn');
  });

  it("shows a run far above another user's run of the same setup as an outlier, with the peer it was compared with", async () => {
    const gpuName = 'NVIDIA GeForce RTX 3090';
    const first = await e2e.newPage();
    await e2e.signUp(first);
    await submitRunThroughForm(first, { hfId: fakeHubModels.dense, gpuName, tokSOut: 60 });
    expect(await first.locator('#plausibility').innerText()).to.match(/^Plausible\./);

    const fast = await e2e.newPage();
    await e2e.signUp(fast);
    await submitRunThroughForm(fast, { hfId: fakeHubModels.dense, gpuName, tokSOut: 180 });
    const verdict = fast.locator('#plausibility');
    expect(await verdict.getAttribute('class')).to.include('alert-warn');
    const text = await verdict.innerText();
    expect(text).to.match(/^Outlier\. 3 × the best of 1 approved run of the same weights on the same device \(60 tok\/s\)/);
    expect(text).to.match(/Compared with 1 approved run of the same weights on the same device: best 60(\.0)? tok\/s, this run 3 × it\./);
    await e2e.screenshot(fast, 'outlier');
  });
});
