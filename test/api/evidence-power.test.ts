/**
 * Issue 34, points 3 and 4 through the API and the pages: where a run's power came from
 * (`powerSource`: measured, stated, none) and the verified mark with what makes a run
 * verified or what keeps it from that.
 */
import { createHash } from 'node:crypto';
import { expect } from 'chai';
import request from 'supertest';
import { useTestApp } from '../helpers/app.ts';
import { measuredEvidence, validSubmission } from '../helpers/fixtures.ts';
import { csvRecords } from '../helpers/leaderboard.ts';
import { account, type Account } from '../helpers/moderation.ts';

type Json = Record<string, any>;
const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');
const PROMPT = '3f2a9c1e-nonce Write a long story that continues the following words, and keep writing:\n\nthe of and';
const OUTPUT = ' tok tok tok tok';

/** A run with consistent evidence (verified) and measured power on two cards. */
const verifiedMeasured = (overrides: Json = {}) =>
  validSubmission({
    hardware: { hwClass: 'DISCRETE_GPU', gpuName: 'NVIDIA GeForce RTX 4090', gpuCount: 2, vramGb: 24 },
    ...measuredEvidence(120, 80, PROMPT, OUTPUT),
    gpuPowerWatts: [200, 100],
    powerSource: 'measured',
    ...overrides,
  });

