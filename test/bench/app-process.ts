/**
 * The app under load as a process of its own (forked by `spawnBenchServer` in harness.ts,
 * compiled as `npm start` runs the server: dist/test/bench/app-process.js):
 * the load generator no longer shares its thread or its memory, so the ceiling, every case
 * and the peak RSS are the app's own, as in production where the clients are elsewhere.
 * It answers the parent's requests over the IPC channel; the parent reads its RSS from /proc.
 */
import { startBenchServer, type BenchServerOptions } from './harness.ts';

/** What the parent asks (`id` pairs the answer with its request). */
export type AppRequest =
  | { id: number; op: 'setCeilingBody'; base64: string }
  | { id: number; op: 'answers' | 'resetAnswers' | 'drained' | 'memory' | 'close' };

export interface AppMemory {
  rss: number;
  heapUsed: number;
  arrayBuffers: number;
}

function memory(): AppMemory {
  global.gc?.();
  const { rss, heapUsed, arrayBuffers } = process.memoryUsage();
  return { rss, heapUsed, arrayBuffers };
}

const options = JSON.parse(process.env.BENCH_APP_OPTIONS ?? '{}') as BenchServerOptions;
// The modules are loaded: what the app adds (its read index above all) is measured from here.
const beforeApp = memory();
const server = await startBenchServer(options);
const send = (message: unknown) => process.send!(message);

process.on('message', (request: AppRequest) => {
  void (async () => {
    switch (request.op) {
      case 'setCeilingBody':
        server.setCeilingBody(Buffer.from(request.base64, 'base64'));
        return undefined;
      case 'answers':
        return server.answers();
      case 'resetAnswers':
        return server.resetAnswers();
      case 'drained':
        return server.drained();
      case 'memory':
        return memory();
      case 'close':
        return server.close();
    }
  })()
    .then(
      (value) => send({ id: request.id, value: value ?? null }),
      (error: unknown) => send({ id: request.id, error: error instanceof Error ? (error.stack ?? error.message) : String(error) }),
    )
    .finally(() => request.op === 'close' && process.disconnect());
});

send({ ready: { url: server.url, ceilingPosition: server.ceilingPosition, beforeApp } });
