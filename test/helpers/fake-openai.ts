/**
 * A fake OpenAI-compatible server (llama-server / vLLM style): a real HTTP server on
 * 127.0.0.1 answering `GET /v1/models` and `POST /v1/chat/completions`. What it answers
 * comes from `answer(prompt)`; how it answers from its mode, which a test may change at any
 * time. Every request is recorded (with its Authorization header), and every connection
 * counted, so a test can show that nothing reached it.
 *
 * Outside the tests (a manual check against `npm start`):
 *   node --import tsx test/helpers/fake-openai.ts 18080
 * serves on 127.0.0.1:18080, answering "B" to everything.
 */
import http from 'node:http';
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
  | 'hang';

export interface FakeOpenAiRequest {
  method: string;
  path: string;
  authorization: string | undefined;
  body: { model?: string; messages?: { role: string; content: string }[]; temperature?: number; max_tokens?: number; stream?: boolean; stop?: string[] } | null;
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
  requests: FakeOpenAiRequest[];
  connections: number;
  /** The most completions being answered at once (how many items a client sends in parallel). */
  maxInFlight: number;
  /** Completions only. */
  completions(): FakeOpenAiRequest[];
  close(): Promise<void>;
}

export async function startFakeOpenAi(options: Partial<Pick<FakeOpenAi, 'mode' | 'slowMs' | 'models' | 'answer' | 'port'>> = {}): Promise<FakeOpenAi> {
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
    requests: [] as FakeOpenAiRequest[],
    connections: 0,
    maxInFlight: 0,
    completions() {
      return fake.requests.filter((request) => request.path.endsWith('/chat/completions'));
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

  await new Promise<void>((resolve) => server.listen(options.port ?? 0, '127.0.0.1', resolve));
  fake.port = (server.address() as AddressInfo).port;
  fake.url = `http://127.0.0.1:${fake.port}`;
  return fake;
}

function json(res: http.ServerResponse, status: number, body: unknown) {
  res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
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

// Run directly: a fake server on the given port for a manual end-to-end check.
if (process.argv[1]?.endsWith('test/helpers/fake-openai.ts')) {
  const fake = await startFakeOpenAi({ port: Number(process.argv[2] ?? 18080), models: ['demo-model'], answer: () => 'B' });
  process.stdout.write(`fake OpenAI-compatible server at ${fake.url} (answers "B")\n`);
}
