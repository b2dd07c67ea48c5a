import { createHmac, timingSafeEqual } from 'node:crypto';

/**
 * Short-lived capability URLs (DECISIONS.md "Real clients": run bundles, shard datasets,
 * storage uploads and downloads): the query carries `expires` (Unix seconds) and an
 * HMAC-SHA256 `signature` over what the URL grants (method and resource, not the path, so the
 * revision-2 alias of a path accepts the same URL). Whoever holds the URL may use it until it
 * expires, without credentials, like an object store's presigned URL.
 */

/** How long a signed URL works (DECISIONS.md: 15 minutes). */
export const SIGNED_URL_TTL_MS = 15 * 60_000;

export type SignedAction = 'GET' | 'PUT';

export interface SignedGrant {
  action: SignedAction;
  /** What the URL grants, e.g. `storage:<key>` or `dataset:<slug>`. */
  resource: string;
}

const message = ({ action, resource }: SignedGrant, expires: number) => `${action}\n${resource}\n${expires}`;

export function createUrlSigner(secret: string) {
  // Its own key, derived from the deployment's secret: a signature is never a session cookie's.
  const key = createHmac('sha256', secret).update('signed-urls').digest();
  const sign = (grant: SignedGrant, expires: number) => createHmac('sha256', key).update(message(grant, expires)).digest('hex');

  return {
    /** The `expires` and `signature` query parameters of a URL granting `grant` until `now` + 15 minutes. */
    sign(grant: SignedGrant, now: Date): { expires: number; signature: string; expiresAt: Date } {
      const expires = Math.floor((now.getTime() + SIGNED_URL_TTL_MS) / 1000);
      return { expires, signature: sign(grant, expires), expiresAt: new Date(expires * 1000) };
    },

    /** Whether the signature grants `grant` and has not expired at `now`. */
    verify(grant: SignedGrant, query: { expires: number; signature: string }, now: Date): boolean {
      if (query.expires * 1000 <= now.getTime()) return false;
      const expected = Buffer.from(sign(grant, query.expires), 'hex');
      const given = Buffer.from(query.signature, 'hex');
      return given.length === expected.length && timingSafeEqual(given, expected);
    },
  };
}

export type UrlSigner = ReturnType<typeof createUrlSigner>;
