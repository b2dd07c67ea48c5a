/**
 * A fake OpenAI-compatible server (llama-server / vLLM style): a real HTTP server on
 * 127.0.0.1 answering `GET /v1/models` and `POST /v1/chat/completions`. What it answers
 * comes from `answer(prompt)`; how it answers from its mode, which a test may change at any
 * time. Every request is recorded (with its Authorization header), and every connection
 * counted, so a test can show that nothing reached it.
 *
 * Outside the tests (a manual check against `npm start`):
 *   node --import tsx test/helpers/fake-openai.ts 18080
 * serves on 127.0.0.1:18080, answering "B" to everything;
 *   node --import tsx test/helpers/fake-openai.ts 18080 llama.cpp
 * plays a streaming llama.cpp server (TTFT 80 ms, 120 tok/s) for `llm-bench measure`.
 */
import http from 'node:http';
import { performance } from 'node:perf_hooks';
import type { AddressInfo } from 'node:net';

export type FakeOpenAiMode =
  /** JSON chat completions. */
  | 'normal'
  /** Server-sent events even though the client asked for stream: false. */
  | 'stream'
  /** Answers after `slowMs`. */
  | 'slow'
  /** HTTP 500 to every completion. */
  | 'error'
  /** 302 to `redirectTo` for every request. */
  | 'redirect'
  /** The answer preceded by a <think> block that mentions a wrong answer. */
  | 'think'
  /** Never answers (until the client gives up). */
  | 'hang'
  /**
   * A streaming engine with set timings (`timing`): asked to stream, it sends the first
   * token after `ttftMs` and then tokens at `tokensPerSecond`, as the engine in `engine`
   * would (Ollama's native API, llama.cpp's `timings`, OpenAI-style usage).
   */
  | 'timed';

/** How a `timed` fake streams. */
export interface FakeTiming {
  /** Time to the first generated token, ms (plus prompt tokens / prefillTokensPerSecond when that is set). */
  ttftMs: number;
  prefillTokensPerSecond?: number;
  tokensPerSecond: number;
  /** Tokens per streamed event (a server that batches its deltas). */
  tokensPerChunk: number;
  /** Output length; the request's max tokens when lower. */
  outputTokens: number;
  /** 'end': usage in a final event (OpenAI style, when asked); 'none': never. */
  usage: 'end' | 'none';
  /** Answers 400 to a request carrying stream_options or ignore_eos. */
  refuseExtras: boolean;
}

/** Which engine a `timed` fake plays: its info endpoints and extras. */
export type FakeEngine = 'generic' | 'llama.cpp' | 'vllm' | 'ollama';

export interface FakeOpenAiRequest {
  method: string;
  path: string;
  authorization: string | undefined;
  body: {
    model?: string;
    messages?: { role: string; content: string }[];
    temperature?: number;
    max_tokens?: number;
    stream?: boolean;
    stop?: string[];
    stream_options?: { include_usage?: boolean };
    ignore_eos?: boolean;
    options?: { num_predict?: number };
  } | null;
}

export interface FakeOpenAi {
  /** e.g. http://127.0.0.1:43123 (no trailing slash, no /v1). */
  url: string;
  host: string;
  port: number;
  mode: FakeOpenAiMode;
  slowMs: number;
  redirectTo: string;
  /** Served model names (`GET /v1/models`). */
  models: string[];
  /** The answer text to a prompt. */
  answer: (prompt: string) => string;
  timing: FakeTiming;
  engine: FakeEngine;
  requests: FakeOpenAiRequest[];
  connections: number;
  /** The most completions being answered at once (how many items a client sends in parallel). */
  maxInFlight: number;
  /** Completions only (Ollama's /api/chat too). */
  completions(): FakeOpenAiRequest[];
  close(): Promise<void>;
}

export const DEFAULT_TIMING: FakeTiming = {
  ttftMs: 50,
  tokensPerSecond: 200,
  tokensPerChunk: 1,
  outputTokens: 32,
  usage: 'end',
  refuseExtras: false,
};

