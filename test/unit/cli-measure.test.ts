import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import { expect } from 'chai';
import { OLLAMA_TIMING_KEYS } from '../../src/cli/llm-bench/stream.ts';
import { startFakeOpenAi, type FakeEngine, type FakeOpenAi, type FakeTiming } from '../helpers/fake-openai.ts';
import { closedPort, lastLine, llmBench } from '../helpers/llm-bench.ts';

/**
 * Measured figures against a fake engine that streams at a set TTFT and rate. Tolerance:
 * rates within 20% of the set ones and TTFT within +40 ms (the fake's timers and this
 * shared machine's scheduling, not the client's arithmetic, make the difference).
 */
const RATE_TOLERANCE = 0.2;
const TTFT_SLACK_MS = 40;

type Json = Record<string, any>;
const sha256 = (text: string) => createHash('sha256').update(text, 'utf8').digest('hex');

describe('llm-bench measure against a fake streaming engine', function () {
  this.timeout(30_000);
  let fake: FakeOpenAi;
  afterEach(async () => fake?.close());

  const start = async (timing: Partial<FakeTiming> = {}, engine: FakeEngine = 'generic') => {
    fake = await startFakeOpenAi({ mode: 'timed', engine, models: ['bench-model'], timing });
    return fake;
  };
  const measureJson = async (extra: string[] = []) => {
    const result = await llmBench([
      'measure',
      '--base-url',
      fake.url,
      '--prompt-tokens',
      '64',
      '--max-tokens',
      '32',
      '--iterations',
      '3',
      '--warmup',
      '1',
      '--json',
      ...extra,
    ]);
    expect(result.code, result.stderr).to.equal(0);
    return JSON.parse(result.stdout) as Json;
  };
  const expectRate = (measured: number, expected: number) =>
    expect(measured).to.be.within(expected * (1 - RATE_TOLERANCE), expected * (1 + RATE_TOLERANCE));
  const expectTtft = (measured: number, expected: number) => expect(measured).to.be.within(expected - 2, expected + TTFT_SLACK_MS);

  it('measures TTFT, decode and prefill at the set values, from the usage sent at the end', async () => {
    await start({ ttftMs: 60, tokensPerSecond: 200 });
    const output = await measureJson();
    const [result] = output.results;
    expect(result.tokenCounts).to.equal('server');
    expectRate(result.stats.decodeTokS.median, 200);
    expectTtft(result.stats.ttftMs.median, 60);
    expectRate(result.stats.prefillTokS.median, result.promptTokens / (60 / 1000));
    expect(result.promptTokens).to.be.within(58, 70);
    expect(result.outputTokens).to.equal(32);
    expect(result.rounds).to.have.length(3);
    expect(fake.completions().every((request) => request.body?.stream_options?.include_usage === true)).to.equal(true);
    const [payload] = output.payloads;
    expect(payload).to.include({
      tokSOut: Math.round(result.stats.decodeTokS.median * 100) / 100,
      promptTokens: result.promptTokens,
      outputTokens: 32,
      prefillTokens: 0,
      batchSize: 1,
    });
  });

  it('puts a fresh nonce first in every prompt, warm-up included', async () => {
    await start();
    await measureJson();
    const prompts = fake.completions().map((request) => request.body!.messages!.at(-1)!.content);
    expect(prompts).to.have.length(4);
    const nonces = prompts.map((prompt) => /^([0-9a-f-]{36}) /.exec(prompt)?.[1]);
    expect(nonces.every(Boolean)).to.equal(true);
    expect(new Set(nonces).size).to.equal(4);
  });

  it('counts a chunk of several tokens as several tokens (decode over the first-to-last window)', async () => {
    await start({ tokensPerSecond: 200, tokensPerChunk: 4, ttftMs: 40 });
    const [result] = (await measureJson()).results;
    expectRate(result.stats.decodeTokS.median, 200);
    // The first event leaves with its fourth token.
    expectTtft(result.stats.ttftMs.median, 40 + (3 / 200) * 1000);
  });

  it('estimates tokens from stream events when the server sends no usage, and says so', async () => {
    await start({ usage: 'none', tokensPerSecond: 200 });
    const output = await measureJson();
    const [result] = output.results;
    expect(result.tokenCounts).to.equal('estimated from stream events');
    expectRate(result.stats.decodeTokS.median, 200);
    expect(output.payloads[0].notes).to.match(/estimated from stream events/);
  });

  it('asks again without stream_options and ignore_eos when the server refuses them', async () => {
    await start({ refuseExtras: true });
    const result = await llmBench(['measure', '--base-url', fake.url, '--max-tokens', '16', '--iterations', '1', '--warmup', '0']);
    expect(result.code, result.stderr).to.equal(0);
    expect(result.stderr).to.match(/refused stream_options/);
    const completions = fake.completions();
    expect(completions[0]!.body!.stream_options).to.deep.equal({ include_usage: true });
    expect(
      completions.slice(1).every((request) => request.body!.stream_options === undefined && request.body!.ignore_eos === undefined),
    ).to.equal(true);
    expect(result.stdout).to.match(/token counts: estimated from stream events/);
  });

  it('records llama.cpp timings next to the client figures and submits the client ones', async () => {
    await start({ ttftMs: 50, tokensPerSecond: 150 }, 'llama.cpp');
    const output = await measureJson();
    const [result] = output.results;
    expect(output.engine).to.include({
      engineName: 'llama.cpp',
      engineVersion: 'b4500-1a2b3c4d',
      contextLength: 8192,
      quantization: 'Q4_K_M',
    });
    expect(result.engineTimings).to.equal('llama.cpp timings');
    expectRate(result.stats.engineDecodeTokS.median, 150);
    expectRate(result.stats.decodeTokS.median, 150);
    const [payload] = output.payloads;
    expect(payload.tokSOut).to.equal(Math.round(result.stats.decodeTokS.median * 100) / 100);
    expect(payload).to.include({
      engineName: 'llama.cpp',
      engineVersion: 'b4500-1a2b3c4d',
      engineCommit: '1a2b3c4d',
      quantization: 'Q4_K_M',
      contextLength: 8192,
    });
    expect(payload.notes).to.match(/Engine-reported \(llama\.cpp timings\): decode \d+(\.\d)? tok\/s/);
    // The evidence: a timed prompt and its output pinned by digest, every iteration, the engine's own timings.
    const timedPrompts = fake
      .completions()
      .slice(1)
      .map((request) => request.body!.messages!.at(-1)!.content);
    expect(timedPrompts.map(sha256)).to.include(payload.promptSha256);
    expect(timedPrompts).to.include(payload.promptSample);
    expect(payload.outputSample).to.equal(' tok'.repeat(32));
    expect(payload.outputSha256).to.equal(sha256(' tok'.repeat(32)));
    expect(payload.samples).to.have.length(3);
    expect(payload.samples.map((sample: Json) => sample.tokSOut)).to.deep.equal(
      result.rounds.map((round: Json) => Math.round(round.decodeTokS * 100) / 100),
    );
    expect(payload.samples.every((sample: Json) => timedPrompts.map(sha256).includes(sample.promptSha256))).to.equal(true);
    expect(payload.sampleStats).to.include({ iterations: 3, concurrency: 1 });
    expect(payload.sampleStats.decodeTokS.median).to.equal(payload.tokSOut);
    expect(payload.engineTimingsRaw.source).to.equal('llama.cpp timings');
    expect(payload.engineTimingsRaw.timings).to.have.keys(
      'cache_n',
      'prompt_n',
      'prompt_ms',
      'prompt_per_token_ms',
      'prompt_per_second',
      'predicted_n',
      'predicted_ms',
      'predicted_per_token_ms',
      'predicted_per_second',
    );
    expect(payload.engineTimingsRaw.perIteration).to.have.length(3);
    // The stream pinned is the iteration nearest the median: its engine rate agrees with tokSOut.
    expect(Math.abs(payload.engineTimingsRaw.timings.predicted_per_second - payload.tokSOut) / payload.tokSOut).to.be.below(0.05);
  });

  it('measures Ollama through its native API with its eval counts', async () => {
    await start({ ttftMs: 50, tokensPerSecond: 100 }, 'ollama');
    const output = await measureJson();
    const [result] = output.results;
    expect(output.engine).to.include({ api: 'ollama', engineName: 'ollama', engineVersion: '0.5.7' });
    expect(fake.completions().every((request) => request.path === '/api/chat' && request.body?.options?.num_predict === 32)).to.equal(true);
    expect(result.engineTimings).to.equal('Ollama eval counts');
    expectRate(result.stats.engineDecodeTokS.median, 100);
    expectRate(result.stats.decodeTokS.median, 100);
    expect(output.payloads[0]).to.include({ engineName: 'ollama', quantization: 'Q4_0' });
    // Ollama's own counts and nanosecond durations, as it sent them.
    const raw = output.payloads[0].engineTimingsRaw;
    expect(raw.source).to.equal('Ollama eval counts');
    expect(raw.timings).to.include({ eval_count: 32, done_reason: 'length' });
    expect(raw.timings).to.have.keys(...OLLAMA_TIMING_KEYS);
    expect(OLLAMA_TIMING_KEYS).to.include.members(['prompt_eval_duration', 'eval_count', 'eval_duration']);
    expectRate(raw.timings.eval_count / (raw.timings.eval_duration / 1e9), 100);
  });

  it('measures a slow first token as TTFT and a prefill rate from prompt tokens / TTFT', async () => {
    await start({ ttftMs: 0, prefillTokensPerSecond: 200, tokensPerSecond: 200 });
    const [result] = (await measureJson(['--prompt-tokens', '60'])).results;
    // 60 prompt tokens at 200 tok/s: about 300 ms before the first token.
    expectTtft(result.stats.ttftMs.median, (result.promptTokens / 200) * 1000);
    expectRate(result.stats.prefillTokS.median, 200);
  });

  it('adds up concurrent streams into an aggregate decode rate', async () => {
    await start({ tokensPerSecond: 100, outputTokens: 32 });
    const output = await measureJson(['--concurrency', '4', '--command', 'llama-server -m model.gguf -np 4']);
    const [result] = output.results;
    expect(fake.maxInFlight).to.equal(4);
    expectRate(result.stats.decodeTokS.median, 400);
    expect(output.payloads[0].engineFlags).to.deep.equal({ commandSnippet: 'llama-server -m model.gguf -np 4', concurrency: 4 });
  });

  it('sweeps context depths: the context is primed untimed, then the prompt follows it; one payload per depth', async () => {
    await start({ tokensPerSecond: 200 });
    const output = await measureJson(['--depth', '0,200', '--iterations', '1', '--warmup', '0']);
    expect(output.payloads.map((payload: Json) => payload.prefillTokens)).to.deep.equal([0, output.results[1].contextTokens]);
    expect(output.results[1].contextTokens).to.be.within(190, 215);
    const [fresh, primer, timed] = fake.completions().map((request) => request.body!);
    expect(fresh!.max_tokens).to.equal(32);
    expect(primer!.max_tokens).to.equal(1);
    expect(timed!.messages![0]!.content.startsWith(primer!.messages![0]!.content)).to.equal(true);
    expect(output.payloads[1].promptTokens).to.be.within(55, 75);
  });
});

