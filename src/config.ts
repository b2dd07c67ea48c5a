import { randomBytes } from 'node:crypto';
import { accessSync, constants as fsConstants, mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { z } from 'zod';
import { parseAllowHosts } from './lib/target-address.ts';
import { defaultLogFormat, type LogFormat } from './logger.ts';
import type { RevisionNumber } from './revisions.ts';

/** Thrown for a bad environment; its message is one line naming the variable. */
export class ConfigError extends Error {
  override name = 'ConfigError';
}

const emptyToUndefined = (value: unknown) => (value === '' ? undefined : value);
const optionalString = z.preprocess(emptyToUndefined, z.string().optional());
const httpUrl = z.url({ protocol: /^https?$/, error: 'must be an http(s) URL' });
/** A cache's size in whole MB; 0 keeps nothing. */
const cacheMegabytes = (fallback: number, max = 4096) =>
  z.preprocess(
    emptyToUndefined,
    z.coerce
      .number({ error: 'must be a whole number' })
      .int('must be a whole number')
      .min(0, 'must be 0 (no cache) or more')
      .max(max, `must be at most ${max}`)
      .default(fallback),
  );

const envSchema = z.object({
  NODE_ENV: z.preprocess(emptyToUndefined, z.enum(['development', 'production', 'test']).default('development')),
  PORT: z.preprocess(emptyToUndefined, z.coerce.number().int().min(0).max(65535).default(3000)),
  DATABASE_URL: z.preprocess(
    emptyToUndefined,
    z
      .string()
      .regex(/^postgres(ql)?:\/\//, 'must be a postgres:// URL')
      .optional(),
  ),
  API_REVISION: z.preprocess(
    emptyToUndefined,
    z
      .enum(['1', '2', '3'], { error: 'must be 1, 2 or 3' })
      .default('3')
      .transform((v) => Number(v) as RevisionNumber),
  ),
  PUBLIC_URL: z.preprocess(emptyToUndefined, httpUrl.optional()),
  SESSION_SECRET: z.preprocess(emptyToUndefined, z.string().min(32, 'must be at least 32 characters').optional()),
  HF_ENDPOINT: z.preprocess(emptyToUndefined, httpUrl.default('https://huggingface.co')),
  HF_TOKEN: optionalString,
  HUB_MODE: z.preprocess(emptyToUndefined, z.enum(['online', 'offline'], { error: 'must be online or offline' }).default('online')),
  ADMIN_USERNAME: optionalString,
  ADMIN_PASSWORD: optionalString,
  LOG_LEVEL: z.preprocess(emptyToUndefined, z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info')),
  LOG_FORMAT: z.preprocess(emptyToUndefined, z.enum(['json', 'line'], { error: 'must be json or line' }).optional()),
  TRUST_PROXY: z.preprocess(emptyToUndefined, z.string().default('false')),
  READ_LIMIT_PER_MINUTE: z.preprocess(
    emptyToUndefined,
    z.coerce.number({ error: 'must be a whole number' }).int('must be a whole number').min(0, 'must be 0 (off) or more').default(600),
  ),
  EXPORT_LIMIT_PER_HOUR: z.preprocess(
    emptyToUndefined,
    z.coerce.number({ error: 'must be a whole number' }).int('must be a whole number').min(0, 'must be 0 (off) or more').default(60),
  ),
  ANONYMOUS_WRITE_LIMIT_PER_MINUTE: z.preprocess(
    emptyToUndefined,
    z.coerce.number({ error: 'must be a whole number' }).int('must be a whole number').min(0, 'must be 0 (off) or more').default(60),
  ),
  DATA_DIR: z.preprocess(emptyToUndefined, z.string().default('./data')),
  EXECUTE_WORKERS: z.preprocess(
    emptyToUndefined,
    z.coerce
      .number({ error: 'must be a whole number' })
      .int('must be a whole number')
      .min(0, 'must be 0 (no workers) or more')
      .max(32, 'must be at most 32')
      .default(1),
  ),
  EXECUTE_ALLOW_HOSTS: optionalString,
  PEER_REJUDGE_INTERVAL_MS: z.preprocess(
    emptyToUndefined,
    z.coerce.number({ error: 'must be a whole number' }).int('must be a whole number').min(0, 'must be 0 (off) or more').default(3000),
  ),
  READ_INDEX: z.preprocess(emptyToUndefined, z.enum(['on', 'off'], { error: 'must be on or off' }).default('on')),
  READ_INDEX_FRESHNESS: z.preprocess(
    emptyToUndefined,
    z.enum(['notify', 'strict'], { error: 'must be notify or strict' }).default('notify'),
  ),
  READ_INDEX_DOCUMENTS: z.preprocess(
    emptyToUndefined,
    z.coerce
      .number({ error: 'must be a whole number' })
      .int('must be a whole number')
      .min(0, 'must be 0 (no cache) or more')
      .default(20000),
  ),
  // Of the two caches, memory does more as kept answers: a 100 KB page is kept as ~12 KB of
  // brotli and spares the whole request, where a page's documents (~110 KB) spare its one
  // Postgres round trip only when every one of them is cached (issue 37's bench: the filter
  // mix's hit rate 64% with 16 + 24 MB, 83-86% with 8 + 44 or 0 + 40). 4 MB of documents (the
  // home page's 250 and the most viewed pages after a change) leave room under 450 MB on a query
  // mix the budgets were not chosen on (`npm run bench -- --mix-seed 2`: peak 448 MB with 8).
  READ_INDEX_DOCUMENTS_MB: cacheMegabytes(4),
  // Every run's document in a file of the instance's own, read with pread from the page cache
  // (src/lib/byte-file.ts); 0 keeps them in memory instead (the two settings above). Up to 32 GB.
  READ_INDEX_DOCUMENT_FILE_MB: cacheMegabytes(4096, 32768),
  // Where the read index's files go: the document file and the answer file.
  READ_INDEX_DOCUMENT_DIR: optionalString,
  READ_INDEX_ANSWER_CACHE_MB: cacheMegabytes(44),
  // Large kept answers as made, in a file of the instance's own (src/middleware/read-cache.ts);
  // 0 keeps them brotli-compressed in memory instead. Up to 32 GB.
  READ_INDEX_ANSWER_FILE_MB: cacheMegabytes(1024, 32768),
  JUDGE_BASE_URL: z.preprocess(emptyToUndefined, httpUrl.optional()),
  JUDGE_MODEL: optionalString,
  JUDGE_API_KEY: optionalString,
});

export interface Config {
  nodeEnv: 'development' | 'production' | 'test';
  port: number;
  databaseUrl: string | undefined;
  revision: RevisionNumber;
  publicUrl: string;
  /**
   * Whether PUBLIC_URL was set (always in production); otherwise documents given to agents
   * use the request's own origin and are answered `Cache-Control: private`.
   */
  publicUrlConfigured: boolean;
  sessionSecret: string;
  hfEndpoint: string;
  hfToken: string | undefined;
  hubMode: 'online' | 'offline';
  admin: { username: string; password: string } | undefined;
  logLevel: string;
  /** LOG_FORMAT, or JSON in production and short readable lines elsewhere (src/logger.ts). */
  logFormat: LogFormat;
  /** Per-address limits on GET requests and on exports; 0 turns one off. */
  readLimits: { perMinute: number; exportsPerHour: number };
  /** Writes (anything but GET, HEAD and OPTIONS) without credentials, per address and minute; 0 is no limit. */
  anonymousWritesPerMinute: number;
  /** Value handed to Express's `trust proxy` setting. */
  trustProxy: boolean | number | string;
  dataDir: string;
  /** Server-side execution of suites (issue 14). */
  /** The in-process read index of the leaderboard and results list (issue 15). */
  readIndex: {
    enabled: boolean;
    /**
     * `notify`: changes arrive by LISTEN/NOTIFY within milliseconds, and this instance's own
     * writes before it answers them; `strict`: every read first waits until every change
     * committed before it has arrived (one round trip; for tests that write to the database directly).
     */
    freshness: 'notify' | 'strict';
    /** Stored run documents kept in memory, at most this many ... */
    documentCacheSize: number;
    /** ... and at most this many bytes of them (a document with evidence samples weighs several times a plain one). */
    documentCacheBytes: number;
    /**
     * Bytes of the file every run's document is kept in (read from the page cache, not memory);
     * 0: documents are kept in memory, within the two bounds above.
     */
    documentFileBytes: number;
    /** Where that file and the answer file are made (unlinked at once); the system's temporary directory by default. */
    documentDirectory?: string;
    /** Bytes of anonymous read answers kept in memory until the next change (src/middleware/read-cache.ts); 0: none. */
    answerCacheBytes: number;
    /** Bytes of the file large kept answers are kept in as made (page cache, not memory); 0: kept compressed in memory (or none kept). */
    answerFileBytes: number;
  };
  /** How often this instance re-judges the runs of devices whose peers changed, ms; 0: never (another instance does). */
  peerRejudgeIntervalMs: number;
  execute: {
    /** Worker loops in this instance; 0 runs none (jobs wait for another instance). */
    workers: number;
    /** EXECUTE_ALLOW_HOSTS: host[:port] entries exempt from the public-address rule. */
    allowHosts: string[];
    /** The deployment's judge for llm_judge suites, when configured. */
    judge: { baseUrl: string; model: string; apiKey: string | undefined } | undefined;
  };
}

/** `TRUST_PROXY`: true/false, a hop count, or a list of addresses/subnets as Express accepts. */
function parseTrustProxy(raw: string): boolean | number | string {
  if (raw === 'true') return true;
  if (raw === 'false') return false;
  if (/^\d+$/.test(raw)) return Number(raw);
  if (/^[\w.:/, -]+$/.test(raw)) return raw;
  throw new ConfigError('TRUST_PROXY: must be true, false, a hop count or a list of addresses');
}

/** Outside production the session secret is generated once and kept in the data dir. */
function loadOrCreateSessionSecret(dataDir: string): string {
  const file = path.join(dataDir, 'session-secret');
  try {
    const existing = readFileSync(file, 'utf8').trim();
    if (existing.length >= 32) return existing;
  } catch {
    // not created yet
  }
  mkdirSync(dataDir, { recursive: true });
  const secret = randomBytes(32).toString('hex');
  writeFileSync(file, `${secret}\n`, { mode: 0o600 });
  return secret;
}

/** A directory the process can make files in, or a one-line ConfigError naming the variable. */
function checkWritableDirectory(variable: string, directory: string): void {
  try {
    if (!statSync(directory).isDirectory()) throw new Error('not a directory');
    accessSync(directory, fsConstants.W_OK);
  } catch {
    throw new ConfigError(`${variable}: ${directory} is not a directory this process can write to`);
  }
}

export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const parsed = envSchema.safeParse(env);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    throw new ConfigError(`${String(issue.path[0])}: ${issue.message}`);
  }
  const e = parsed.data;
  if (e.NODE_ENV === 'production' && !e.SESSION_SECRET) {
    throw new ConfigError('SESSION_SECRET: required when NODE_ENV=production');
  }
  // Documents given to agents carry absolute URLs and are publicly cacheable: in production
  // they must never take their origin from a request's Host header.
  if (e.NODE_ENV === 'production' && !e.PUBLIC_URL) {
    throw new ConfigError('PUBLIC_URL: required when NODE_ENV=production');
  }
  if (Boolean(e.JUDGE_BASE_URL) !== Boolean(e.JUDGE_MODEL)) {
    throw new ConfigError(`${e.JUDGE_BASE_URL ? 'JUDGE_MODEL' : 'JUDGE_BASE_URL'}: JUDGE_BASE_URL and JUDGE_MODEL go together`);
  }
  if (Boolean(e.ADMIN_USERNAME) !== Boolean(e.ADMIN_PASSWORD)) {
    throw new ConfigError(`${e.ADMIN_USERNAME ? 'ADMIN_PASSWORD' : 'ADMIN_USERNAME'}: ADMIN_USERNAME and ADMIN_PASSWORD go together`);
  }
  if (
    e.READ_INDEX === 'on' &&
    (e.READ_INDEX_DOCUMENT_FILE_MB > 0 || (e.READ_INDEX_ANSWER_CACHE_MB > 0 && e.READ_INDEX_ANSWER_FILE_MB > 0)) &&
    e.READ_INDEX_DOCUMENT_DIR !== undefined
  )
    checkWritableDirectory('READ_INDEX_DOCUMENT_DIR', e.READ_INDEX_DOCUMENT_DIR);
  const dataDir = path.resolve(e.DATA_DIR);
  return {
    nodeEnv: e.NODE_ENV,
    port: e.PORT,
    databaseUrl: e.DATABASE_URL,
    revision: e.API_REVISION,
    publicUrl: (e.PUBLIC_URL ?? `http://localhost:${e.PORT}`).replace(/\/+$/, ''),
    publicUrlConfigured: e.PUBLIC_URL !== undefined,
    sessionSecret: e.SESSION_SECRET ?? loadOrCreateSessionSecret(dataDir),
    hfEndpoint: e.HF_ENDPOINT.replace(/\/+$/, ''),
    hfToken: e.HF_TOKEN,
    hubMode: e.HUB_MODE,
    admin: e.ADMIN_USERNAME && e.ADMIN_PASSWORD ? { username: e.ADMIN_USERNAME, password: e.ADMIN_PASSWORD } : undefined,
    logLevel: e.LOG_LEVEL,
    logFormat: e.LOG_FORMAT ?? defaultLogFormat(e.NODE_ENV),
    readLimits: { perMinute: e.READ_LIMIT_PER_MINUTE, exportsPerHour: e.EXPORT_LIMIT_PER_HOUR },
    anonymousWritesPerMinute: e.ANONYMOUS_WRITE_LIMIT_PER_MINUTE,
    trustProxy: parseTrustProxy(e.TRUST_PROXY),
    dataDir,
    readIndex: {
      enabled: e.READ_INDEX === 'on',
      freshness: e.READ_INDEX_FRESHNESS,
      documentCacheSize: e.READ_INDEX_DOCUMENTS,
      documentCacheBytes: e.READ_INDEX_DOCUMENTS_MB * 1024 * 1024,
      documentFileBytes: e.READ_INDEX_DOCUMENT_FILE_MB * 1024 * 1024,
      documentDirectory: e.READ_INDEX_DOCUMENT_DIR,
      answerCacheBytes: e.READ_INDEX_ANSWER_CACHE_MB * 1024 * 1024,
      // No answer file where no answers are kept.
      answerFileBytes: e.READ_INDEX_ANSWER_CACHE_MB > 0 ? e.READ_INDEX_ANSWER_FILE_MB * 1024 * 1024 : 0,
    },
    peerRejudgeIntervalMs: e.PEER_REJUDGE_INTERVAL_MS,
    execute: {
      workers: e.EXECUTE_WORKERS,
      allowHosts: parseAllowHosts(e.EXECUTE_ALLOW_HOSTS),
      judge:
        e.JUDGE_BASE_URL && e.JUDGE_MODEL
          ? { baseUrl: e.JUDGE_BASE_URL.replace(/\/+$/, ''), model: e.JUDGE_MODEL, apiKey: e.JUDGE_API_KEY }
          : undefined,
    },
  };
}
