/**
 * Anonymous reads answered from memory (issue 37). The leaderboard, the results list, model
 * search and the leaderboard page are what nearly every visitor and agent asks for, mostly
 * without credentials, and many ask the same addresses. Their answers depend on nothing but
 * the approved runs and the catalogue, which the read index follows: an answer computed
 * while the index's change count (`RunReadIndex.changes()`) held a value stays true until it
 * moves on. So the bytes of such an answer are kept under that count and the request's
 * address, and served again without the session, authentication, validation or query work.
 *
 * Freshness stays the index's: every change notice moves the count (a writer's own request
 * waits for its notice through `writeVisibly`, so its next read misses and is computed
 * afresh; others see a change within the notify delay), and with READ_INDEX_FRESHNESS=strict
 * `current()` catches up before the count is read. A filter that moves with the clock
 * (`since`) loses runs without a notice: such an answer is kept only until the moment its
 * route names (`answerStableUntil`), when its oldest run leaves the window. Only requests with no cookie and no
 * Authorization header are served or kept (nothing in them can depend on who asks), only
 * answers sent whole with 200 and without a cookie or `private`/`no-store`.
 *
 * A kept answer carries a weak ETag naming its version (this process, the change count, the
 * address), so neither a miss nor a hit hashes a body. A large one is kept as made in the answer
 * file (READ_INDEX_ANSWER_FILE_MB: the page cache holds it, not this process), and
 * brotli-compressed in memory once a client that takes brotli asks for it; without the file,
 * brotli-compressed in memory at once. Clients that take gzip only or nothing are served copies
 * (see `bodyFor`).
 */
import { createHash, randomBytes } from 'node:crypto';
import { brotliCompressSync, brotliDecompressSync, constants as zlibConstants, gzipSync } from 'node:zlib';
import type { Request, RequestHandler, Response } from 'express';
import Negotiator from 'negotiator';
import { createByteCache, ownBytes } from '../lib/byte-cache.ts';
import { SendBuffers } from '../lib/send-buffers.ts';
import type { BytesByTicket } from '../lib/byte-file.ts';
import type { Clock } from '../lib/clock.ts';
import type { RunReadIndex } from '../runs/read-index/read-index.ts';
import { COMPRESSION_THRESHOLD_BYTES } from './compression.ts';

/** How a kept answer's bytes are encoded: as sent, or brotli-compressed (answers of COMPRESSION_THRESHOLD_BYTES and more). */
type KeptEncoding = 'identity' | 'br';

interface KeptAnswer {
  /** The bytes kept in memory, encoded as `encoding` says; null while only the answer file holds them (as made). */
  body: Buffer | null;
  encoding: KeptEncoding;
  /** The answer file's ticket for the answer as made, while it holds it. */
  ticket: number | null;
  /**
   * The answer's length as made: a brotli answer is decompressed into one buffer of this size
   * (zlib's default 16 KB chunks, concatenated, took 15% longer and allocated the page twice).
   */
  plainLength: number;
  /** Headers the route set (those set before this middleware are set again by the middleware before it). */
  headers: [string, string | number | string[]][];
  /** For an answer that moves with the clock: the last moment (ms since the epoch) it is exact. */
  until?: number;
}

const STABLE_UNTIL = 'readCacheStableUntil';

/**
 * Kept answers are compressed with brotli at quality 1, on the request's thread.
 * Measured on this machine for a 108 KB leaderboard page: 0.17-0.19 ms to compress to 16.7 KB
 * and 0.15 ms to decompress, where gzip at level 3 took 0.45-0.48 ms to reach 18.2 KB (0.18 ms
 * to inflate), and handing it to the thread pool cost more in all (0.5-0.6 ms of CPU per page:
 * the stream machinery and the hand-over). Browsers take brotli, so they are sent these bytes.
 */
const brotliCompress = (bytes: Buffer) =>
  brotliCompressSync(bytes, {
    params: {
      [zlibConstants.BROTLI_PARAM_QUALITY]: 1,
      [zlibConstants.BROTLI_PARAM_LGWIN]: 17,
      [zlibConstants.BROTLI_PARAM_SIZE_HINT]: bytes.length,
    },
  });
