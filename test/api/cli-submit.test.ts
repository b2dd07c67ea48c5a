import { mkdirSync, mkdtempSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { performance } from 'node:perf_hooks';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { expect } from 'chai';
import request from 'supertest';
import { createKey, signedUpAgent, TEST_PASSWORD, useTestApp } from '../helpers/app.ts';
import { fakeHubModels } from '../helpers/fake-hub.ts';
import { startFakeOpenAi, type FakeOpenAi } from '../helpers/fake-openai.ts';
import { fakeNvidiaSmiDir, lastLine, llmBench } from '../helpers/llm-bench.ts';
import { startTcpProxy, type TcpProxy } from '../helpers/tcp-proxy.ts';

type Json = Record<string, any>;

/**
 * llm-bench end to end: a fake engine streaming at 200 tok/s, the app on a loopback port
 * with its own database and fake hub, and the client between them.
 */
describe('llm-bench against the app: measure, dry-run, submit', function () {
  this.timeout(60_000);
  const ctx = useTestApp({}, { fakeHub: true });
  let server: Server;
  let appUrl: string;
  let engine: FakeOpenAi;
  let key: string;
  let username: string;
  let agent: Awaited<ReturnType<typeof signedUpAgent>>;
  const dir = mkdtempSync(path.join(os.tmpdir(), 'llm-bench-test-'));

  before(async () => {
    server = ctx.app.listen(0, '127.0.0.1');
    await new Promise((resolve) => server.once('listening', resolve));
    appUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    engine = await startFakeOpenAi({
      mode: 'timed',
      engine: 'llama.cpp',
      models: ['dense-7b'],
      timing: { ttftMs: 50, tokensPerSecond: 200, outputTokens: 32 },
    });
    agent = await signedUpAgent(ctx.app);
    username = agent.username;
    ({ key } = await createKey(agent.agent, agent.csrf));
  });
  after(async () => {
    await engine?.close();
    await new Promise((resolve) => server?.close(resolve));
  });

  const measureArgs = (...extra: string[]) => [
    'measure',
    '--base-url',
    engine.url,
    '--hf-id',
    fakeHubModels.dense,
    '--prompt-tokens',
    '64',
    '--max-tokens',
    '32',
    '--iterations',
    '3',
    '--leaderboard',
    appUrl,
    ...extra,
  ];
  const myRuns = async () =>
    (await request(ctx.app).get(`/api/speed-tests?username=${username}&limit=100`).expect(200)).body.benchmarks as Json[];

  it('submits a measured run that the leaderboard then shows with the measured values', async () => {
    const result = await llmBench([...measureArgs('--submit', '--json', '--command', 'llama-server -m dense-7b-Q4_K_M.gguf -ngl 99')], {
      LLM_BENCH_API_KEY: key,
    });
    expect(result.code, result.stderr).to.equal(0);
    const output = JSON.parse(result.stdout) as Json;
    const [payload] = output.payloads;
    const [{ dryRun, submitted }] = output.submissions;
    expect(dryRun.valid).to.equal(true);
    expect(dryRun.parsed).to.include({ hfId: fakeHubModels.dense, tokSOut: payload.tokSOut, engineName: 'llama.cpp' });
    expect(dryRun.plausibility.verdict).to.be.oneOf(['plausible', 'suspect', 'unknown']);
    expect(submitted.url).to.equal(`${appUrl}/runs/${submitted.id}`);
    expect(result.stderr).to.match(/dry-run: valid, plausibility /);

    const board = (
      await request(ctx.app)
        .get(`/api/leaderboard?hfId=${encodeURIComponent(fakeHubModels.dense)}`)
        .expect(200)
    ).body;
    const row = board.rows.find((r: Json) => r.id === submitted.id);
    expect(row, 'the run is on the leaderboard').to.not.equal(undefined);
    expect(row.tokSOut).to.equal(payload.tokSOut);
    expect(payload.tokSOut).to.be.within(160, 240);
    const run = (await request(ctx.app).get(`/api/speed-tests/${submitted.id}`).expect(200)).body;
    expect(run).to.include({
      ttftMs: payload.ttftMs,
      tokSPrefill: payload.tokSPrefill,
      promptTokens: payload.promptTokens,
      outputTokens: 32,
      contextLength: 8192,
    });
    expect(payload.ttftMs).to.be.within(48, 90);
    // Detected as /proc spells it, submitted as the catalogue does.
    expect(run.hardware).to.include({ hwClass: 'CPU_ONLY', cpu: 'AMD Ryzen 9 7950X', ramGb: 64 });
    expect(run.engineFlags).to.include({ commandSnippet: 'llama-server -m dense-7b-Q4_K_M.gguf -ngl 99', gpuLayers: 99 });
    // No power tool answers on this machine (an empty PATH, no powercap counters): no power, no error.
    expect(result.stderr).to.match(/power: no probe answered for this hardware; none measured/);
    expect(payload).not.to.have.any.keys('gpuPowerWatts', 'powerSource');
    expect(run).to.include({ powerSource: null, tokPerWatt: null });
    expect(await myRuns()).to.have.length(1);
  });

  it('prints the prediction for the detected machine before measuring, and the measured figure against it after', async () => {
    const result = await llmBench(measureArgs('--quantization', 'Q4_K_M'));
    expect(result.code, result.stderr).to.equal(0);
    const [line] = result.stderr.split('\n').filter((text) => text.startsWith('prediction (not a measurement): '));
    expect(line).to.match(
      /^prediction \(not a measurement\): [\d.]+ tok\/s decode \(80% interval [\d.]+-[\d.]+\), fits \(needs ~[\d.]+ GB\), from \d+ runs on the board$/,
    );
    // Said before the measuring starts.
    expect(result.stderr.indexOf(line!)).to.be.below(result.stderr.indexOf('warm-up 1/1 done'));
    expect(result.stdout).to.match(
      /\nMeasured [\d.]+ tok\/s decode against the predicted [\d.]+ tok\/s \([\d.]+-[\d.]+\): [+-]\d+%, (inside|below|above) the 80% interval\.\n/,
    );
    const json = JSON.parse((await llmBench(measureArgs('--quantization', 'Q4_K_M', '--json'))).stdout) as Json;
    expect(json.prediction.prediction.kind).to.equal('prediction');
    expect(json.prediction.comparison).to.match(/^Measured /);
  });

  it('measures without a prediction when the leaderboard cannot place the model (422) or cannot be reached', async () => {
    const unknown = await llmBench(measureArgs('--quantization', 'Q4_K_M', '--hf-id', 'nobody/not-catalogued-zzz'));
    expect(unknown.code, unknown.stderr).to.equal(0);
    expect(unknown.stderr).to.not.include('prediction');
    expect(unknown.stdout).to.not.include('against the predicted');
    const unreachable = await llmBench(measureArgs('--quantization', 'Q4_K_M').filter((arg) => arg !== '--leaderboard' && arg !== appUrl));
    expect(unreachable.code, unreachable.stderr).to.equal(0);
    expect(unreachable.stderr).to.not.include('prediction');
  });

  it('sends a saved payload; a retry after a dropped connection stores it once, and sending the file again is no duplicate', async () => {
    const file = path.join(dir, 'payload.json');
    const measured = await llmBench(measureArgs('--out', file, '--notes', 'saved for later'));
    expect(measured.code, measured.stderr).to.equal(0);
    expect(measured.stdout).to.match(/Payload \(not submitted/);
    expect(JSON.parse(readFileSync(file, 'utf8'))).to.include({ hfId: fakeHubModels.dense, quantization: 'Q4_K_M' });
    ctx.clock.advance(61_000);

    const proxy: TcpProxy = await startTcpProxy(appUrl);
    try {
      proxy.cutAnswers('POST /api/speed-tests ', 1);
      const first = await llmBench(['submit', file, '--leaderboard', proxy.url.replace(/\/$/, '')], { LLM_BENCH_API_KEY: key });
      expect(first.code, first.stderr).to.equal(0);
      expect(first.stderr).to.match(/connection dropped.*Retrying with the same Idempotency-Key \(1\/3\)/);
      expect(first.stdout).to.match(/Dry-run: valid\. Normalised payload:/);
      expect(first.stdout).to.match(/Plausibility: /);
      expect(first.stdout).to.match(/^Evidence: (verified \(the engine timings agree|not verified: .+\.$)/m);
      expect(first.stdout).to.match(
        /Submitted \(already stored earlier: the same run, not a duplicate\): http:\/\/127\.0\.0\.1:\d+\/runs\/[0-9a-f-]{36}/,
      );
    } finally {
      await proxy.close();
    }
    ctx.clock.advance(61_000);
    const again = await llmBench(['submit', file, '--leaderboard', appUrl], { LLM_BENCH_API_KEY: key });
    expect(again.code, again.stderr).to.equal(0);
    expect(again.stdout).to.match(/already stored earlier/);
    const runs = await myRuns();
    expect(runs).to.have.length(2);
    expect(runs.filter((run) => run.notes?.includes('saved for later'))).to.have.length(1);
  });

  it('waits out a 429 with --wait, and fails with exit 5 naming --wait without it', async () => {
    const saved = JSON.parse(readFileSync(path.join(dir, 'payload.json'), 'utf8')) as Json;
    const opening = path.join(dir, 'opening.json');
    writeFileSync(opening, JSON.stringify({ ...saved, notes: 'opens the window' }));
    expect((await llmBench(['submit', opening, '--leaderboard', appUrl], { LLM_BENCH_API_KEY: key })).code).to.equal(0);
    const file = path.join(dir, 'fresh.json');
    writeFileSync(file, JSON.stringify({ ...saved, notes: 'inside the window' }));
    const refused = await llmBench(['submit', file, '--leaderboard', appUrl], { LLM_BENCH_API_KEY: key });
    expect(refused.code).to.equal(5);
    expect(lastLine(refused.stderr)).to.match(/Rate limited: .*try again in \d+ s, or pass --wait/);

    ctx.clock.advance(59_000);
    const waited = await llmBench(['submit', file, '--leaderboard', appUrl, '--wait'], { LLM_BENCH_API_KEY: key }, (text) => {
      // The app's clock moves on while the client waits the Retry-After second.
      if (/Rate limited: waiting 1 s/.test(text)) ctx.clock.advance(2_000);
    });
    expect(waited.code, waited.stderr).to.equal(0);
    expect(waited.stdout).to.match(/^Submitted: /m);
    expect(await myRuns()).to.have.length(4);
  });

  it('a payload the leaderboard refuses: exit 4 with the field errors; an unknown model: exit 4; a wrong key: exit 6', async () => {
    const file = path.join(dir, 'bad.json');
    const saved = JSON.parse(readFileSync(path.join(dir, 'payload.json'), 'utf8')) as Json;
    writeFileSync(file, JSON.stringify({ ...saved, tokSOut: -3 }));
    const invalid = await llmBench(['submit', file, '--leaderboard', appUrl], { LLM_BENCH_API_KEY: key });
    expect(invalid.code).to.equal(4);
    expect(lastLine(invalid.stderr)).to.match(/The dry-run was refused \(HTTP 400\): tokSOut: Must be positive/);

    writeFileSync(file, JSON.stringify({ ...saved, hfId: fakeHubModels.missing }));
    const unknown = await llmBench(['submit', file, '--leaderboard', appUrl], { LLM_BENCH_API_KEY: key });
    expect(unknown.code).to.equal(4);
    expect(lastLine(unknown.stderr)).to.match(/HTTP 404.*Does-Not-Exist/);

    const wrongKey = await llmBench(['submit', file, '--leaderboard', appUrl], { LLM_BENCH_API_KEY: `bhk_${'0'.repeat(40)}` });
    expect(wrongKey.code).to.equal(6);
    expect(lastLine(wrongKey.stderr)).to.match(/refused the API key \(HTTP 401\): create a key at .*\/settings\/keys/);
    expect(await myRuns()).to.have.length(4);
  });

  it('--setup takes the hardware of a saved setup, signing in with LLM_BENCH_USERNAME / LLM_BENCH_PASSWORD', async () => {
    await agent.agent
      .post('/api/setups')
      .set('X-CSRF-Token', agent.csrf)
      .send({ name: '4090 box', hwClass: 'DISCRETE_GPU', gpuName: 'RTX 4090', vramGb: 24, cpu: 'AMD Ryzen 9 7950X', ramGb: 64 })
      .expect(201);
    const result = await llmBench([...measureArgs('--setup', '4090 box', '--json', '--iterations', '1')], {
      LLM_BENCH_USERNAME: username,
      LLM_BENCH_PASSWORD: TEST_PASSWORD,
    });
    expect(result.code, result.stderr).to.equal(0);
    expect(JSON.parse(result.stdout).payloads[0].hardware).to.deep.equal({
      hwClass: 'DISCRETE_GPU',
      gpuName: 'NVIDIA GeForce RTX 4090',
      vramGb: 24,
      cpu: 'AMD Ryzen 9 7950X',
      ramGb: 64,
    });

    const missing = await llmBench([...measureArgs('--setup', 'no such setup')], {
      LLM_BENCH_USERNAME: username,
      LLM_BENCH_PASSWORD: TEST_PASSWORD,
    });
    expect(missing.code).to.equal(2);
    expect(lastLine(missing.stderr)).to.match(/no saved setup named "no such setup"; yours: 4090 box/);
    const signedOut = await llmBench([...measureArgs('--setup', '4090 box')]);
    expect(signedOut.code).to.equal(2);
    expect(lastLine(signedOut.stderr)).to.match(/set LLM_BENCH_USERNAME and LLM_BENCH_PASSWORD/);
  });

  describe('evidence and measured power', () => {
    let slowEngine: FakeOpenAi;
    before(async () => {
      // A TTFT and a decode long enough that the 5% agreement of the engine's own timings with
      // the client's is not timer noise (the app, the engine and the client share this process).
      slowEngine = await startFakeOpenAi({
        mode: 'timed',
        engine: 'llama.cpp',
        models: ['dense-7b'],
        timing: { ttftMs: 500, tokensPerSecond: 200, outputTokens: 128 },
      });
    });
    after(async () => slowEngine?.close());

    const slowArgs = (...extra: string[]) => [
      'measure',
      '--base-url',
      slowEngine.url,
      '--hf-id',
      fakeHubModels.dense,
      '--prompt-tokens',
      '64',
      '--max-tokens',
      '128',
      '--iterations',
      '3',
      '--leaderboard',
      appUrl,
      '--submit',
      '--json',
      ...extra,
    ];
    const submitted = async (result: { code: number; stdout: string; stderr: string }) => {
      expect(result.code, result.stderr).to.equal(0);
      const output = JSON.parse(result.stdout) as Json;
      const [{ dryRun, submitted: stored }] = output.submissions;
      const run = (await request(ctx.app).get(`/api/speed-tests/${stored.id}`).expect(200)).body as Json;
      return { payload: output.payloads[0] as Json, dryRun, run };
    };

    it('two cards read by nvidia-smi (a script on PATH): a verified run with measured power, and the pages say so', async () => {
      const bin = fakeNvidiaSmiDir();
      const hardwareFile = path.join(dir, 'two-4090.json');
      writeFileSync(hardwareFile, JSON.stringify({ hwClass: 'DISCRETE_GPU', gpuName: 'RTX 4090', gpuCount: 2, vramGb: 24 }));
      ctx.clock.advance(61_000);
      const result = await llmBench(slowArgs('--hardware-file', hardwareFile), {
        LLM_BENCH_API_KEY: key,
        PATH: bin,
        LLM_BENCH_POWER_INTERVAL_MS: '100',
      });
      const { payload, dryRun, run } = await submitted(result);
      expect(result.stderr).to.match(/power: sampled with nvidia-smi while measuring/);
      expect(result.stderr).to.match(/dry-run: valid, plausibility \w+, verified\n/);
      expect(dryRun.verification, JSON.stringify(dryRun.verification)).to.deep.equal({ verified: true, issues: [] });
      expect(payload).to.deep.include({ gpuPowerWatts: [250, 150], powerSource: 'measured', engineCommit: '1a2b3c4d' });
      expect(payload.notes).to.match(/Power measured by llm-bench with nvidia-smi/);
      expect(run).to.include({ verifiedRun: true, powerSource: 'measured', totalPowerWatts: 400, engineCommit: '1a2b3c4d' });
      expect(run.verificationIssues).to.deep.equal([]);
      expect(run.tokPerWatt).to.be.closeTo(payload.tokSOut / 400, 1e-9);
      const stored = await ctx
        .db('speed_test_runs')
        .where({ id: run.id })
        .first('prompt_sha256', 'output_sha256', 'samples', 'engine_timings_raw');
      expect(stored).to.include({ prompt_sha256: payload.promptSha256, output_sha256: payload.outputSha256 });
      expect(stored.samples).to.have.length(3);
      expect(stored.engine_timings_raw.timings.predicted_n).to.equal(128);
      const page = (await request(ctx.app).get(`/runs/${run.id}`).expect(200)).text;
      expect(page).to.match(/Evidence: <span class="badge badge-ok badge-verified"/);
      expect(/<tr id="tok-per-watt">[\s\S]*?<\/tr>/.exec(page)?.[0]).to.match(/data-power-source="measured"/);
    });

    it('a CPU-only run: the RAPL counters (a directory standing in for /sys/class/powercap) give its measured watts', async () => {
      const powercap = mkdtempSync(path.join(os.tmpdir(), 'llm-bench-powercap-'));
      const zone = path.join(powercap, 'intel-rapl:0');
      mkdirSync(zone);
      writeFileSync(path.join(zone, 'max_energy_range_uj'), '262143328850\n');
      // The package draws 40 W: its counter grows by 40 µJ a millisecond while the run lasts.
      const started = performance.now();
      // Written whole and renamed into place: sysfs reads never see half a number.
      const tick = () => {
        writeFileSync(path.join(powercap, 'energy.tmp'), `${Math.round((performance.now() - started) * 40_000)}\n`);
        renameSync(path.join(powercap, 'energy.tmp'), path.join(zone, 'energy_uj'));
      };
      tick();
      const counter = setInterval(tick, 10);
      let result: Awaited<ReturnType<typeof llmBench>>;
      try {
        ctx.clock.advance(61_000);
        result = await llmBench(slowArgs(), {
          LLM_BENCH_API_KEY: key,
          LLM_BENCH_POWERCAP_DIR: powercap,
          LLM_BENCH_POWER_INTERVAL_MS: '100',
        });
      } finally {
        clearInterval(counter);
      }
      const { payload, run } = await submitted(result);
      expect(result.stderr).to.match(/power: sampled with RAPL while measuring/);
      expect(payload.powerSource).to.equal('measured');
      expect(payload.gpuPowerWatts).to.have.length(1);
      expect(payload.gpuPowerWatts[0]).to.be.within(32, 48);
      expect(run).to.include({ powerSource: 'measured', verifiedRun: true });
      expect(run.hardware).to.include({ hwClass: 'CPU_ONLY' });
    });
  });
});