describe('Verified evidence and measured power (revision 3)', () => {
  const ctx = useTestApp({ API_REVISION: '3' }, { fakeHub: true });
  let ada: Account;
  const write = () => ({ 'Content-Type': 'application/json', Authorization: `Bearer ${ada.key}` });
  const submit = async (body: Json) => {
    ctx.clock.advance(2 * 60_000);
    const res = await request(ctx.app).post('/api/speed-tests').set(write()).send(body);
    expect(res.status, JSON.stringify(res.body)).to.equal(201);
    return (
      await request(ctx.app)
        .get(`/api/speed-tests/${res.body.id ?? res.body.run?.id}`)
        .expect(200)
    ).body as Json;
  };

  before(async () => {
    ada = await account(ctx, 'ada');
  });

  describe('powerSource', () => {
    it('measured gpuPowerWatts: stored and answered as measured, tok/W from their sum; the dry-run says so', async () => {
      const dry = await request(ctx.app).post('/api/speed-tests/dry-run').set(write()).send(verifiedMeasured());
      expect(dry.status, JSON.stringify(dry.body)).to.equal(200);
      expect(dry.body.parsed).to.include({ powerSource: 'measured', totalPowerWatts: 300 });
      expect(dry.body.verification).to.deep.equal({ verified: true, issues: [] });
      const run = await submit(verifiedMeasured());
      expect(run).to.include({ powerSource: 'measured', totalPowerWatts: 300, verifiedRun: true });
      expect(run.tokPerWatt).to.be.closeTo(0.4, 1e-9);
      expect(run.verificationIssues).to.deep.equal([]);
    });

    it('typed watts are stated, the hardware powerWatts alone is stated, no power is null with no tok/W', async () => {
      const typed = await submit(validSubmission({ gpuPowerWatts: [250] }));
      expect(typed).to.include({ powerSource: 'stated', totalPowerWatts: 250 });
      expect(typed.tokPerWatt).to.be.closeTo(42.5 / 250, 1e-9);
      const declared = await submit(
        validSubmission({ hardware: { hwClass: 'DISCRETE_GPU', gpuName: 'NVIDIA GeForce RTX 4090', vramGb: 24, powerWatts: 450 } }),
      );
      expect(declared).to.include({ powerSource: 'stated', totalPowerWatts: null });
      expect(declared.tokPerWatt).to.be.closeTo(42.5 / 450, 1e-9);
      const none = await submit(validSubmission());
      expect(none).to.include({ powerSource: null, tokPerWatt: null });
    });

    it('refuses measured without gpuPowerWatts, a source without any power, and an unknown source, in the contract shape', async () => {
      for (const [body, pattern] of [
        [validSubmission({ powerSource: 'measured' }), /give gpuPowerWatts with it/],
        [validSubmission({ powerSource: 'stated' }), /give gpuPowerWatts \(or hardware\.powerWatts\)/],
        [validSubmission({ gpuPowerWatts: [100], powerSource: 'guessed' }), /Must be one of measured, stated/],
      ] as const) {
        const res = await request(ctx.app).post('/api/speed-tests/dry-run').set(write()).send(body);
        expect(res.status, JSON.stringify(res.body)).to.equal(400);
        expect(res.body.error).to.be.a('string');
        expect(res.body.details.fieldErrors.powerSource.join(' ')).to.match(pattern);
      }
    });

    it('a correction that retypes the watts makes them stated; one that leaves them keeps measured', async () => {
      const run = await submit(verifiedMeasured({ notes: 'first' }));
      const notes = await request(ctx.app).patch(`/api/speed-tests/${run.id}`).set(write()).send({ notes: 'corrected notes' });
      expect(notes.status, JSON.stringify(notes.body)).to.equal(200);
      expect((await request(ctx.app).get(`/api/speed-tests/${run.id}`)).body).to.include({
        powerSource: 'measured',
        notes: 'corrected notes',
      });
      const watts = await request(ctx.app)
        .patch(`/api/speed-tests/${run.id}`)
        .set(write())
        .send({ gpuPowerWatts: [150, 150] });
      expect(watts.status, JSON.stringify(watts.body)).to.equal(200);
      expect((await request(ctx.app).get(`/api/speed-tests/${run.id}`)).body).to.include({ powerSource: 'stated', totalPowerWatts: 300 });
      const dropped = await request(ctx.app).patch(`/api/speed-tests/${run.id}`).set(write()).send({ gpuPowerWatts: null });
      expect(dropped.status, JSON.stringify(dropped.body)).to.equal(200);
      expect((await request(ctx.app).get(`/api/speed-tests/${run.id}`)).body).to.include({ powerSource: null, tokPerWatt: null });
    });
  });

  describe('pages', () => {
    let verified: Json;
    let unverified: Json;
    before(async () => {
      verified = await submit(verifiedMeasured({ notes: 'page check' }));
      unverified = await submit(
        validSubmission({ tokSOut: 90, gpuPowerWatts: [300], engineTimingsRaw: { timings: { predicted_per_second: 60 } } }),
      );
    });

    it('the run page of a verified run says what makes it verified, and its tok/W that the power was measured', async () => {
      const html = (await request(ctx.app).get(`/runs/${verified.id}`).expect(200)).text;
      const evidence = /<section class="card run-evidence" id="evidence"[\s\S]*?<\/section>/.exec(html)?.[0] ?? '';
      expect(evidence).to.match(
        /Evidence: <span class="badge badge-ok badge-verified"[^>]*>verified<span class="visually-hidden"> run<\/span>/,
      );
      expect(evidence).to.include(`${sha256(PROMPT).slice(0, 12)}…`);
      expect(evidence).to.match(/120\.6 tok\/s decode against the submitted 120 \(0\.5% apart\)/);
      expect(evidence).to.match(/79\.2 ms to the first token against 80 \(1% apart\)/);
      expect(evidence).to.match(/commit <code>1a2b3c4d<\/code>/);
      expect(evidence).to.match(/3 per-iteration results/);
      const tokPerWatt = /<tr id="tok-per-watt">[\s\S]*?<\/tr>/.exec(html)?.[0] ?? '';
      expect(tokPerWatt).to.match(/0\.4 <span class="badge badge-muted power-source" data-power-source="measured"/);
      expect(html).to.match(/<p class="muted" id="power-source-note">tok\/W from power measured during the run/);
      expect(/<tr id="power-row">[\s\S]*?<\/tr>/.exec(html)?.[0]).to.match(/300 W <span[^>]*data-power-source="measured"/);
    });

    it('the run page of an unverified run lists the issues, and its tok/W says the power was stated', async () => {
      const html = (await request(ctx.app).get(`/runs/${unverified.id}`).expect(200)).text;
      const evidence = /<section class="card run-evidence" id="evidence"[\s\S]*?<\/section>/.exec(html)?.[0] ?? '';
      expect(evidence).to.include('Evidence: not verified');
      expect(evidence).not.to.include('badge-verified');
      expect(evidence).to.match(/<li>engineTimingsRaw gives 60\.0 tok\/s decode, 33% from tokSOut 90<\/li>/);
      expect(evidence).to.match(/<li>Neither engineCommit nor engineBuild names the engine build<\/li>/);
      expect(/<tr id="tok-per-watt">[\s\S]*?<\/tr>/.exec(html)?.[0]).to.match(/data-power-source="stated"/);
      expect(html).to.match(/id="power-source-note">tok\/W from power stated by the submitter/);
    });

    it('leaderboard rows (ranked by tok/W), the CSV export and the results list mark the verified run and say where the power came from', async () => {
      const board = (await request(ctx.app).get('/?sort=tokPerWatt&batchSize=all').expect(200)).text;
      const rowOf = (page: string, id: string) =>
        page
          .split('<tr>')
          .find((row) => row.includes(`href="/runs/${id}"`))
          ?.split('</tr>')[0] ?? '';
      expect(rowOf(board, verified.id)).to.match(/badge-verified/);
      expect(rowOf(board, verified.id)).to.match(/data-power-source="measured"/);
      expect(rowOf(board, unverified.id)).not.to.match(/badge-verified/);
      expect(rowOf(board, unverified.id)).to.match(/data-power-source="stated"/);
      const csv = csvRecords((await request(ctx.app).get('/api/leaderboard?format=csv&sort=tokPerWatt').expect(200)).text);
      expect(csv.header).to.include.members(['powerSource', 'verifiedRun']);
      const exported = (id: string) => csv.records.find((record) => record.id === id)!;
      expect(exported(verified.id)).to.include({ powerSource: 'measured', verifiedRun: 'true' });
      expect(exported(unverified.id)).to.include({ powerSource: 'stated', verifiedRun: 'false' });
      const list = (await request(ctx.app).get(`/u/${ada.username}`).expect(200)).text;
      expect(rowOf(list, verified.id)).to.match(/<span class="badge badge-ok badge-verified" title="Verified run:[^"]*">verified/);
      expect(rowOf(list, unverified.id)).not.to.match(/badge-verified/);
    });
  });
});

