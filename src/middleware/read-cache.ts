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
 */
import { gunzipSync, gzip } from 'node:zlib';
import type { Request, RequestHandler, Response } from 'express';
import { createByteCache } from '../lib/byte-cache.ts';
import type { Clock } from '../lib/clock.ts';
import type { RunReadIndex } from '../runs/read-index/read-index.ts';
import { COMPRESSION_THRESHOLD_BYTES } from './compression.ts';

interface KeptAnswer {
  /** The answer's bytes: gzipped once compressed (off the request's thread), as sent until then. */
  body: Buffer;
  gzipped: boolean;
  /** Headers the route set (those set before this middleware are set again by the middleware before it). */
  headers: [string, string | number | string[]][];
  /** For an answer that moves with the clock: the last moment (ms since the epoch) it is exact. */
  until?: number;
}

const STABLE_UNTIL = 'readCacheStableUntil';

/**
 * Kept answers are gzipped at level 3, not zlib's default 6: half the CPU (0.35 ms, not 0.7, for a
 * 100 KB leaderboard on this machine) for a sixth more bytes (7x smaller, not 8x). Every answer
 * computed anew is compressed once, on a thread pool that shares the app's two cores with it.
 */
const KEPT_GZIP_LEVEL = 3;

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

/** Bytes an answer is counted as: its body, and a little for its key and headers. */
const keptSize = (answer: KeptAnswer) => answer.body.length + 1024;

export function readCache({
  readIndex,
  paths,
  clockMoved,
  clock,
  maxBytes,
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
  maxBytes: number;
}): RequestHandler & { keptBytes(): number } {
  const kept = createByteCache<KeptAnswer>(maxBytes, keptSize);
  /**
   * Answers being made, by key, until their response closes: requests for the same one meanwhile
   * wait and are served what it kept. Without it a cold page asked for by 32 clients at once was
   * made 32 times over (32 home pages of 250 run documents each: CPU, and a spike of RSS).
   */
  const inFlight = new Map<string, Promise<void>>();
  /**
   * Inflated copies of the answers most asked for by clients that do not accept gzip (curl,
   * load generators): inflating a 100 KB page costs about a tenth of a millisecond, which
   * the most asked-for pages would pay again and again. A quarter more of the budget.
   */
  const inflated = createByteCache(maxBytes >>> 2);

  /**
   * The kept answer's body as this request takes it: the gzipped bytes themselves when the
   * compression middleware would pick gzip (the client takes gzip but not brotli; it leaves an
   * encoded answer alone), else inflated (and, for a browser, brotli'd by the middleware as before).
   */
  function bodyFor(req: Request, res: Response, key: string, answer: KeptAnswer): Buffer {
    if (!answer.gzipped) return answer.body;
    if (req.acceptsEncodings('br') !== 'br' && req.acceptsEncodings('gzip') === 'gzip') {
      res.setHeader('Content-Encoding', 'gzip');
      return answer.body;
    }
    let body = inflated.get(key);
    if (!body) inflated.set(key, (body = gunzipSync(answer.body)));
    return body;
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
      if (answer?.until === undefined || clock.now().getTime() <= answer.until) return answer;
      kept.delete(key);
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
      inFlight.set(key, new Promise<void>((resolve) => res.once('close', resolve)));
      res.once('close', () => inFlight.delete(key));
    }
    keepWhenSent(res, new Set(res.getHeaderNames()), (sent) => {
      const until = res.locals[STABLE_UNTIL] as number | undefined;
      if (movesWithClock && until === undefined) return;
      const fresh = movesWithClock ? { ...sent, until } : sent;
      kept.set(key, fresh);
      // Kept as sent at once (the next request may hit it), then gzipped on the thread pool:
      // about a seventh of the bytes, so over a thousand pages fit where a few hundred did.
      if (fresh.body.length < COMPRESSION_THRESHOLD_BYTES) return;
      gzip(fresh.body, { level: KEPT_GZIP_LEVEL }, (error, gzipped) => {
        if (!error && kept.get(key, { touch: false }) === fresh) kept.set(key, { ...fresh, body: gzipped, gzipped: true });
      });
    });
    next();
  };
  return Object.assign(handler, { keptBytes: () => kept.size });
}

/** Catches the route's one whole answer (`res.send`) and hands it to `keep` when it may be served to others. */
function keepWhenSent(res: Response, headersBefore: ReadonlySet<string>, keep: (answer: KeptAnswer) => void): void {
  const send = res.send;
  res.send = function sendAndKeep(this: Response, body?: unknown) {
    res.send = send;
    const sendable = typeof body === 'string' || Buffer.isBuffer(body);
    const cacheControl = String(res.getHeader('cache-control') ?? '');
    const keepable = res.statusCode === 200 && sendable && !res.hasHeader('set-cookie') && !/private|no-store/.test(cacheControl);
    // The route's own headers as it set them, before sending adds the length and compression its encoding.
    const headers = keepable
      ? res
          .getHeaderNames()
          .filter((name) => !headersBefore.has(name) && name !== 'content-length')
          .map((name): [string, string | number | string[]] => [name, res.getHeader(name)!])
      : [];
    // A text is encoded once, here, and both sent and kept as those bytes (Express would encode
    // its own copy). Only when its content type already names the charset, as Express's `type`
    // sets it for JSON and text: Express adds the charset to a text's type, not to bytes'.
    const textTyped = typeof body === 'string' && /charset=utf-8/i.test(String(res.getHeader('content-type') ?? ''));
    const bytes = keepable && textTyped ? Buffer.from(body) : body;
    const result = send.call(this, bytes);
    if (keepable) {
      // Sending set the ETag (and a text's charset): kept too, so a replay hashes nothing.
      for (const name of ['content-type', 'etag']) {
        const value = res.getHeader(name);
        if (value !== undefined) headers.push([name, value]);
      }
      keep({ body: Buffer.isBuffer(bytes) ? bytes : Buffer.from(bytes as string), gzipped: false, headers });
    }
    return result;
  } as Response['send'];
}
