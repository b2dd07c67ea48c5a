import { expect } from 'chai';
import { spawn, execFileSync, type ChildProcess } from 'node:child_process';
import { chmodSync, existsSync, mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';

/**
 * Boots the real entry point (`npm start`'s command) with no DATABASE_URL, so it runs on an
 * embedded Postgres in a temporary data dir, and checks it answers and stops cleanly.
 */
interface Started {
  child: ChildProcess;
  url: string;
  output: () => string;
}

/** `npm start`'s command without npm in front: the compiled server (built once, in `before`). */
const directly = [process.execPath, 'dist/src/server.js'];

function startServer(dataDir: string, command = directly): Promise<Started> {
  const env: NodeJS.ProcessEnv = { ...process.env, DATA_DIR: dataDir, PORT: '0', LOG_LEVEL: 'warn', NODE_ENV: 'development' };
  delete env.DATABASE_URL;
  const child = spawn(command[0]!, command.slice(1), { env, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`server did not start in time:\n${output}`)), 60_000);
    const onData = (chunk: Buffer) => {
      output += chunk.toString();
      const match = /is running at (http:\/\/localhost:\d+)/.exec(output);
      if (match) {
        clearTimeout(timer);
        resolve({ child, url: match[1]!, output: () => output });
      }
    };
    child.stdout!.on('data', onData);
    child.stderr!.on('data', onData);
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`server exited early with ${code}:\n${output}`));
    });
  });
}

function exitOf(child: ChildProcess): Promise<number | null> {
  return new Promise((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) resolve(child.exitCode);
    else child.once('exit', (code) => resolve(code));
  });
}

/** Postgres processes whose command line names this data dir. */
function postgresProcessesFor(dataDir: string): string[] {
  try {
    return execFileSync('pgrep', ['-af', `postgres -D ${dataDir}`], { encoding: 'utf8' })
      .split('\n')
      .filter(Boolean);
  } catch {
    return []; // pgrep exits 1 when nothing matches
  }
}

describe('npm start on an embedded Postgres', function () {
  this.timeout(120_000);
  let parent: string;
  let dataDir: string;

  before(() => {
    execFileSync('npm', ['run', '--silent', 'build'], { stdio: 'inherit' });
    parent = mkdtempSync(path.join(os.tmpdir(), 'bh-embedded-'));
    // As root the database runs as user postgres, which must be able to enter the dir.
    chmodSync(parent, 0o755);
    dataDir = path.join(parent, 'data');
  });

  after(() => {
    for (const line of postgresProcessesFor(dataDir)) process.kill(Number.parseInt(line, 10), 'SIGKILL');
    rmSync(parent, { recursive: true, force: true });
  });

  it('starts, migrates, seeds, answers /healthz, and stops on SIGTERM leaving no postgres behind', async () => {
    const server = await startServer(dataDir);
    const health = await fetch(`${server.url}/healthz`);
    expect(health.status).to.equal(200);
    expect(await health.json()).to.include({ ok: true, revision: 3 });
    // The read index is built in the background from the seeded runs; reads use the database until then.
    let readIndex: { state: string; runs: number | null } = { state: 'building', runs: null };
    for (
      const deadline = Date.now() + 15_000;
      readIndex.state !== 'ready' && Date.now() < deadline;
      await new Promise((r) => setTimeout(r, 100))
    ) {
      readIndex = ((await (await fetch(`${server.url}/healthz`)).json()) as { readIndex: typeof readIndex }).readIndex;
    }
    expect(readIndex).to.include({ state: 'ready', runs: 300 });
    expect(existsSync(path.join(dataDir, 'db', 'PG_VERSION'))).to.equal(true);
    // The quick start shows a living leaderboard: demo runs were seeded on first start.
    const board = (await (await fetch(`${server.url}/api/leaderboard?limit=1`)).json()) as { total: number; rows: { demo: boolean }[] };
    expect(board.total).to.equal(300);
    expect(board.rows[0]!.demo).to.equal(true);
    expect(postgresProcessesFor(dataDir)).to.have.length(1);

    server.child.kill('SIGTERM');
    expect(await exitOf(server.child)).to.equal(0);
    expect(postgresProcessesFor(dataDir)).to.deep.equal([]);
    expect(existsSync(path.join(dataDir, 'db', 'postmaster.pid'))).to.equal(false);
  });

  it('reuses the data on a second start and stops on SIGINT', async () => {
    const server = await startServer(dataDir);
    const page = await fetch(`${server.url}/`);
    expect(page.status).to.equal(200);
    expect(await page.text()).to.include('LLM Bench');
    // Seeded once: a second start adds nothing.
    const board = (await (await fetch(`${server.url}/api/leaderboard?limit=1`)).json()) as { total: number };
    expect(board.total).to.equal(300);
    server.child.kill('SIGINT');
    expect(await exitOf(server.child)).to.equal(0);
    expect(postgresProcessesFor(dataDir)).to.deep.equal([]);
  });

  it('clears the stale postgres left by a killed process on the next start', async () => {
    const killed = await startServer(dataDir);
    killed.child.kill('SIGKILL');
    await exitOf(killed.child);
    expect(postgresProcessesFor(dataDir), 'the orphaned postgres').to.have.length(1);

    const server = await startServer(dataDir);
    const health = await fetch(`${server.url}/healthz`);
    expect(health.status).to.equal(200);
    server.child.kill('SIGTERM');
    expect(await exitOf(server.child)).to.equal(0);
    expect(postgresProcessesFor(dataDir)).to.deep.equal([]);
  });

  it('stops the server and its database when `npm start` itself gets SIGTERM', async () => {
    const server = await startServer(dataDir, ['npm', 'start']);
    expect((await fetch(`${server.url}/healthz`)).status).to.equal(200);
    server.child.kill('SIGTERM'); // npm exits without passing the signal on
    await exitOf(server.child);
    const deadline = Date.now() + 15_000;
    while (postgresProcessesFor(dataDir).length > 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 200));
    expect(postgresProcessesFor(dataDir)).to.deep.equal([]);
    const stillServing = await fetch(`${server.url}/healthz`).then(
      () => true,
      () => false,
    );
    expect(stillServing).to.equal(false);
  });

  it('drains an in-flight request before stopping', async () => {
    const server = await startServer(dataDir);
    // A slow client: headers sent, body still coming when the signal arrives.
    const inFlight = fetch(`${server.url}/signin`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new ReadableStream({
        async start(controller) {
          controller.enqueue(new TextEncoder().encode('username=nobody'));
          await new Promise((r) => setTimeout(r, 1500));
          controller.enqueue(new TextEncoder().encode('&password=xxxxxxxxxxxx'));
          controller.close();
        },
      }),
      // @ts-expect-error Node's fetch needs this for a streamed body
      duplex: 'half',
    });
    await new Promise((r) => setTimeout(r, 300));
    server.child.kill('SIGTERM');
    const res = await inFlight;
    // No session, so no CSRF token: the app's own 403, proving the request was served to the end.
    expect(res.status).to.equal(403);
    expect(await exitOf(server.child)).to.equal(0);
    expect(postgresProcessesFor(dataDir)).to.deep.equal([]);
  });
});
