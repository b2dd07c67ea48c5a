import { chmodSync, mkdtempSync, writeFileSync } from 'node:fs';
import type { Server } from 'node:http';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import type { TestContext } from './app.ts';
import { run } from '../../src/cli/llm-bench/commands.ts';
import type { DetectedHardware } from '../../src/cli/llm-bench/hardware.ts';

export interface CliRun {
  code: number;
  stdout: string;
  stderr: string;
}

const EMPTY_PATH = mkdtempSync(path.join(os.tmpdir(), 'llm-bench-no-tools-'));

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
    // No real power tool or counter is ever read: the tools are looked up on an empty PATH
    // unless the test gives its own (fake scripts), and the powercap directory does not exist.
    env: {
      LLM_BENCH_CONFIG: '/nonexistent/llm-bench.json',
      LLM_BENCH_URL: `http://127.0.0.1:${await closedPort()}`,
      PATH: EMPTY_PATH,
      LLM_BENCH_POWERCAP_DIR: '/nonexistent/powercap',
      ...env,
    },
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

/**
 * A directory holding a fake `nvidia-smi` (a shell script) that reads two cards drawing 250
 * and 150 W with 20000 and 18000 MiB used; put it on PATH so llm-bench runs it.
 */
export function fakeNvidiaSmiDir(): string {
  const bin = mkdtempSync(path.join(os.tmpdir(), 'llm-bench-fake-smi-'));
  writeFileSync(
    path.join(bin, 'nvidia-smi'),
    `#!/bin/sh\ncase "$*" in *power.draw*) printf '0, 250.00, 20000\\n1, 150.00, 18000\\n';; *) exit 9;; esac\n`,
  );
  chmodSync(path.join(bin, 'nvidia-smi'), 0o755);
  return bin;
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
