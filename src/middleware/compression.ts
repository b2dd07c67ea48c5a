import type { RequestHandler, Response } from 'express';
import compression from 'compression';

/** Answers smaller than this go out as they are: compressing them saves less than it costs. */
export const COMPRESSION_THRESHOLD_BYTES = 1024;

/** Answers written piece by piece over time (exports, event streams): their pieces must not wait in the compressor. */
const STREAMED_TYPES = /^(application\/x-ndjson|text\/csv|text\/event-stream)\b/i;
/** How long a written piece of a streamed answer may wait to be sent with the next ones. */
export const STREAM_FLUSH_MS = 50;

/**
 * A compressed streamed answer is flushed shortly after each write, so a slow export or an
 * event stream reaches the client as it is produced instead of when the compressor's
 * buffer fills; pieces written within STREAM_FLUSH_MS of each other share one flush (one
 * compressed block), which keeps a large export's ratio.
 */
function flushStreamedWrites(res: Response & { flush?: () => void }): void {
  const write = res.write;
  let timer: NodeJS.Timeout | undefined;
  const stop = () => {
    if (timer) clearTimeout(timer);
    timer = undefined;
  };
  res.write = function (this: Response, ...args: Parameters<Response['write']>) {
    const written = write.apply(this, args);
    if (!timer && res.flush && STREAMED_TYPES.test(String(res.getHeader('Content-Type') ?? ''))) {
      timer = setTimeout(() => {
        timer = undefined;
        if (!res.writableEnded) res.flush?.();
      }, STREAM_FLUSH_MS);
    }
    return written;
  } as Response['write'];
  res.once('finish', stop);
  res.once('close', stop);
}

/**
 * gzip or brotli (the client's choice; brotli preferred) for every compressible type: HTML,
 * JSON, CSV, JSON Lines, CSS, JavaScript and SVG. Images in compressed formats (PNG, JPEG,
 * WebP) are left alone by the type check.
 */
export function compress(): RequestHandler {
  // The type list `compression` consults does not name JSON Lines; it is text like the rest.
  const compressible: compression.CompressionFilter = (req, res) =>
    STREAMED_TYPES.test(String(res.getHeader('Content-Type') ?? '')) || compression.filter(req, res);
  const middleware = compression({ threshold: COMPRESSION_THRESHOLD_BYTES, filter: compressible });
  return (req, res, next) => {
    middleware(req, res, (error?: unknown) => {
      if (error) return next(error);
      flushStreamedWrites(res);
      next();
    });
  };
}
