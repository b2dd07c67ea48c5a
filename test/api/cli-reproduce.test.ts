import { expect } from 'chai';
import request from 'supertest';
import { createKey, signedUpAgent, useTestApp } from '../helpers/app.ts';
import { fakeHubModels } from '../helpers/fake-hub.ts';
import { startFakeOpenAi, type FakeOpenAi } from '../helpers/fake-openai.ts';
import { lastLine, llmBench, useLoopbackApp } from '../helpers/llm-bench.ts';

type Json = Record<string, any>;

/**
 * `llm-bench reproduce <run id>` end to end (issue 34 point 5): one user measures and submits
 * a run against a fake engine on loopback; another reads its recipe from the app, measures
 * it on "their" engine, sees both figures, and submits it with `replicates`, which the app
 * counts among the run's replications.
 */
describe('llm-bench reproduce against the app: recipe in, replication out', function () {
  this.timeout(60_000);
  const ctx = useTestApp({}, { fakeHub: true });
  const loopback = useLoopbackApp(ctx);
  let appUrl: string;
  let engine: FakeOpenAi;
  let firstKey: string;
  let secondKey: string;
  let original: Json;

  before(async () => {
    appUrl = loopback.url();
    engine = await startFakeOpenAi({
      mode: 'timed',
      engine: 'llama.cpp',
      models: ['dense-7b'],
      timing: { ttftMs: 40, tokensPerSecond: 200, outputTokens: 32 },
    });
    for (const set of [(key: string) => (firstKey = key), (key: string) => (secondKey = key)]) {
      const { agent, csrf } = await signedUpAgent(ctx.app);
      set((await createKey(agent, csrf)).key);
    }
    // The original: 64 prompt and 32 output tokens, two iterations, the launch command's flags.
    const workload = '--prompt-tokens 64 --max-tokens 32 --iterations 2'.split(' ');
    const command = 'llama-server -m dense-7b-Q4_K_M.gguf -ngl 99';
    const measured = await llmBench(
      [
        'measure',
        '--base-url',
        engine.url,
        '--hf-id',
        fakeHubModels.dense,
        ...workload,
        '--command',
        command,
        '--leaderboard',
        appUrl,
        '--submit',
        '--json',
      ],
      { LLM_BENCH_API_KEY: firstKey },
    );
    expect(measured.code, measured.stderr).to.equal(0);
    const [{ submitted }] = JSON.parse(measured.stdout).submissions;
    original = (await request(ctx.app).get(`/api/speed-tests/${submitted.id}`).expect(200)).body;
  });
  after(() => engine?.close());

  const reproduce = (...extra: string[]) =>
    llmBench(['reproduce', original.id, '--base-url', engine.url, '--iterations', '2', '--leaderboard', appUrl, ...extra], {
      LLM_BENCH_API_KEY: secondKey,
    });

  it("measures the run's recipe on the caller's engine and prints both figures", async () => {
    expect(original.recipe.flags).to.deep.equal({ gpuLayers: 99 });
    const result = await reproduce();
    expect(result.code, result.stderr).to.equal(0);
    expect(result.stderr).to.include(`reproducing run ${original.id}: ${fakeHubModels.dense} Q4_K_M with llama.cpp`);
    const line = result.stdout.split('\n').find((text) => text.startsWith(`run ${original.id}:`));
    expect(line, result.stdout).to.match(
      new RegExp(`^run ${original.id}: ${original.tokSOut} tok/s; yours: \\d+\\.\\d{2} tok/s \\(\\d+\\.\\d{2}x the original\\)$`),
    );
    // Not submitted without --submit: the payload names the run it replicates and runs its recipe.
    expect(result.stdout).to.include(`"replicates": "${original.id}"`);
    expect((await request(ctx.app).get(`/api/speed-tests/${original.id}`).expect(200)).body.replications.count).to.equal(0);
  });

  it('submits the measurement with replicates, and the run counts it among its replications', async () => {
    const result = await reproduce('--submit', '--json');
    expect(result.code, result.stderr).to.equal(0);
    const output = JSON.parse(result.stdout) as Json;
    const [payload] = output.payloads;
    expect(payload).to.include({
      replicates: original.id,
      hfId: original.recipe.model.hfId,
      quantization: 'Q4_K_M',
      engineName: 'llama.cpp',
      promptTokens: original.recipe.workload.promptTokens,
      outputTokens: original.recipe.workload.outputTokens,
      prefillTokens: 0,
    });
    expect(payload.engineFlags).to.deep.equal({ gpuLayers: 99, commandSnippet: 'llama-server -m dense-7b-Q4_K_M.gguf -ngl 99' });
    expect(output.reproduces).to.include({ runId: original.id, originalTokSOut: original.tokSOut });
    const [{ submitted }] = output.submissions;
    const stored = (await request(ctx.app).get(`/api/speed-tests/${submitted.id}`).expect(200)).body;
    expect(stored.replicates).to.deep.equal({ runId: original.id, counted: true, reason: null });
    expect(stored.recipe.key).to.equal(original.recipe.key);
    const again = (await request(ctx.app).get(`/api/speed-tests/${original.id}`).expect(200)).body;
    expect(again.replications).to.include({ count: 1 });
    expect(again.replications.runs).to.deep.equal([submitted.id]);
    const low = Math.min(original.tokSOut, stored.tokSOut);
    const high = Math.max(original.tokSOut, stored.tokSOut);
    expect(again.replications).to.include({ minTokS: low, maxTokS: high, spread: Math.round((high / low) * 1000) / 1000 });
    const board = (await request(ctx.app).get('/api/leaderboard').query({ replicated: 'true' }).expect(200)).body.rows.map(
      (row: Json) => row.id,
    );
    expect(board).to.have.members([original.id, submitted.id]);
  });

  it('says when a flag the caller gives changes the workload, so it would not count', async () => {
    const result = await reproduce('--max-tokens', '16');
    expect(result.code, result.stderr).to.equal(0);
    expect(result.stdout).to.match(
      /workload differs from the recipe \(prompt \d+, output 16, depth 0 tokens\), so it would not count as a replication/,
    );
  });

  it('refuses an unknown run (exit 4) and a malformed id (exit 2) before measuring', async () => {
    const unknown = await llmBench([
      'reproduce',
      '00000000-0000-4000-8000-000000000000',
      '--base-url',
      engine.url,
      '--leaderboard',
      appUrl,
    ]);
    expect(unknown.code).to.equal(4);
    expect(lastLine(unknown.stderr)).to.equal(
      `llm-bench: No approved run 00000000-0000-4000-8000-000000000000 at ${appUrl}: check the id (it is in the run's address, /runs/<id>).`,
    );
    const malformed = await llmBench(['reproduce', 'run-7', '--base-url', engine.url, '--leaderboard', appUrl]);
    expect(malformed.code).to.equal(2);
    expect(lastLine(malformed.stderr)).to.equal('llm-bench: reproduce takes the id of a run: llm-bench reproduce <run id> --base-url URL');
  });
});
