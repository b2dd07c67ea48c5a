import { createHash, randomBytes, randomInt } from 'node:crypto';
import { API_KEYS_PER_ACCOUNT } from '../constants.ts';
import { BadRequest, Conflict, HttpError, NotFound, RateLimited } from '../lib/errors.ts';
import { messages } from '../messages.ts';
import type { ApiKeysService, CreatedApiKey } from './api-keys.service.ts';
import type { ServiceDeps } from './deps.ts';
import type { RateLimitService } from './rate-limit.service.ts';

/**
 * Device login (RFC 8628) for command-line clients such as `llm-bench login` and the
 * LocalMaxxing CLI's `auth login`: `start` hands out a device code (the client's secret) and a
 * user code (what the person types at /device), `decide` records the signed-in person's
 * approval or denial, and `poll` answers the client once with a new API key of that person.
 * Both codes are stored only as SHA-256; a code works once and for 10 minutes.
 */

export const DEVICE_LOGIN = {
  expiresInSeconds: 600,
  intervalSeconds: 5,
  /** RFC 8628 3.5: each `slow_down` adds this to the interval. */
  slowDownSeconds: 5,
  /** Codes asked for per client address and window. */
  startsPerAddress: 10,
  startsWindowMs: 15 * 60_000,
} as const;

/** Consonants without look-alikes (no vowels, so no words; no I, O, 0, 1, S/5, Z/2). */
const USER_CODE_ALPHABET = 'BCDFGHJKLMNPQRTVWX';

export type DeviceTokenError = 'authorization_pending' | 'slow_down' | 'access_denied' | 'expired_token' | 'invalid_grant';

/** A poll that gets no key: its RFC 8628 error code. */
export class DeviceTokenRefused extends BadRequest {
  constructor(readonly code: DeviceTokenError) {
    super(code);
  }
}

/**
 * The approving account already has its live keys: a 409 whose `error` is a code like the
 * endpoint's others (the LocalMaxxing Go CLI reads `key_limit_exceeded`), with the text in
 * `error_description` as RFC 6749 5.2 names it. The login stays approved for a later poll.
 */
export class DeviceKeyLimit extends HttpError {
  static readonly description = `${messages.apiKeyLimit(API_KEYS_PER_ACCOUNT)}: revoke one at /settings/keys, then poll again`;
  constructor() {
    super(409, 'key_limit_exceeded', { error_description: DeviceKeyLimit.description });
  }
}

interface DeviceLoginRow {
  id: string;
  client_id: string;
  status: 'PENDING' | 'APPROVED' | 'DENIED' | 'CONSUMED';
  user_id: string | null;
  interval_seconds: number;
  last_polled_at: Date | null;
  expires_at: Date;
}

const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');

/** `XXXX-XXXX` from USER_CODE_ALPHABET; typed loosely (any case, with or without the dash). */
function newUserCode(): string {
  const letters = Array.from({ length: 8 }, () => USER_CODE_ALPHABET[randomInt(USER_CODE_ALPHABET.length)]).join('');
  return `${letters.slice(0, 4)}-${letters.slice(4)}`;
}
export function normaliseUserCode(typed: string): string {
  const letters = typed.toUpperCase().replace(/[^A-Z]/g, '');
  return letters.length === 8 ? `${letters.slice(0, 4)}-${letters.slice(4)}` : letters;
}

