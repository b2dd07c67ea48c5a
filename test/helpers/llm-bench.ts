import type { Server } from 'node:http';
import net from 'node:net';
import type { TestContext } from './app.ts';
import { run } from '../../src/cli/llm-bench/commands.ts';
import type { DetectedHardware } from '../../src/cli/llm-bench/hardware.ts';

export interface CliRun {
  code: number;
  stdout: string;
  stderr: string;
}

/** The detected machine in tests: a CPU-only box named as /proc/cpuinfo spells it. */
export const TEST_MACHINE: DetectedHardware = {
  hardware: { hwClass: 'CPU_ONLY', cpu: 'AMD Ryzen 9 7950X 16-Core Processor', ramGb: 64, os: 'Debian GNU/Linux 12 (bookworm)' },
  source: '/proc/cpuinfo',
  backend: 'cpu',
};

/**
 * Runs `llm-bench <args>` in-process (as the bin does, minus process.exit), with its own
 * environment (no config file, no key unless given) and the test machine as hardware.
 */
export async function llmBench(args: string[], env: Record<string, string> = {}, onStderr?: (text: string) => void): Promise<CliRun> {
  let stdout = '';
  let stderr = '';
  const code = await run(args, {
    stdout: (text) => (stdout += text),
    stderr: (text) => {
      stderr += text;
      onStderr?.(text);
    },
    env: { LLM_BENCH_CONFIG: '/nonexistent/llm-bench.json', LLM_BENCH_URL: `http://127.0.0.1:${await closedPort()}`, ...env },
    detectHardware: async () => TEST_MACHINE,
  });
  return { code, stdout, stderr };
}

/** The last non-empty line of stderr (where a failure's one-line message goes). */
export const lastLine = (text: string) => text.trim().split('\n').at(-1) ?? '';

/** A loopback port nothing listens on (fetch refuses low 'bad ports' such as 9 outright). */
export async function closedPort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as net.AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

/** The test app listening on a loopback port for the file's tests (opened before, closed after): `url()` is its address. */
export function useLoopbackApp(ctx: TestContext): { url: () => string } {
  let server: Server;
  let url = '';
  before(async () => {
    server = ctx.app.listen(0, '127.0.0.1');
    await new Promise((resolve) => server.once('listening', resolve));
    url = `http://127.0.0.1:${(server.address() as net.AddressInfo).port}`;
  });
  after(() => new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve())));
  return { url: () => url };
}
