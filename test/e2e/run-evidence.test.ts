import { expect } from 'chai';
import request from 'supertest';
import { createKey, signedUpAgent } from '../helpers/app.ts';
import { fakeHubModels } from '../helpers/fake-hub.ts';
import { measuredEvidence } from '../helpers/fixtures.ts';
import { useE2eApp } from './harness.ts';
import { axeProblems, validityProblems } from './page-checks.ts';

const PROMPT = '6d1f0a2b-nonce Write a long story that continues the following words, and keep writing:\n\nthe of and to';
const OUTPUT = ' tok'.repeat(64);

/**
 * Issue 34 in the browser: a run's page shows the verified mark with what makes the run
 * verified, and its tok/W with where the power came from; an unverified run lists its
 * issues; the leaderboard ranked by tok/W marks both.
 */
describe('e2e: verified evidence and measured power on the run page', () => {
  const e2e = useE2eApp(import.meta.filename, { demoRuns: 0 });
  let verifiedId: string;
  let statedId: string;

  before(async function () {
    this.timeout(30_000);
    const { agent, csrf } = await signedUpAgent(e2e.app);
    const { key } = await createKey(agent, csrf);
    const submit = async (body: Record<string, unknown>) => {
      e2e.clock.advance(10 * 60_000);
      const res = await request(e2e.app).post('/api/speed-tests').set('Authorization', `Bearer ${key}`).send(body);
      expect(res.status, JSON.stringify(res.body)).to.equal(201);
      return (res.body.id ?? res.body.run.id) as string;
    };
    const base = {
      hfId: fakeHubModels.dense,
      hardware: { hwClass: 'DISCRETE_GPU', gpuName: 'NVIDIA GeForce RTX 4090', gpuCount: 2, vramGb: 24 },
      engineName: 'llama.cpp',
      quantization: 'Q4_K_M',
    };
    // As llm-bench sends it: digests and samples, per-iteration samples, llama.cpp's timings, measured watts.
    verifiedId = await submit({
      ...base,
      ...measuredEvidence(180, 210, PROMPT, OUTPUT),
      engineVersion: 'b4500-1a2b3c4d',
      gpuPowerWatts: [250, 150],
      powerSource: 'measured',
    });
    statedId = await submit({ ...base, tokSOut: 120, gpuPowerWatts: [200, 200] });
  });

  it('the verified run: the mark in the lead and the evidence card, the engine figures, and tok/W from measured power', async () => {
    const page = await e2e.newPage();
    await page.goto(`/runs/${verifiedId}`);
    const lead = page.locator('p.lead');
    expect(await lead.locator('.badge-verified').isVisible()).to.equal(true);
    // The mark reads "verified" and its accessible text names the run, not the submitter.
    expect(await lead.locator('.badge-verified').innerText()).to.match(/^verified/);
    expect(await lead.locator('.badge-verified').textContent()).to.equal('verified run');
    const evidence = page.getByRole('region', { name: /Evidence: verified run/ });
    expect(await evidence.isVisible()).to.equal(true);
    const facts = await evidence.locator('#evidence-facts li').allInnerTexts();
    expect(facts.join('\n')).to.match(/SHA-256 [0-9a-f]{12}… and the output by [0-9a-f]{12}…, matching their samples/);
    expect(facts.join('\n')).to.match(/180\.9 tok\/s decode against the submitted 180 \(0\.5% apart\)/);
    expect(facts.join('\n')).to.match(/commit 1a2b3c4d/);
    expect(facts.join('\n')).to.match(/3 per-iteration results/);
    const tokPerWatt = page.locator('#tok-per-watt');
    expect(await tokPerWatt.textContent()).to.match(/0\.45 measured power/);
    expect(await page.locator('#power-source-note').innerText()).to.equal(
      'tok/W from power measured during the run by the measuring client (llm-bench or another).',
    );
    expect(await tokPerWatt.locator('[data-power-source]').getAttribute('title')).to.match(/llm-bench samples nvidia-smi/);
    expect(await page.locator('#power-row').textContent()).to.match(/400 W measured power/);
    expect(await axeProblems(page)).to.deep.equal([]);
    expect(await validityProblems(page, `/runs/${verifiedId}`)).to.deep.equal([]);
    await e2e.screenshot(page, 'verified-run');
  });

  it('a run with typed watts and no evidence: not verified, the issues listed, tok/W from stated power', async () => {
    const page = await e2e.newPage({ viewport: { width: 390, height: 844 }, isMobile: true, hasTouch: true });
    await page.goto(`/runs/${statedId}`);
    expect(await page.locator('p.lead .badge-verified, #evidence .badge-verified').count()).to.equal(0);
    const evidence = page.getByRole('region', { name: 'Evidence: not verified' });
    const issues = await evidence.locator('#evidence-issues li').allInnerTexts();
    expect(issues).to.include('No promptSha256 or outputSha256: what was measured is not pinned');
    expect(issues).to.include('Neither engineCommit nor engineBuild names the engine build');
    expect(await page.locator('#tok-per-watt').textContent()).to.match(/0\.3 stated power/);
    expect(await page.locator('#power-source-note').innerText()).to.match(/tok\/W from power stated by the submitter/);
    const scrollWidth = await page.evaluate(() => document.documentElement.scrollWidth);
    expect(scrollWidth).to.be.at.most(390);
    expect(await axeProblems(page)).to.deep.equal([]);
    await e2e.screenshot(page, 'stated-run-phone');
  });

  it('the leaderboard ranked by tok/W marks the verified run and says which power each figure used', async () => {
    const page = await e2e.newPage();
    await page.goto('/?sort=tokPerWatt&batchSize=all');
    const rows = page.locator('table.leaderboard tbody tr');
    expect(await rows.count()).to.equal(2);
    const verifiedRow = rows.filter({ has: page.locator(`a[href="/runs/${verifiedId}"]`) });
    expect(await verifiedRow.locator('.badge-verified').textContent()).to.equal('verified run');
    expect(await verifiedRow.locator('[data-power-source]').textContent()).to.equal('measured power');
    const statedRow = rows.filter({ has: page.locator(`a[href="/runs/${statedId}"]`) });
    expect(await statedRow.locator('.badge-verified').count()).to.equal(0);
    expect(await statedRow.locator('[data-power-source]').textContent()).to.equal('stated power');
    await verifiedRow.locator('.badge-verified').hover();
    expect(await axeProblems(page)).to.deep.equal([]);
  });
});
