import { expect } from 'chai';
import { fakeHubModels } from '../helpers/fake-hub.ts';
import { getRevisionProfile } from '../../src/revisions.ts';
import { createOfflineServices } from '../../src/services/index.ts';
import { submitRunThroughForm, useE2eApp } from './harness.ts';
import { axeProblems, validityProblems } from './page-checks.ts';

/**
 * Issue 34 point 5 in the browser: two users submit the same recipe on the same card through
 * the form; the first run's page shows its recipe, the reproduce command and its replication
 * (count and spread, linked); a run naming it with another engine build says why it does not
 * count; the leaderboard's "replicated only" keeps the replicated runs alone.
 */
describe('e2e: a run page shows its recipe and replications; the leaderboard ranks replicated runs only', () => {
  const e2e = useE2eApp(import.meta.filename);

  it('shows the recipe, the replication with its spread, a replicates that does not count, and filters the board', async () => {
    const first = await e2e.newPage();
    await e2e.signUp(first);
    const originalUrl = await submitRunThroughForm(first, { hfId: fakeHubModels.dense, tokSOut: 40 });
    const originalId = originalUrl.split('/').at(-1)!;

    const second = await e2e.newPage();
    await e2e.signUp(second);
    e2e.clock.advance(61_000);
    const replicationUrl = await submitRunThroughForm(second, { hfId: fakeHubModels.dense, tokSOut: 44 });
    const replicationId = replicationUrl.split('/').at(-1)!;

    // A third user names the original through the API but ran another engine build.
    const third = await e2e.newPage();
    const thirdName = await e2e.signUp(third);
    const services = createOfflineServices(e2e.db, getRevisionProfile(3));
    const thirdUser = (await services.users.findByUsername(thirdName))!;
    const { key } = await services.apiKeys.create(thirdUser.id, { name: 'reproduce' });
    e2e.clock.advance(61_000);
    const answer = await fetch(`${e2e.baseUrl}/api/speed-tests`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      body: JSON.stringify({
        hfId: fakeHubModels.dense,
        hardware: { hwClass: 'DISCRETE_GPU', gpuName: 'NVIDIA GeForce RTX 4090', vramGb: 24 },
        engineName: 'llama.cpp',
        engineVersion: 'b9999',
        quantization: 'Q4_K_M',
        tokSOut: 55,
        replicates: originalId,
      }),
    });
    expect(answer.status).to.equal(201);
    const otherBuild = (await answer.json()) as { id: string };

    const page = await e2e.newPage();
    await page.goto(`/runs/${originalId}`);
    const recipe = page.locator('#run-recipe');
    expect(await recipe.getByRole('heading', { name: 'Recipe' }).isVisible()).to.equal(true);
    const recipeText = await recipe.innerText();
    expect(recipeText).to.include(`${fakeHubModels.dense} · Q4_K_M`);
    expect(recipeText).to.include('llama.cpp');
    expect(await recipe.locator('[data-recipe-key]').innerText()).to.match(/^[0-9a-f]{12}(\.[0-9a-f]{12}){3}$/);
    expect(await recipe.locator('pre code').innerText()).to.equal(`llm-bench reproduce ${originalId} --base-url http://localhost:8080`);
    expect(await recipe.locator('[data-replication-count]').innerText()).to.equal('1');
    expect(await recipe.locator('[data-replication-spread]').innerText()).to.equal('1.1×');
    expect(recipeText).to.include('40–44 tok/s');
    // The form stated no token counts: the recipe says so rather than showing the defaults as facts.
    expect(recipeText).to.include('prompt tokens not stated, output tokens not stated');
    for (const problem of [...(await validityProblems(page, `/runs/${originalId}`)), ...(await axeProblems(page))])
      expect.fail(`run page: ${problem}`);
    await e2e.screenshot(page, 'original');

    // The replication links back, and is itself replicated by the original.
    await recipe.getByRole('link', { name: replicationId.slice(0, 8) }).click();
    await page.waitForURL(`**/runs/${replicationId}`);
    expect(await page.locator('#run-recipe [data-replication-count]').innerText()).to.equal('1');

    // The run naming the original with another build: stored, not counted, and why.
    await page.goto(`/runs/${otherBuild.id}`);
    const note = await page.locator('#run-replicates').innerText();
    expect(note).to.include(`Replicates run ${originalId.slice(0, 8)}`);
    expect(note).to.include('not counted (another recipe: the engine build differs)');
    await e2e.screenshot(page, 'not-counted');

    // The board's "replicated only", behind "More filters".
    await page.goto('/');
    expect(await page.locator('#results tbody tr').count()).to.equal(3);
    await page.locator('summary', { hasText: 'More filters' }).click();
    await page.getByLabel('Replication').selectOption({ label: 'replicated only' });
    await page.waitForURL((url) => url.searchParams.get('replicated') === 'true');
    await page.waitForFunction(() => document.querySelectorAll('#results tbody tr').length === 2);
    const shown = await page
      .locator('#results tbody tr a[href^="/runs/"]')
      .evaluateAll((links) => [...new Set(links.map((link) => link.getAttribute('href')))].sort());
    expect(shown).to.deep.equal([`/runs/${originalId}`, `/runs/${replicationId}`].sort());
    await e2e.screenshot(page, 'replicated-only');
  });
});