export function createDeviceLoginsService({
  db,
  clock,
  apiKeys,
  rateLimits,
}: Pick<ServiceDeps, 'db' | 'clock'> & { apiKeys: ApiKeysService; rateLimits: RateLimitService }) {
  const pendingByUserCode = (userCode: string) =>
    db('device_logins')
      .where({ user_code_hash: sha256(normaliseUserCode(userCode)), status: 'PENDING' })
      .where('expires_at', '>', clock.now());

  return {
    /** POST /api/auth/device/code: new codes, within the per-address limit. */
    async start(input: { clientId: string; scope?: string }, address: string) {
      const hit = await rateLimits.hit({
        bucket: 'device-login',
        key: address,
        limit: DEVICE_LOGIN.startsPerAddress,
        windowMs: DEVICE_LOGIN.startsWindowMs,
      });
      if (!hit.allowed)
        throw new RateLimited('Too many device logins from your address; try again later', hit.retryAfterMs, {
          retryAfterMs: Math.max(1, hit.retryAfterMs),
        });
      const deviceCode = randomBytes(32).toString('base64url');
      const userCode = newUserCode();
      await db('device_logins').insert({
        device_code_hash: sha256(deviceCode),
        user_code_hash: sha256(userCode),
        client_id: input.clientId,
        scope: input.scope ?? null,
        interval_seconds: DEVICE_LOGIN.intervalSeconds,
        expires_at: new Date(clock.now().getTime() + DEVICE_LOGIN.expiresInSeconds * 1000),
      });
      return { deviceCode, userCode, expiresIn: DEVICE_LOGIN.expiresInSeconds, interval: DEVICE_LOGIN.intervalSeconds };
    },

    /** What /device shows for a typed user code: the client asking; unknown, used or expired codes are not found. */
    async pending(userCode: string): Promise<{ clientId: string; userCode: string }> {
      const row = await pendingByUserCode(userCode).first('client_id');
      if (!row) throw new NotFound('That code is unknown, used or expired: ask the program for a new one');
      return { clientId: row.client_id, userCode: normaliseUserCode(userCode) };
    },

    /** The signed-in person approves (or denies) the login of a pending code. */
    async decide(userId: string, userCode: string, approve: boolean): Promise<{ clientId: string }> {
      const [row] = await pendingByUserCode(userCode)
        .update({ status: approve ? 'APPROVED' : 'DENIED', user_id: userId })
        .returning<{ client_id: string }[]>('client_id');
      if (!row) throw new NotFound('That code is unknown, used or expired: ask the program for a new one');
      return { clientId: row.client_id };
    },

    /**
     * POST /api/auth/device/token: the RFC 8628 error while there is no key to give, or once,
     * after approval, a new API key of the approving person named after the client and the
     * day (it counts toward the key limit: a full account is DeviceKeyLimit and the login stays approved).
     */
    async poll(deviceCode: string): Promise<CreatedApiKey> {
      const now = clock.now();
      const row: DeviceLoginRow | undefined = await db('device_logins')
        .where({ device_code_hash: sha256(deviceCode) })
        .first();
      if (!row || row.status === 'CONSUMED') throw new DeviceTokenRefused('invalid_grant');
      if (row.expires_at <= now) throw new DeviceTokenRefused('expired_token');
      if (row.status === 'DENIED') throw new DeviceTokenRefused('access_denied');
      if (row.status === 'PENDING') {
        const tooSoon = row.last_polled_at && now.getTime() - row.last_polled_at.getTime() < row.interval_seconds * 1000;
        await db('device_logins')
          .where({ id: row.id })
          .update({
            last_polled_at: now,
            ...(tooSoon ? { interval_seconds: row.interval_seconds + DEVICE_LOGIN.slowDownSeconds } : {}),
          });
        throw new DeviceTokenRefused(tooSoon ? 'slow_down' : 'authorization_pending');
      }
      // Approved: only one poll claims it.
      const claimed = await db('device_logins').where({ id: row.id, status: 'APPROVED' }).update({ status: 'CONSUMED' });
      if (claimed === 0) throw new DeviceTokenRefused('invalid_grant');
      try {
        const day = now.toISOString().slice(0, 10);
        return await apiKeys.create(row.user_id!, { name: `${row.client_id} (device login ${day})`.slice(0, 100) });
      } catch (error) {
        await db('device_logins').where({ id: row.id }).update({ status: 'APPROVED' });
        // The key limit is the only Conflict creating a key raises.
        throw error instanceof Conflict ? new DeviceKeyLimit() : error;
      }
    },
  };
}

export type DeviceLoginsService = ReturnType<typeof createDeviceLoginsService>;
