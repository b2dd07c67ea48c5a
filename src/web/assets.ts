import { createHash } from 'node:crypto';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import type { Request, RequestHandler, Response } from 'express';

/**
 * Fingerprinted static files: `/css/site.css` is linked as `/static/css/site.<hash>.css`,
 * the hash taken from the file's content, so the address changes exactly when the file
 * does and browsers may keep it for a year (`immutable`). The plain addresses still work,
 * cached briefly, for anything that links them by name.
 */

/** A year, the longest a cache is asked to keep anything. */
const YEAR_SECONDS = 31_536_000;
/** How long unfingerprinted files may be reused without asking. */
export const PLAIN_STATIC_MAX_AGE_SECONDS = 300;
const HASH_LENGTH = 12;

/** A public address and the file behind it. */
export interface AssetSource {
  /** As pages name it, e.g. `/css/site.css` or `/vendor/htmx/htmx.min.js`. */
  path: string;
  file: string;
}

interface Fingerprint {
  hash: string;
  mtimeMs: number;
  /** When the file's modification time was last looked at (`recheck` only). */
  checkedAt: number;
}

/** How often, at most, `recheck` looks at a file again: not a file-system call per page. */
export const RECHECK_INTERVAL_MS = 1000;

export interface StaticAssets {
  /** The fingerprinted address of a known asset; any other path comes back unchanged. */
  url(assetPath: string): string;
  /** Serves `/static/<path with hash>` (mount it at `/static`). */
  handler: RequestHandler;
}

/** `/css/site.css` + hash -> `/css/site.<hash>.css`. */
function withHash(assetPath: string, hash: string): string {
  const ext = path.posix.extname(assetPath);
  return `${assetPath.slice(0, assetPath.length - ext.length)}.${hash}${ext}`;
}

/**
 * `recheck`: look at a file's modification time again on use, at most once a second, and
 * hash it again when it changed (development, where CSS is edited while the server runs);
 * otherwise each file is hashed once, at start-up. `now` is for tests.
 */
export function createStaticAssets(
  sources: readonly AssetSource[],
  { recheck, now = Date.now }: { recheck: boolean; now?: () => number },
): StaticAssets {
  const byPath = new Map(sources.map((source) => [source.path, source]));
  const fingerprints = new Map<string, Fingerprint>();

  function fingerprint(source: AssetSource): Fingerprint {
    const known = fingerprints.get(source.path);
    if (known && (!recheck || now() - known.checkedAt < RECHECK_INTERVAL_MS)) return known;
    const checkedAt = now();
    const { mtimeMs } = statSync(source.file);
    if (known && known.mtimeMs === mtimeMs) {
      known.checkedAt = checkedAt;
      return known;
    }
    const hash = createHash('sha256').update(readFileSync(source.file)).digest('hex').slice(0, HASH_LENGTH);
    const fresh = { hash, mtimeMs, checkedAt };
    fingerprints.set(source.path, fresh);
    return fresh;
  }
  // Hash everything now: a missing file stops the start, not the first page.
  for (const source of sources) fingerprint(source);

  /** Fingerprinted address (without `/static`) -> its source, for the current hashes. */
  function lookup(requested: string): AssetSource | undefined {
    const match = /^(.*)\.([0-9a-f]+)(\.[^./]+)$/.exec(requested);
    if (!match) return undefined;
    const source = byPath.get(`${match[1]}${match[3]}`);
    return source && fingerprint(source).hash === match[2] ? source : undefined;
  }

  return {
    url(assetPath) {
      const source = byPath.get(assetPath);
      return source ? `/static${withHash(assetPath, fingerprint(source).hash)}` : assetPath;
    },
    handler(req: Request, res: Response, next) {
      if (req.method !== 'GET' && req.method !== 'HEAD') return next();
      const source = lookup(req.path);
      // An old or unknown fingerprint: not found, never today's file under yesterday's name.
      if (!source) return next();
      res.sendFile(source.file, { maxAge: YEAR_SECONDS * 1000, immutable: true, dotfiles: 'deny' }, (error) => {
        if (error && !res.headersSent) next(error);
      });
    },
  };
}

/** Every file under `directory` (the site's `public/`), named by its address. */
export function publicAssetSources(directory: string): AssetSource[] {
  return readdirSync(directory, { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile() && !entry.name.startsWith('.'))
    .map((entry) => {
      const file = path.join(entry.parentPath, entry.name);
      return { path: `/${path.relative(directory, file).split(path.sep).join('/')}`, file };
    });
}