describe('powerSource belongs to revision 3', () => {
  const ctx = useTestApp({ API_REVISION: '2' }, { fakeHub: true });

  it('revision 2 refuses it and its answers leave it out; the page says typed power is stated', async () => {
    const bob = await account(ctx, 'bob');
    const headers = { 'Content-Type': 'application/json', Authorization: `Bearer ${bob.key}` };
    const refused = await request(ctx.app)
      .post('/api/benchmarks')
      .set(headers)
      .send(validSubmission({ powerSource: 'stated' }));
    expect(refused.status).to.equal(400);
    expect(refused.body.details.fieldErrors).to.have.property('powerSource');
    const stored = await request(ctx.app)
      .post('/api/benchmarks')
      .set(headers)
      .send(validSubmission({ hardware: { hwClass: 'DISCRETE_GPU', gpuName: 'NVIDIA GeForce RTX 4090', vramGb: 24, powerWatts: 400 } }));
    expect(stored.status, JSON.stringify(stored.body)).to.equal(201);
    const id = stored.body.id ?? stored.body.run?.id;
    const run = (await request(ctx.app).get(`/api/benchmarks/${id}`).expect(200)).body;
    expect(run).not.to.have.property('powerSource');
    expect(run.tokPerWatt).to.be.closeTo(42.5 / 400, 1e-9);
    const html = (await request(ctx.app).get(`/runs/${id}`).expect(200)).text;
    expect(/<tr id="tok-per-watt">[\s\S]*?<\/tr>/.exec(html)?.[0]).to.match(/data-power-source="stated"/);
    expect(html).not.to.include('id="evidence"');
  });
});