export async function startFakeOpenAi(
  options: Partial<Pick<FakeOpenAi, 'mode' | 'slowMs' | 'models' | 'answer' | 'port' | 'engine'>> & { timing?: Partial<FakeTiming> } = {},
): Promise<FakeOpenAi> {
  const sockets = new Set<import('node:net').Socket>();
  let inFlight = 0;
  const fake = {
    url: '',
    host: '127.0.0.1',
    port: 0,
    mode: options.mode ?? 'normal',
    slowMs: options.slowMs ?? 300,
    redirectTo: 'http://127.0.0.1:9/',
    models: options.models ?? ['fake-model'],
    answer: options.answer ?? (() => 'I do not know'),
    timing: { ...DEFAULT_TIMING, ...options.timing },
    engine: options.engine ?? 'generic',
    requests: [] as FakeOpenAiRequest[],
    connections: 0,
    maxInFlight: 0,
    completions() {
      return fake.requests.filter((request) => request.path.endsWith('/chat/completions') || request.path === '/api/chat');
    },
    close: async () => {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  } as FakeOpenAi;

  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      let body: FakeOpenAiRequest['body'] = null;
      try {
        body = chunks.length ? JSON.parse(Buffer.concat(chunks).toString('utf8')) : null;
      } catch {
        body = null;
      }
      const path = req.url ?? '/';
      fake.requests.push({ method: req.method ?? 'GET', path, authorization: req.headers.authorization, body });
      inFlight += 1;
      fake.maxInFlight = Math.max(fake.maxInFlight, inFlight);
      res.once('close', () => (inFlight -= 1));
      void respond(req.method ?? 'GET', path, body, res);
    });
  });
  server.on('connection', (socket) => {
    fake.connections += 1;
    sockets.add(socket);
    socket.once('close', () => sockets.delete(socket));
  });

  async function respond(method: string, path: string, body: FakeOpenAiRequest['body'], res: http.ServerResponse) {
    const mode = fake.mode;
    if (mode === 'redirect') {
      res.writeHead(302, { location: fake.redirectTo }).end();
      return;
    }
    if (mode === 'hang') return;
    if (mode === 'slow') await new Promise((resolve) => setTimeout(resolve, fake.slowMs));
    if (mode === 'timed' && (await timedEngine(method, path, body, res))) return;
    if (method === 'GET' && /\/v1\/models$/.test(path)) {
      json(res, 200, { object: 'list', data: fake.models.map((id) => ({ id, object: 'model', owned_by: 'fake' })) });
      return;
    }
    if (method !== 'POST' || !/\/v1\/chat\/completions$/.test(path)) {
      json(res, 404, { error: { message: 'not found' } });
      return;
    }
    if (mode === 'error') {
      json(res, 500, { error: { message: 'internal error: secret internal detail' } });
      return;
    }
    const prompt = body?.messages?.at(-1)?.content ?? '';
    let text = fake.answer(prompt);
    if (mode === 'think') text = `<think>Maybe the answer is 999. Final answer: 999</think>${text}`;
    if (mode === 'stream') {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      // Split the answer into a few deltas, as a streaming server would.
      const pieces = text.match(/.{1,5}/gs) ?? [''];
      for (const piece of pieces) res.write(`data: ${JSON.stringify({ choices: [{ index: 0, delta: { content: piece } }] })}\n\n`);
      res.end('data: [DONE]\n\n');
      return;
    }
    json(res, 200, {
      id: 'chatcmpl-fake',
      object: 'chat.completion',
      model: body?.model,
      choices: [{ index: 0, message: { role: 'assistant', content: text }, finish_reason: 'stop' }],
      usage: { prompt_tokens: prompt.length, completion_tokens: text.length, total_tokens: prompt.length + text.length },
    });
  }

  /** The `timed` engine's endpoints; false when the path is the plain fake's to answer. */
  async function timedEngine(method: string, path: string, body: FakeOpenAiRequest['body'], res: http.ServerResponse): Promise<boolean> {
    const engine = fake.engine;
    if (method === 'GET') {
      if (engine === 'ollama' && path === '/api/version') return answered(res, 200, { version: '0.5.7' });
      if (engine === 'ollama' && path === '/api/tags')
        return answered(res, 200, { models: fake.models.map((name) => ({ name, model: name })) });
      if (engine === 'llama.cpp' && path === '/props') {
        return answered(res, 200, {
          build_info: 'b4500-1a2b3c4d',
          model_path: `/models/${fake.models[0]}-Q4_K_M.gguf`,
          default_generation_settings: { n_ctx: 8192 },
        });
      }
      if (engine === 'vllm' && path === '/version') return answered(res, 200, { version: '0.6.3' });
      if (path === '/v1/models' && engine !== 'ollama') {
        const owner = { generic: 'fake', 'llama.cpp': 'llamacpp', vllm: 'vllm', ollama: 'library' }[engine];
        return answered(res, 200, { object: 'list', data: fake.models.map((id) => ({ id, object: 'model', owned_by: owner })) });
      }
      return answered(res, 404, { error: { message: 'not found' } });
    }
    if (method === 'POST' && engine === 'ollama' && path === '/api/show')
      return answered(res, 200, { details: { quantization_level: 'Q4_0' } });
    const ollamaChat = engine === 'ollama' && path === '/api/chat';
    if (method !== 'POST' || !(ollamaChat || /\/v1\/chat\/completions$/.test(path))) return false;
    if (!body?.stream) return false;
    if (body.model && !fake.models.includes(body.model))
      return answered(res, 404, { error: { message: `model '${body.model}' not found` } });
    const timing = fake.timing;
    if (timing.refuseExtras && (body.stream_options || body.ignore_eos !== undefined))
      return answered(res, 400, { error: { message: 'unknown field: stream_options' } });
    await streamTimed(res, body, ollamaChat ? 'ollama' : engine === 'llama.cpp' ? 'llama.cpp' : 'openai');
    return true;
  }

  /** Token j leaves at ttft + j / rate; an event carries `tokensPerChunk` tokens and leaves with its last one. */
  async function streamTimed(
    res: http.ServerResponse,
    body: NonNullable<FakeOpenAiRequest['body']>,
    style: 'openai' | 'llama.cpp' | 'ollama',
  ) {
    const timing = fake.timing;
    const started = Date.now();
    // What the engine reports is what it did (as a real engine times itself): the first and last token's send times.
    const startedAt = performance.now();
    let firstSentAt = startedAt;
    let lastSentAt = startedAt;
    const prompt = body.messages?.at(-1)?.content ?? '';
    const promptTokens = prompt.split(/\s+/).filter(Boolean).length;
    const maxTokens = (style === 'ollama' ? body.options?.num_predict : body.max_tokens) ?? timing.outputTokens;
    const tokens = Math.min(maxTokens, timing.outputTokens);
    const ttftMs = timing.ttftMs + (timing.prefillTokensPerSecond ? (promptTokens / timing.prefillTokensPerSecond) * 1000 : 0);
    const decodeMs = (tokens / timing.tokensPerSecond) * 1000;
    const until = (ms: number) => new Promise((resolve) => setTimeout(resolve, Math.max(0, started + ms - Date.now())));
    const send = (event: unknown) => res.write(style === 'ollama' ? `${JSON.stringify(event)}\n` : `data: ${JSON.stringify(event)}\n\n`);
    res.writeHead(200, { 'content-type': style === 'ollama' ? 'application/x-ndjson' : 'text/event-stream' });
    for (let first = 0; first < tokens; first += timing.tokensPerChunk) {
      const count = Math.min(timing.tokensPerChunk, tokens - first);
      await until(ttftMs + ((first + count - 1) / timing.tokensPerSecond) * 1000);
      if (res.destroyed) return;
      const text = ' tok'.repeat(count);
      lastSentAt = performance.now();
      if (first === 0) firstSentAt = lastSentAt;
      send(
        style === 'ollama'
          ? { model: body.model, message: { role: 'assistant', content: text }, done: false }
          : { choices: [{ index: 0, delta: { content: text } }] },
      );
    }
    // Prompt time: request to first token. Decode time: the tokens' own pace (the first event to
    // the last covers the tokens after the first event), the nominal one when one event was sent.
    const promptMs = firstSentAt - startedAt;
    const firstChunk = Math.min(timing.tokensPerChunk, tokens);
    const predictedMs = tokens > firstChunk ? ((lastSentAt - firstSentAt) * tokens) / (tokens - firstChunk) : decodeMs;
    if (style === 'ollama') {
      const ns = (ms: number) => Math.round(ms * 1e6);
      res.end(
        `${JSON.stringify({
          model: body.model,
          created_at: new Date().toISOString(),
          message: { role: 'assistant', content: '' },
          done_reason: 'length',
          done: true,
          total_duration: ns(performance.now() - startedAt),
          load_duration: ns(1),
          prompt_eval_count: promptTokens,
          prompt_eval_duration: ns(promptMs),
          eval_count: tokens,
          eval_duration: ns(predictedMs),
        })}\n`,
      );
      return;
    }
    const usage = { prompt_tokens: promptTokens, completion_tokens: tokens, total_tokens: promptTokens + tokens };
    // llama.cpp's `timings` object, with every key the server sends.
    const timings =
      style === 'llama.cpp'
        ? {
            timings: {
              cache_n: 0,
              prompt_n: promptTokens,
              prompt_ms: promptMs,
              prompt_per_token_ms: promptMs / Math.max(1, promptTokens),
              prompt_per_second: (promptTokens / promptMs) * 1000,
              predicted_n: tokens,
              predicted_ms: predictedMs,
              predicted_per_token_ms: predictedMs / tokens,
              predicted_per_second: (tokens / predictedMs) * 1000,
            },
          }
        : {};
    send({ choices: [{ index: 0, delta: {}, finish_reason: 'length' }], ...timings });
    if (timing.usage === 'end' && body.stream_options?.include_usage) send({ choices: [], usage });
    res.end('data: [DONE]\n\n');
  }

  await new Promise<void>((resolve) => server.listen(options.port ?? 0, '127.0.0.1', resolve));
  fake.port = (server.address() as AddressInfo).port;
  fake.url = `http://127.0.0.1:${fake.port}`;
  return fake;
}

