/**
 * Peer verdicts through the real API (issue 34, DECISIONS.md "Verdicts, peers and
 * replication"): a run far above every comparable approved run by other users is an
 * `outlier` naming its peers; the first run of a setup is never one; when a peer arrives or
 * leaves, the runs of that device are re-judged in the background (one pass here, as the
 * app's timer runs it) with audit entries; "hide suspect runs" hides outliers on both read
 * paths; the verdict object is on the run JSON, the dry-run, the exports and the pages.
 */
import { expect } from 'chai';
import request from 'supertest';
import { PEER_RULE } from '../../src/lib/peer-verdict.ts';
import { VERDICT_ACTOR } from '../../src/runs/submission/plausibility.service.ts';
import { setHardwareMappings } from '../../src/lib/hardware-mappings.ts';
import { useTestApp } from '../helpers/app.ts';
import { csvRecords, download } from '../helpers/leaderboard.ts';
import { type Account, account, auditRowsFor, submitRun } from '../helpers/moderation.ts';

// fakeHubModels.dense at Q4_K_M on an RTX 3090 (936 GB/s): a bound near 215 tok/s.
const RTX_3090 = { hwClass: 'DISCRETE_GPU', gpuName: 'NVIDIA GeForce RTX 3090', vramGb: 24 };

