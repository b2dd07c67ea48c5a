import { spawnSync } from 'node:child_process';
import { expect } from 'chai';
import { mkdtempSync, readFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { ConfigError, loadConfig } from '../../src/config.ts';

const tempDataDir = () => mkdtempSync(path.join(os.tmpdir(), 'bh-config-'));

function configError(env: Record<string, string>): string {
  try {
    loadConfig({ DATA_DIR: tempDataDir(), ...env });
  } catch (error) {
    expect(error).to.be.instanceOf(ConfigError);
    return (error as Error).message;
  }
  throw new Error('expected a ConfigError');
}

describe('config', () => {
  it('defaults to port 3000, revision 3, online hub and a localhost public URL', () => {
    const config = loadConfig({ DATA_DIR: tempDataDir() });
    expect(config.port).to.equal(3000);
    expect(config.revision).to.equal(3);
    expect(config.hubMode).to.equal('online');
    expect(config.hfEndpoint).to.equal('https://huggingface.co');
    expect(config.publicUrl).to.equal('http://localhost:3000');
    expect(config.publicUrlConfigured).to.equal(false);
    expect(config.databaseUrl).to.equal(undefined);
    expect(config.trustProxy).to.equal(false);
    expect(config.admin).to.equal(undefined);
  });

  it('reads every variable it documents', () => {
    const config = loadConfig({
      DATA_DIR: tempDataDir(),
      PORT: '8080',
      DATABASE_URL: 'postgres://u:p@db.internal:5432/bench',
      API_REVISION: '1',
      PUBLIC_URL: 'https://bench.example.org/',
      HF_ENDPOINT: 'http://127.0.0.1:9999/',
      HF_TOKEN: 'hf_abc',
      HUB_MODE: 'offline',
      ADMIN_USERNAME: 'root_admin',
      ADMIN_PASSWORD: 'a long admin password',
      LOG_LEVEL: 'warn',
      TRUST_PROXY: '2',
      EXECUTE_WORKERS: '3',
      EXECUTE_ALLOW_HOSTS: ' LLM.internal:8080, 10.0.0.5 ,',
      JUDGE_BASE_URL: 'https://judge.example/v1/',
      JUDGE_MODEL: 'judge-70b',
      JUDGE_API_KEY: 'jk',
    });
    expect(config.execute).to.deep.equal({
      workers: 3,
      allowHosts: ['llm.internal:8080', '10.0.0.5'],
      judge: { baseUrl: 'https://judge.example/v1', model: 'judge-70b', apiKey: 'jk' },
    });
    expect(config).to.include({
      port: 8080,
      databaseUrl: 'postgres://u:p@db.internal:5432/bench',
      revision: 1,
      publicUrl: 'https://bench.example.org',
      publicUrlConfigured: true,
      hfEndpoint: 'http://127.0.0.1:9999',
      hfToken: 'hf_abc',
      hubMode: 'offline',
      logLevel: 'warn',
      trustProxy: 2,
    });
    expect(config.admin).to.deep.equal({ username: 'root_admin', password: 'a long admin password' });
  });

  it('treats an empty variable as unset', () => {
    expect(loadConfig({ DATA_DIR: tempDataDir(), PORT: '', API_REVISION: '' })).to.include({ port: 3000, revision: 3 });
  });

  it('keeps run documents in a 4 GB file and answers in a 1 GB one in the temporary directory by default, and reads where and how large', () => {
    expect(loadConfig({ DATA_DIR: tempDataDir() }).readIndex).to.include({
      documentFileBytes: 4096 * 2 ** 20,
      answerFileBytes: 1024 * 2 ** 20,
      documentDirectory: undefined,
    });
    const withoutFiles = { DATA_DIR: tempDataDir(), READ_INDEX_DOCUMENT_FILE_MB: '0', READ_INDEX_DOCUMENT_DIR: '/nonexistent/bench' };
    expect(
      loadConfig({ ...withoutFiles, READ_INDEX_ANSWER_FILE_MB: '0' }).readIndex,
      'a directory that is not used is not checked',
    ).to.include({ documentFileBytes: 0, answerFileBytes: 0, documentDirectory: '/nonexistent/bench' });
    expect(loadConfig({ ...withoutFiles, READ_INDEX_ANSWER_CACHE_MB: '0' }).readIndex, 'nor with no answers kept (so no file)').to.include({
      answerCacheBytes: 0,
      answerFileBytes: 0,
    });
    expect(() => loadConfig(withoutFiles), 'the answer file alone goes there too').to.throw(/^READ_INDEX_DOCUMENT_DIR: /);
    const directory = tempDataDir();
    expect(loadConfig({ DATA_DIR: tempDataDir(), READ_INDEX_DOCUMENT_DIR: directory }).readIndex.documentDirectory).to.equal(directory);
  });

  it('runs one execution worker, allows no private hosts and has no judge by default', () => {
    expect(loadConfig({ DATA_DIR: tempDataDir() }).execute).to.deep.equal({ workers: 1, allowHosts: [], judge: undefined });
  });

  const badValues: [Record<string, string>, RegExp][] = [
    [{ PORT: 'eighty' }, /^PORT: /],
    [{ PORT: '70000' }, /^PORT: /],
    [{ API_REVISION: '4' }, /^API_REVISION: must be 1, 2 or 3$/],
    [{ DATABASE_URL: 'mysql://x' }, /^DATABASE_URL: must be a postgres:\/\/ URL$/],
    [{ PUBLIC_URL: 'not a url' }, /^PUBLIC_URL: must be an http\(s\) URL$/],
    [{ HF_ENDPOINT: 'ftp://hub' }, /^HF_ENDPOINT: must be an http\(s\) URL$/],
    [{ HUB_MODE: 'sometimes' }, /^HUB_MODE: must be online or offline$/],
    [{ LOG_LEVEL: 'loud' }, /^LOG_LEVEL: /],
    [{ TRUST_PROXY: 'yes please!' }, /^TRUST_PROXY: /],
    [{ SESSION_SECRET: 'short' }, /^SESSION_SECRET: must be at least 32 characters$/],
    [{ NODE_ENV: 'production' }, /^SESSION_SECRET: required when NODE_ENV=production$/],
    [{ NODE_ENV: 'production', SESSION_SECRET: 's'.repeat(40) }, /^PUBLIC_URL: required when NODE_ENV=production$/],
    [{ ADMIN_USERNAME: 'admin' }, /^ADMIN_PASSWORD: /],
    [{ ADMIN_PASSWORD: 'a long admin password' }, /^ADMIN_USERNAME: /],
    [{ EXECUTE_WORKERS: '-1' }, /^EXECUTE_WORKERS: /],
    [{ EXECUTE_WORKERS: 'many' }, /^EXECUTE_WORKERS: must be a whole number$/],
    [{ JUDGE_BASE_URL: 'file:///judge' }, /^JUDGE_BASE_URL: must be an http\(s\) URL$/],
    [{ JUDGE_BASE_URL: 'https://judge.example' }, /^JUDGE_MODEL: JUDGE_BASE_URL and JUDGE_MODEL go together$/],
    [{ JUDGE_MODEL: 'judge-70b' }, /^JUDGE_BASE_URL: /],
    [{ READ_INDEX_DOCUMENT_FILE_MB: '40000' }, /^READ_INDEX_DOCUMENT_FILE_MB: must be at most 32768$/],
    [{ READ_INDEX_DOCUMENT_FILE_MB: 'lots' }, /^READ_INDEX_DOCUMENT_FILE_MB: must be a whole number$/],
    [{ READ_INDEX_ANSWER_CACHE_MB: '5000' }, /^READ_INDEX_ANSWER_CACHE_MB: must be at most 4096$/],
    [{ READ_INDEX_ANSWER_FILE_MB: '40000' }, /^READ_INDEX_ANSWER_FILE_MB: must be at most 32768$/],
    [{ READ_INDEX_ANSWER_FILE_MB: '-1' }, /^READ_INDEX_ANSWER_FILE_MB: must be 0/],
    [
      { READ_INDEX_DOCUMENT_DIR: '/nonexistent/bench' },
      /^READ_INDEX_DOCUMENT_DIR: \/nonexistent\/bench is not a directory this process can write to$/,
    ],
    [{ READ_INDEX_DOCUMENT_DIR: '/etc/hostname' }, /^READ_INDEX_DOCUMENT_DIR: \/etc\/hostname is not a directory/],
  ];
  for (const [env, message] of badValues) {
    it(`rejects ${JSON.stringify(env)} with a one-line error naming the variable`, () => {
      const text = configError(env);
      expect(text).to.match(message);
      expect(text).not.to.include('\n');
    });
  }

  it('generates the session secret once outside production and keeps it in the data dir', () => {
    const dataDir = tempDataDir();
    const first = loadConfig({ DATA_DIR: dataDir }).sessionSecret;
    const second = loadConfig({ DATA_DIR: dataDir }).sessionSecret;
    expect(first).to.have.length.of.at.least(32);
    expect(second).to.equal(first);
    expect(readFileSync(path.join(dataDir, 'session-secret'), 'utf8').trim()).to.equal(first);
    expect(loadConfig({ DATA_DIR: tempDataDir() }).sessionSecret).not.to.equal(first);
  });

  it('stops npm start in production without PUBLIC_URL with a one-line error', () => {
    const result = spawnSync(process.execPath, ['--import', 'tsx', 'src/server.ts'], {
      encoding: 'utf8',
      env: { ...process.env, NODE_ENV: 'production', SESSION_SECRET: 's'.repeat(40), PUBLIC_URL: '', DATA_DIR: tempDataDir() },
    });
    expect(result.status).to.equal(1);
    expect(result.stderr.trim()).to.equal('Configuration error: PUBLIC_URL: required when NODE_ENV=production');
  });

  it('uses SESSION_SECRET as given in production', () => {
    const secret = 's'.repeat(40);
    expect(
      loadConfig({ DATA_DIR: tempDataDir(), NODE_ENV: 'production', SESSION_SECRET: secret, PUBLIC_URL: 'https://bench.example' })
        .sessionSecret,
    ).to.equal(secret);
  });

  it('accepts TRUST_PROXY as a boolean, a hop count or a list of subnets', () => {
    expect(loadConfig({ DATA_DIR: tempDataDir(), TRUST_PROXY: 'true' }).trustProxy).to.equal(true);
    expect(loadConfig({ DATA_DIR: tempDataDir(), TRUST_PROXY: 'loopback, 10.0.0.0/8' }).trustProxy).to.equal('loopback, 10.0.0.0/8');
  });
});