/** zlib's smallest output chunk. */
const MIN_CHUNK = zlibConstants.Z_MIN_CHUNK;
/** A gzip copy for clients that take gzip but not brotli (agents' HTTP libraries) is made at level 3: a sixth more bytes than 6 for half the CPU. */
const TRANSCODED_GZIP_LEVEL = 3;

/**
 * Tells the answer cache until when (ms since the epoch) the answer being made stays exact
 * by the clock alone (runs arriving or changing are change notices): a request with a filter
 * that moves with the clock (`since`) is kept only when its route says so, and only until
 * then. Called more than once, the earliest moment holds.
 */
export function answerStableUntil(res: Response, ms: number | undefined): void {
  if (ms === undefined) return;
  const said = res.locals[STABLE_UNTIL] as number | undefined;
  res.locals[STABLE_UNTIL] = said === undefined ? ms : Math.min(said, ms);
}

/** Says whether an answer came from memory (`hit`) or was computed and may be kept (`miss`), as caches in front of web servers do. */
export const CACHE_HEADER = 'X-Read-Cache';

/** Bytes an answer is counted as: the memory its body holds (see `ownBytes`), and a little for its key and headers. */
const keptSize = (answer: KeptAnswer) => (answer.body?.buffer.byteLength ?? 0) + 1024;

