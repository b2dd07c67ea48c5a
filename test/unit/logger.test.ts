import { expect } from 'chai';
import { mkdtempSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { loadConfig } from '../../src/config.ts';
import { createLogger, formatLogLine } from '../../src/logger.ts';

const tempDataDir = () => mkdtempSync(path.join(os.tmpdir(), 'bh-logger-'));

/** A destination that keeps what the logger wrote. */
function sink() {
  const written: string[] = [];
  return { written, write: (text: string) => written.push(text) };
}

/** What pino-http logs for a finished request, headers and all. */
const finishedRequest = {
  req: {
    id: 'a1',
    method: 'GET',
    url: '/runs/0f0e?x=1',
    headers: { host: 'localhost:3000', 'user-agent': 'Mozilla/5.0 '.repeat(20), accept: 'text/html,'.repeat(30) },
    remoteAddress: '127.0.0.1',
  },
  res: { statusCode: 200, headers: { 'content-type': 'text/html; charset=utf-8', 'content-security-policy': 'x'.repeat(600) } },
  responseTime: 4.4,
};

describe('logger (src/logger.ts)', () => {
  it('writes JSON in production and short readable lines in development and test, unless LOG_FORMAT says', () => {
    const production = { NODE_ENV: 'production', SESSION_SECRET: 's'.repeat(32), PUBLIC_URL: 'https://bench.example.org' };
    expect(loadConfig({ DATA_DIR: tempDataDir(), ...production }).logFormat).to.equal('json');
    expect(loadConfig({ DATA_DIR: tempDataDir(), NODE_ENV: 'development' }).logFormat).to.equal('line');
    expect(loadConfig({ DATA_DIR: tempDataDir() }).logFormat).to.equal('line');
    expect(loadConfig({ DATA_DIR: tempDataDir(), NODE_ENV: 'test' }).logFormat).to.equal('line');
    expect(loadConfig({ DATA_DIR: tempDataDir(), NODE_ENV: 'development', LOG_FORMAT: 'json' }).logFormat).to.equal('json');
    expect(loadConfig({ DATA_DIR: tempDataDir(), ...production, LOG_FORMAT: 'line' }).logFormat).to.equal('line');
    expect(() => loadConfig({ DATA_DIR: tempDataDir(), LOG_FORMAT: 'pretty' })).to.throw('LOG_FORMAT: must be json or line');
  });

  it('logs a request in development as one line of method, path, status and time, without its headers', () => {
    const out = sink();
    createLogger('info', out, 'line').info(finishedRequest, 'request completed');
    expect(out.written).to.have.length(1);
    expect(out.written[0]).to.match(/^\d{2}:\d{2}:\d{2} GET \/runs\/0f0e\?x=1 200 4ms\n$/);
  });

  it('logs the same request in production as one JSON object with the request', () => {
    const out = sink();
    createLogger('info', out, 'json').info(finishedRequest, 'request completed');
    const entry = JSON.parse(out.written[0]!);
    expect(entry).to.deep.include({ msg: 'request completed', service: 'bench-leaderboard', responseTime: 4.4 });
    expect(entry.req.method).to.equal('GET');
    expect(out.written[0]!.length).to.be.greaterThan(1000);
  });

  it('gives warnings and errors their level, other fields as key=value, and the stack on the lines below', () => {
    const out = sink();
    const logger = createLogger('info', out, 'line');
    logger.warn({ deleted: 3, what: 'images' }, 'Sweep: deleted');
    logger.error({ err: new Error('boom') }, 'start-up failed');
    expect(out.written[0]).to.match(/^\d{2}:\d{2}:\d{2} WARN Sweep: deleted deleted=3 what=images\n$/);
    expect(out.written[1]).to.match(/^\d{2}:\d{2}:\d{2} ERROR start-up failed\n {2}Error: boom\n\s+at /);
  });

  it('masks credentials in both formats, and passes a line that is not JSON through', () => {
    for (const format of ['json', 'line'] as const) {
      const out = sink();
      createLogger('info', out, format).info({ apiKey: 'lb_secret' }, 'key made');
      expect(out.written.join('')).to.include('[Redacted]').and.not.include('lb_secret');
    }
    expect(formatLogLine('not json')).to.equal('not json\n');
  });
});