describe('llm-bench measure: bad input is one line naming what to fix', function () {
  this.timeout(30_000);
  let fake: FakeOpenAi | undefined;
  afterEach(async () => {
    await fake?.close();
    fake = undefined;
  });

  const expectOneLine = (result: { code: number; stderr: string; stdout: string }, code: number, pattern: RegExp) => {
    expect(result.code, result.stderr).to.equal(code);
    expect(lastLine(result.stderr)).to.match(pattern);
    expect(result.stderr).not.to.match(/\n\s+at /);
  };

  it('an unreachable server: exit 5 (server unavailable), naming --base-url', async () => {
    const port = await closedPort();
    expectOneLine(
      await llmBench(['measure', '--base-url', `http://127.0.0.1:${port}`]),
      5,
      new RegExp(`Cannot reach the engine at http://127\\.0\\.0\\.1:${port} \\(connection refused\\).*--base-url`),
    );
  });

  it('a server that does not stream: exit 3 (measurement failed)', async () => {
    fake = await startFakeOpenAi({ mode: 'normal', models: ['bench-model'] });
    expectOneLine(
      await llmBench(['measure', '--base-url', fake.url, '--warmup', '0', '--iterations', '1']),
      3,
      /did not stream .*"stream": true/,
    );
  });

  it('a model the server does not serve: exit 3, listing what it serves', async () => {
    fake = await startFakeOpenAi({ mode: 'timed', models: ['served-a', 'served-b'] });
    expectOneLine(
      await llmBench(['measure', '--base-url', fake.url, '--model', 'other']),
      3,
      /does not serve "other"; it serves: served-a, served-b\. Pass one of them with --model/,
    );
    expectOneLine(await llmBench(['measure', '--base-url', fake.url]), 3, /serves several models .*pick one with --model/);
  });

  it('zero output tokens: exit 3', async () => {
    fake = await startFakeOpenAi({ mode: 'timed', models: ['bench-model'], timing: { outputTokens: 0 } });
    expectOneLine(await llmBench(['measure', '--base-url', fake.url, '--warmup', '0']), 3, /no output tokens for model "bench-model"/);
  });

  it('an engine error: exit 5 for a 5xx, with the status', async () => {
    fake = await startFakeOpenAi({ mode: 'timed', models: ['bench-model'] });
    // /v1/models answers in timed mode; completions then fail.
    const probe = await llmBench(['measure', '--base-url', fake.url, '--warmup', '0', '--iterations', '1', '--max-tokens', '4']);
    expect(probe.code).to.equal(0);
    fake.mode = 'error';
    expectOneLine(await llmBench(['measure', '--base-url', fake.url, '--model', 'bench-model', '--warmup', '0']), 5, /HTTP 500/);
  });

  it('a malformed key, bad numbers and unknown flags: exit 2 before any measuring', async () => {
    fake = await startFakeOpenAi({ mode: 'timed', models: ['bench-model'] });
    expectOneLine(await llmBench(['measure', '--base-url', fake.url, '--submit', '--api-key', 'sk-123']), 2, /API key is malformed.*bhk_/);
    expectOneLine(await llmBench(['measure', '--base-url', fake.url, '--iterations', 'three']), 2, /--iterations must be a whole number/);
    expectOneLine(await llmBench(['measure', '--base-url', fake.url, '--colour']), 2, /Unknown option '--colour'/);
    expectOneLine(await llmBench(['measure']), 2, /needs --base-url/);
    expectOneLine(
      await llmBench(['measure', '--base-url', fake.url, '--submit', '--api-key', `bhk_${'a'.repeat(40)}`]),
      2,
      /also pass --hf-id/,
    );
    expect(fake.completions()).to.have.length(0);
  });

  it('the installed command (bin/llm-bench.js) exits with the code and one line, no stack trace', async () => {
    const port = await closedPort();
    const child = spawnSync(
      process.execPath,
      [fileURLToPath(new URL('../../bin/llm-bench.js', import.meta.url)), 'measure', '--base-url', `http://127.0.0.1:${port}`],
      { encoding: 'utf8' },
    );
    expect(child.status).to.equal(5);
    expect(child.stderr.trim().split('\n')).to.deep.equal([
      `llm-bench: Cannot reach the engine at http://127.0.0.1:${port} (connection refused): is it running? Check --base-url.`,
    ]);
    expect(child.stdout).to.equal('');
  });

  it('--help per command documents the exit codes', async () => {
    for (const args of [['--help'], ['measure', '--help'], ['submit', '--help']]) {
      const result = await llmBench(args);
      expect(result.code).to.equal(0);
      expect(result.stdout).to.match(
        /Exit codes:[\s\S]*3 {2}measurement failed[\s\S]*4 {2}validation failed[\s\S]*5 {2}server unavailable/,
      );
    }
  });
});