describe('peer verdicts: outliers among approved runs of the same setup', () => {
  const ctx = useTestApp({}, { fakeHub: true });
  let first: Account;
  let fast: Account;
  let later: Account;
  let admin: Account;
  const ids: Record<string, string> = {};
  const sqlPath = () => ctx.appWith({ READ_INDEX: 'off' });
  const runJson = async (id: string) => (await request(ctx.app).get(`/api/speed-tests/${id}`).expect(200)).body;
  const rejudge = () => (ctx.app.locals.rejudgePeers as () => Promise<number>)();

  // The admins' mappings are the process's: none left for the next file.
  after(() => setHardwareMappings([]));

  before(async () => {
    [first, fast, later, admin] = await Promise.all([
      account(ctx, 'first'),
      account(ctx, 'fast'),
      account(ctx, 'later'),
      account(ctx, 'admin', { admin: true }),
    ]);
  });

  it('never judges the first run of a setup an outlier for lack of peers', async () => {
    const run = await submitRun(ctx, first, { hardware: RTX_3090, tokSOut: 60 });
    ids.first = run.id;
    expect(run.plausibility).to.equal('plausible');
    expect(run.verdict).to.include({ verdict: 'plausible', peers: null });
    expect(run.verdict.decodeBoundTokS).to.be.within(200, 230);
  });

  it('judges a run far above its approved peer an outlier, naming the peers, in the dry-run first', async () => {
    const dryRun = await request(ctx.app)
      .post('/api/speed-tests/dry-run')
      .set('Authorization', `Bearer ${fast.key}`)
      .send({ hfId: 'fakeorg/Dense-7B', hardware: RTX_3090, engineName: 'llama.cpp', quantization: 'Q4_K_M', tokSOut: 180 });
    expect(dryRun.status, JSON.stringify(dryRun.body)).to.equal(200);
    expect(dryRun.body.plausibility.verdict).to.equal('outlier');
    expect(dryRun.body.verdict.peers).to.deep.equal({ count: 1, bestTokS: 60, ratio: 3, basis: 'setup' });

    const run = await submitRun(ctx, fast, { hardware: RTX_3090, tokSOut: 180 });
    ids.fast = run.id;
    // Within the 1.1 × ~215 tok/s bound, so not suspect: 3 × the only peer.
    expect(run.plausibility).to.equal('outlier');
    expect(run.verdict.verdict).to.equal('outlier');
    expect(run.verdict.peers).to.deep.equal({ count: 1, bestTokS: 60, ratio: 3, basis: 'setup' });
    expect(run.verdict.reason).to.equal(run.plausibilityReason);
    expect(run.plausibilityReason).to.include(`above ${PEER_RULE.setupFactor} ×`);
    expect(await runJson(run.id)).to.deep.include({ plausibility: 'outlier', verdict: run.verdict });
    // The same submitter's own runs are not its peers: a second fast run of its own stays judged by the others.
    const own = await submitRun(ctx, fast, { hardware: RTX_3090, tokSOut: 181 });
    expect(own.verdict.peers).to.deep.include({ count: 1, bestTokS: 60 });
    await request(ctx.app).delete(`/api/speed-tests/${own.id}`).set('Authorization', `Bearer ${fast.key}`).expect(200);
  });

  it('re-judges in the background when a peer leaves (rejected) and when one arrives, with audit entries', async () => {
    await admin.agent.post(`/admin/runs/${ids.first}/reject`).type('form').send({ _csrf: admin.csrf, reason: 'test' }).expect(303);
    // Not yet: reads serve the stored verdict until the re-judging has run.
    expect((await runJson(ids.fast!)).plausibility).to.equal('outlier');
    expect(await rejudge()).to.be.at.least(1);
    const alone = await runJson(ids.fast!);
    expect(alone.verdict).to.include({ verdict: 'plausible', peers: null });

    const arrived = await submitRun(ctx, later, { hardware: RTX_3090, tokSOut: 62 });
    ids.later = arrived.id;
    // Only an outlier names its peers: a plausible run's verdict stays as it is when others arrive.
    expect(arrived.verdict).to.include({ verdict: 'plausible', peers: null });
    expect(await rejudge()).to.equal(1);
    const judgedAgain = await runJson(ids.fast!);
    expect(judgedAgain.verdict.verdict).to.equal('outlier');
    expect(judgedAgain.verdict.peers).to.deep.equal({ count: 1, bestTokS: 62, ratio: 2.9, basis: 'setup' });
    // Nothing left to do: a second pass changes nothing.
    expect(await rejudge()).to.equal(0);

    const audit = (await auditRowsFor(ctx, ids.fast!)).filter((row) => row.action === 'run.rejudged');
    expect(audit.map((row) => row.reason.split(' (')[0])).to.deep.equal(['outlier -> plausible', 'plausible -> outlier']);
    expect(audit.every((row) => row.actor_username === VERDICT_ACTOR && row.actor_id === null)).to.equal(true);
  });

  it('hides outliers with plausible=true on both read paths, and shows them otherwise', async () => {
    for (const app of [ctx.app, sqlPath()]) {
      const all = (await request(app).get('/api/leaderboard').query({ limit: '200' }).expect(200)).body.rows;
      const shown = (await request(app).get('/api/leaderboard').query({ limit: '200', plausible: 'true' }).expect(200)).body.rows;
      expect(all.map((row: { id: string }) => row.id)).to.include.members([ids.fast, ids.later]);
      expect(all.find((row: { id: string }) => row.id === ids.fast).verdict.verdict).to.equal('outlier');
      expect(shown.map((row: { id: string }) => row.id))
        .to.include(ids.later)
        .and.not.include(ids.fast);
    }
  });

  it('carries the verdict into the CSV and JSON Lines exports', async () => {
    const { records } = csvRecords((await download(ctx, { format: 'csv' })).text);
    const row = records.find((record) => record.id === ids.fast)!;
    expect(row).to.include({
      plausibility: 'outlier',
      verdict: 'outlier',
      peerCount: '1',
      peerBestTokS: '62',
      peerRatio: '2.9',
      peerBasis: 'setup',
    });
    const lines = (await download(ctx, { format: 'jsonl' })).text
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line));
    expect(lines.find((line) => line.id === ids.fast).verdict).to.deep.include({ verdict: 'outlier' });
  });

  it('shows the verdict and its peers on the run page and marks the leaderboard row', async () => {
    const page = (await request(ctx.app).get(`/runs/${ids.fast}`).expect(200)).text;
    expect(page).to.match(/<p class="alert alert-warn" id="plausibility">\s*<strong>Outlier\.<\/strong>/);
    expect(page).to.match(
      /Compared with 1 approved run of the same weights on the same device: best <strong>62(\.0)? tok\/s<\/strong>, this run <strong>2\.9 ×<\/strong>/,
    );
    const board = (await request(ctx.app).get('/').expect(200)).text;
    expect(board).to.match(/<span class="badge badge-warn" title="Outlier: [^"]+">outlier<\/span>/);
  });

  it('states the rule, its thresholds and the figures measured on real runs on /methodology', async () => {
    const page = (await request(ctx.app).get('/methodology').expect(200)).text;
    expect(page).to.include('<h2 id="peers">Outliers: runs far above their peers</h2>');
    expect(page).to.include(`above ${PEER_RULE.setupFactor} × the best approved single-stream run of the same weights`);
    expect(page).to.include(`<td class="num">${PEER_RULE.deviceFactor} ×</td>`);
    expect(page).to.match(/honest copies flagged \(outlier or suspect\) [\d.]+%; copies with the decode speed doubled flagged [\d.]+%/);
  });

  it("re-judges a device's runs when an admin's hardware-name mapping moves a run onto its board", async () => {
    const mover = await account(ctx, 'mover');
    const homebrew = await submitRun(ctx, mover, { hardware: { ...RTX_3090, gpuName: 'Homebrew Accelerator 7' }, tokSOut: 200 });
    // No device the catalogue knows: no bound, and no peer on its own board.
    expect(homebrew.verdict).to.include({ verdict: 'unknown', peers: null });
    expect(await rejudge()).to.equal(0);
    expect((await runJson(ids.fast!)).plausibility).to.equal('outlier');

    await admin.agent
      .post('/admin/hardware/map')
      .type('form')
      .send({ _csrf: admin.csrf, kind: 'gpu', name: 'Homebrew Accelerator 7', device: 'NVIDIA GeForce RTX 3090', page: '1' })
      .expect(303);
    // Judged at once with its new device (within the bound, below nobody's 1.75 ×); the 3090's runs in the background.
    expect((await runJson(homebrew.id)).verdict).to.include({ verdict: 'plausible', peers: null });
    expect(await rejudge()).to.equal(1);
    // 180 tok/s is no longer far above every peer: the mapped run did 200.
    expect((await runJson(ids.fast!)).verdict).to.include({ verdict: 'plausible', peers: null });
    const audit = (await auditRowsFor(ctx, ids.fast!)).filter((row) => row.action === 'run.rejudged');
    expect(audit.at(-1).reason).to.match(/^outlier -> plausible/);

    // Its owner withdraws it: it leaves the board, and the 180 tok/s run is far above its peers again.
    await request(ctx.app).delete(`/api/speed-tests/${homebrew.id}`).set('Authorization', `Bearer ${mover.key}`).expect(200);
    expect(await rejudge()).to.equal(1);
    expect((await runJson(ids.fast!)).verdict.peers).to.deep.equal({ count: 1, bestTokS: 62, ratio: 2.9, basis: 'setup' });
  });
});