export function readCache({
  readIndex,
  paths,
  clockMoved,
  clock,
  maxBytes,
  answerFile = null,
  sendBuffers = new SendBuffers(),
}: {
  readIndex: RunReadIndex;
  /** Exact paths whose anonymous GET answers may be kept. */
  paths: ReadonlySet<string>;
  /**
   * Query parameters whose answers move with the clock (`since`): such an answer is kept only
   * when its route said until when it stays exact (`answerStableUntil`), and only until then.
   */
  clockMoved: ReadonlySet<string>;
  /** The services' clock (the windows read it). */
  clock: Clock;
  /** Memory for kept answers: the bytes kept in memory, and 1 KB per answer for its key and headers. */
  maxBytes: number;
  /**
   * Where large answers are kept as made, read back with `pread` (a 100 KB page in some 30 µs,
   * where compressing it took 0.3-0.9 ms in the app and most clients of the filter mix never ask
   * for brotli); null: they are compressed into memory at once.
   */
  answerFile?: BytesByTicket | null;
  /** What plain answers read from the answer file are sent from (reused once sent). */
  sendBuffers?: SendBuffers;
}): RequestHandler & { keptBytes(): number } {
  const kept = createByteCache<KeptAnswer>(maxBytes, keptSize);
  /**
   * Answers being made, by key, until their response closes: requests for the same one meanwhile
   * wait and are served what it kept. Without it a cold page asked for by 32 clients at once was
   * made 32 times over (32 home pages of 250 run documents each: CPU, and a spike of RSS).
   */
  const inFlight = new Map<string, Promise<void>>();
  /**
   * Copies of the answers most asked for, as clients that do not take brotli take them: plain
   * (curl, load generators) or gzipped (most agents' HTTP libraries), by encoding and key. Made
   * at the first such hit (0.15 ms to decompress a 100 KB page, 0.45 ms more to gzip it), which
   * the most asked-for pages would otherwise pay again and again. An eighth more of the budget:
   * a copy weighs eight kept answers, so only the few most asked-for stay (the rest of the budget
   * keeps more answers, which spares whole requests).
   */
  const transcoded = createByteCache(maxBytes >>> 3);
  /** Tells this process's version ETags from another's (or an earlier one's), whose change counts started anew. */
  const epoch = randomBytes(6).toString('base64url');

  /**
   * The kept answer's body as this request takes it: brotli when the client takes it (as the
   * compression middleware would prefer it; that middleware leaves an encoded answer alone), made
   * and kept with the answer at the first such request when only the file holds it; plain from
   * the file when it holds the answer; else gzipped or plain from `transcoded`. `plain` is the
   * answer as made, when the request made it.
   */
  function bodyFor(req: Request, res: Response, key: string, answer: KeptAnswer, plain?: Buffer): Buffer {
    if (answer.encoding === 'identity') return answer.body!;
    res.vary('Accept-Encoding');
    const encoding = preferredEncoding(req);
    if (encoding === 'br') {
      res.setHeader('Content-Encoding', 'br');
      if (answer.body) return answer.body;
      const body = ownBytes(brotliCompress(plain ?? plainOf(answer)));
      // A new value, not the old one changed: the cache counts what it was given.
      kept.set(key, { ...answer, body });
      return body;
    }
    if (encoding === 'identity' && plain) return plain;
    // Plain, from the answer file: read into a buffer reused once sent, rather than a copy kept (or a new buffer) per hit.
    if (encoding === 'identity' && answer.ticket !== null && answerFile) {
      const buffer = sendBuffers.forResponse(res, answer.plainLength);
      const read = answerFile.readInto(answer.ticket, buffer);
      if (read > 0) return buffer.subarray(0, read);
    }
    const copyKey = copyKeyOf(encoding, key);
    let body = transcoded.get(copyKey);
    if (!body) {
      const source = plain ?? plainOf(answer);
      body = ownBytes(encoding === 'gzip' ? gzipSync(source, { level: TRANSCODED_GZIP_LEVEL }) : source);
      transcoded.set(copyKey, body);
    }
    if (encoding === 'gzip') res.setHeader('Content-Encoding', 'gzip');
    return body;
  }

  /** A kept answer as made: from the answer file, else decompressed from memory (`usable` answers have one or the other). */
  function plainOf(answer: KeptAnswer): Buffer {
    const stored = answer.ticket === null ? undefined : answerFile?.read(answer.ticket);
    return stored ?? brotliDecompressSync(answer.body!, { chunkSize: Math.max(MIN_CHUNK, answer.plainLength) });
  }

  /** Whether the answer's bytes are still somewhere: in memory, or in the answer file (which writes new answers over its oldest). */
  const usable = (answer: KeptAnswer) => answer.body !== null || (answer.ticket !== null && answerFile?.has(answer.ticket) === true);

  /**
   * Drops what is kept under `key`, the answer and its copies: an answer that moved with the
   * clock is made anew under the same key once its moment has passed, and a copy of the old
   * one must not outlive it.
   */
  function forget(key: string): void {
    const answer = kept.get(key, { touch: false });
    if (answer?.ticket != null) answerFile?.drop(answer.ticket);
    kept.delete(key);
    for (const encoding of ['gzip', 'identity'] as const) transcoded.delete(copyKeyOf(encoding, key));
  }

  /**
   * Catches the route's one whole answer (`res.send`) and, when it may be served to others, keeps
   * it under `key` (brotli-compressed when large enough) and sends it as a hit would be sent.
   */
  function keepWhenSent(req: Request, res: Response, key: string, movesWithClock: boolean): void {
    const headersBefore = new Set(res.getHeaderNames());
    const send = res.send;
    res.send = function sendAndKeep(this: Response, body?: unknown) {
      res.send = send;
      const until = res.locals[STABLE_UNTIL] as number | undefined;
      const bytes = keepableBytes(res, body);
      if (!bytes || (movesWithClock && until === undefined)) return send.call(this, body);
      // A version ETag: the same key under the same change count is the same answer (and one
      // that moves with the clock, the same until the same moment), so no hash of the body.
      if (req.app.get('etag fn') && !res.hasHeader('etag'))
        res.setHeader(
          'ETag',
          `W/"${epoch}-${createHash('sha1')
            .update(`${key}\n${until ?? ''}`)
            .digest('base64url')}"`,
        );
      // The route's own headers as it set them, before sending adds the length and an encoding.
      const headers = res
        .getHeaderNames()
        .filter((name) => !headersBefore.has(name) && name !== 'content-length')
        .map((name): [string, string | number | string[]] => [name, res.getHeader(name)!]);
      const large = bytes.length >= COMPRESSION_THRESHOLD_BYTES;
      const ticket = large && answerFile ? answerFile.keep(bytes) : null;
      const answer: KeptAnswer = {
        // Compressed now only when the file could not take it (a browser's miss compresses in `bodyFor`).
        body: !large ? ownBytes(bytes) : ticket === null ? ownBytes(brotliCompress(bytes)) : null,
        encoding: large ? 'br' : 'identity',
        ticket,
        plainLength: bytes.length,
        headers,
      };
      if (movesWithClock) answer.until = until;
      forget(key);
      kept.set(key, answer);
      // Sent as a hit would be: a browser gets the brotli bytes just made, not a second compression.
      return send.call(this, bodyFor(req, res, key, answer, bytes));
    } as Response['send'];
  }

  const handler: RequestHandler = async (req, res, next) => {
    if (
      maxBytes === 0 ||
      req.method !== 'GET' ||
      !paths.has(req.path) ||
      req.headers.cookie !== undefined ||
      req.headers.authorization !== undefined
    )
      return next();
    let movesWithClock = false;
    for (const name of clockMoved) if (req.query[name] !== undefined) movesWithClock = true;
    if (!(await readIndex.current())) return next();
    // What an answer may vary on besides the address: htmx fragments and the format asked for. An answer
    // naming the request's own origin is `private` (src/serialisers/origin.ts) and never kept, so the Host is not part of it.
    const key = `${readIndex.changes()}\n${req.originalUrl}\n${req.get('hx-request') ?? ''}\n${req.get('accept') ?? ''}`;
    const current = () => {
      const answer = kept.get(key);
      if (!answer) return undefined;
      if (usable(answer) && (answer.until === undefined || clock.now().getTime() <= answer.until)) return answer;
      forget(key);
      return undefined;
    };
    let answer = current();
    const computing = inFlight.get(key);
    if (!answer && computing) {
      // The same answer is being made for another request: wait for it rather than make it again.
      await computing;
      answer = current();
    }
    if (answer) {
      for (const [name, value] of answer.headers) res.setHeader(name, value);
      res.setHeader(CACHE_HEADER, 'hit');
      res.send(bodyFor(req, res, key, answer));
      return;
    }
    res.setHeader(CACHE_HEADER, 'miss');
    if (!computing) {
      inFlight.set(
        key,
        new Promise<void>((resolve) =>
          res.once('close', () => {
            inFlight.delete(key);
            resolve();
          }),
        ),
      );
    }
    keepWhenSent(req, res, key, movesWithClock);
    next();
  };
  return Object.assign(handler, { keptBytes: () => kept.size });
}