function json(res: http.ServerResponse, status: number, body: unknown): void {
  res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
}

/** json(), for a handler that answers true when it has answered the request. */
function answered(res: http.ServerResponse, status: number, body: unknown): true {
  json(res, status, body);
  return true;
}

/** Answers the test suites' questions (test/helpers/quality.ts): arithmetic right, colours by a table. */
export function arithmeticAnswers(overrides: Record<string, string> = {}): (prompt: string) => string {
  return (prompt) => {
    for (const [needle, answer] of Object.entries(overrides)) if (prompt.includes(needle)) return answer;
    const sum = /What is (\d+) ([-+x/]) (\d+)\?/.exec(prompt);
    if (sum) {
      const [a, op, b] = [Number(sum[1]), sum[2], Number(sum[3])];
      const value = op === '+' ? a + b : op === '-' ? a - b : op === 'x' ? a * b : a / b;
      return `Let me compute. The answer is ${value}.`;
    }
    if (prompt.includes('sky')) return 'B';
    if (prompt.includes('grass')) return 'A';
    return 'I do not know';
  };
}

// Run directly: a fake server on the given port for a manual end-to-end check; with an
// engine name (llama.cpp, vllm, ollama, generic) a timed streaming engine for llm-bench.
if (process.argv[1]?.endsWith('test/helpers/fake-openai.ts')) {
  const engine = process.argv[3] as FakeEngine | undefined;
  const port = Number(process.argv[2] ?? 18080);
  const fake = engine
    ? await startFakeOpenAi({
        port,
        mode: 'timed',
        engine,
        models: ['demo-model'],
        timing: { ttftMs: 80, tokensPerSecond: 120, outputTokens: 256 },
      })
    : await startFakeOpenAi({ port, models: ['demo-model'], answer: () => 'B' });
  process.stdout.write(
    engine
      ? `fake ${engine} engine at ${fake.url} (TTFT 80 ms, 120 tok/s)\n`
      : `fake OpenAI-compatible server at ${fake.url} (answers "B")\n`,
  );
}
