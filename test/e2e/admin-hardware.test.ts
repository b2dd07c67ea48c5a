import { expect } from 'chai';
import { setHardwareMappings } from '../../src/lib/hardware-mappings.ts';
import { fakeHubModels } from '../helpers/fake-hub.ts';
import { markWindow, submitRunThroughForm, useE2eApp, windowStillMarked } from './harness.ts';
import { axeProblems, validityProblems } from './page-checks.ts';

describe('e2e: admin hardware names', () => {
  const e2e = useE2eApp(import.meta.filename);
  const written = 'Quuxtronic QX-770 Hyper';

  after(() => setHardwareMappings([]));

  it('lists a name no device matched, maps it to a catalogue card in place, and the name moves to the mapped table', async () => {
    const user = await e2e.newPage();
    await e2e.signUp(user);
    const runUrl = await submitRunThroughForm(user, { hfId: fakeHubModels.dense, gpuName: written, tokSOut: 77 });
    const runPath = new URL(runUrl).pathname;

    const admin = await e2e.newPage();
    await e2e.signInAsAdmin(admin);
    await admin.goto('/admin');
    await admin.getByRole('navigation', { name: 'Admin' }).getByRole('link', { name: 'Hardware names' }).click();
    await admin.waitForURL('**/admin/hardware');
    const problems = [...(await validityProblems(admin, '/admin/hardware')), ...(await axeProblems(admin))];
    expect(problems, problems.join('\n')).to.deep.equal([]);

    const row = admin.locator('#unresolved-names tbody tr', { hasText: written });
    expect(await row.locator('td[data-label="Runs"]').innerText()).to.equal('1');
    await markWindow(admin);
    // A name that is no catalogue card is refused in place, naming it.
    await row.getByLabel(`GPU for ${written}`).fill('GeForce Imaginary 1');
    await row.getByRole('button', { name: 'Map' }).click();
    await admin.locator('#hardware-names-outcome[role="alert"]').waitFor();
    expect(await admin.locator('#hardware-names-outcome').innerText()).to.include('is not a GPU in the hardware catalogue');

    await row.getByLabel(`GPU for ${written}`).fill('NVIDIA GeForce RTX 4090');
    await row.getByRole('button', { name: 'Map' }).click();
    await admin.locator('#hardware-names-outcome[role="status"]').waitFor();
    expect(await windowStillMarked(admin), 'the tables were swapped in place').to.equal(true);
    expect(await admin.locator('#unresolved-names', { hasText: written }).count()).to.equal(0);
    const mapped = admin.locator('#mapped-names tbody tr', { hasText: written });
    expect(await mapped.getByRole('link', { name: 'NVIDIA GeForce RTX 4090' }).getAttribute('href')).to.equal('/hardware/nvidia-rtx-4090');
    const after = [...(await axeProblems(admin))];
    expect(after, after.join('\n')).to.deep.equal([]);

    // The run follows the device: its page links it, and the device page lists the run.
    await admin.goto('/hardware/nvidia-rtx-4090');
    expect(await admin.locator(`a[href="${runPath}"]`).count()).to.be.greaterThan(0);
  });
});