/**
 * The bytes of an answer others may be served too: sent whole with 200, without a cookie or
 * `private`/`no-store`. A text becomes its UTF-8 bytes here, once, with the charset named in its
 * type as Express would name it (Express would encode its own copy); a text whose type names
 * another charset is left to Express and not kept.
 */
function keepableBytes(res: Response, body: unknown): Buffer | null {
  if (res.statusCode !== 200 || res.hasHeader('set-cookie') || /private|no-store/.test(String(res.getHeader('cache-control') ?? '')))
    return null;
  if (Buffer.isBuffer(body)) return body;
  if (typeof body !== 'string') return null;
  if (!res.hasHeader('content-type')) res.type('html');
  const type = String(res.getHeader('content-type'));
  const charset = /;\s*charset=([^;\s]+)/i.exec(type)?.[1];
  if (charset === undefined) res.setHeader('Content-Type', `${type}; charset=utf-8`);
  else if (charset.toLowerCase() !== 'utf-8') return null;
  return Buffer.from(body);
}

/** Where `transcoded` keeps the copy of the answer under `key` for clients that take `encoding`. */
const copyKeyOf = (encoding: 'gzip' | 'identity', key: string) => `${encoding}\n${key}`;

/** What the compression middleware (compression 1.8) offers and prefers among encodings a client takes equally. */
const OFFERED_ENCODINGS = ['br', 'gzip', 'deflate', 'identity'];
const PREFERRED_ENCODINGS = ['br', 'gzip'];

/**
 * The encoding the compression middleware would send this request, as far as a kept answer goes:
 * brotli or gzip, else plain (which that middleware then deflates for a client that takes only deflate).
 */
function preferredEncoding(req: Request): 'br' | 'gzip' | 'identity' {
  const chosen = new Negotiator(req).encoding(OFFERED_ENCODINGS, { preferred: PREFERRED_ENCODINGS });
  return chosen === 'br' || chosen === 'gzip' ? chosen : 'identity';
}
