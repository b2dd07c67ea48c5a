import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import { API_KEYS_PER_ACCOUNT } from '../constants.ts';
import type { Db } from '../db/knex.ts';
import { Conflict, NotFound, Unauthorized } from '../lib/errors.ts';
import { messages } from '../messages.ts';
import { API_KEY_PATTERN, type CreateApiKeyInput } from '../schemas/api-key.schema.ts';
import type { ServiceDeps, Transactional } from './deps.ts';
import { toUser, type User } from './users.service.ts';

const LAST_USED_RESOLUTION_MS = 60_000;

export interface ApiKey {
  id: string;
  name: string;
  prefix: string;
  createdAt: string;
  lastUsedAt: string | null;
  expiresAt: string | null;
}

interface ApiKeyRow {
  id: string;
  user_id: string;
  name: string;
  prefix: string;
  key_hash: string;
  created_at: Date;
  last_used_at: Date | null;
  expires_at: Date | null;
  revoked_at: Date | null;
}

const iso = (date: Date | null) => (date ? date.toISOString() : null);

function toApiKey(row: ApiKeyRow): ApiKey {
  return {
    id: row.id,
    name: row.name,
    prefix: row.prefix,
    createdAt: row.created_at.toISOString(),
    lastUsedAt: iso(row.last_used_at),
    expiresAt: iso(row.expires_at),
  };
}

function hashApiKey(key: string): string {
  return createHash('sha256').update(key).digest('hex');
}

/** Keys that are neither revoked nor expired. */
function live(db: Db) {
  return db<ApiKeyRow>('api_keys')
    .whereNull('revoked_at')
    .andWhere((q) => q.whereNull('expires_at').orWhere('expires_at', '>', db.fn.now()));
}

/** Creates a key; the secret is returned here and never again. */
export type CreatedApiKey = Omit<ApiKey, 'lastUsedAt'> & { key: string };

/** API keys: created and revoked by their owner (session), presented by agents as Bearer tokens. */
export function createApiKeysService({ db, withTransaction }: Pick<ServiceDeps, 'db'> & Transactional) {
  return {
    /** The user's live keys, newest first (never the secrets). */
    async list(userId: string): Promise<ApiKey[]> {
      const rows = await db<ApiKeyRow>('api_keys')
        .where({ user_id: userId })
        .whereNull('revoked_at')
        .orderBy([
          { column: 'created_at', order: 'desc' },
          { column: 'id', order: 'desc' },
        ]);
      return rows.map(toApiKey);
    },

    async create(userId: string, input: CreateApiKeyInput): Promise<CreatedApiKey> {
      return db.transaction(async (trx) => {
        // Serialises concurrent creations by one user so the limit cannot be overshot.
        await trx('users').where({ id: userId }).forUpdate().first('id');
        const { count } = (await live(trx).where({ user_id: userId }).count<{ count: number }[]>('* as count'))[0]!;
        if (count >= API_KEYS_PER_ACCOUNT) throw new Conflict(messages.apiKeyLimit(API_KEYS_PER_ACCOUNT));
        const key = `bhk_${randomBytes(20).toString('hex')}`;
        const [row] = await trx<ApiKeyRow>('api_keys')
          .insert({
            user_id: userId,
            name: input.name,
            prefix: key.slice(0, 8),
            key_hash: hashApiKey(key),
            expires_at: input.expiresAt ? new Date(input.expiresAt) : null,
          })
          .returning('*');
        const { lastUsedAt: _neverUsedYet, ...created } = toApiKey(row!);
        return { ...created, key };
      });
    },

    /** Revokes one of the user's keys; another user's id, or an unknown one, is a 404. */
    async revoke(userId: string, keyId: string): Promise<void> {
      const updated = await db('api_keys')
        .where({ id: keyId, user_id: userId })
        .whereNull('revoked_at')
        .update({ revoked_at: db.fn.now() });
      if (updated === 0) throw new NotFound(messages.apiKeyNotFound);
    },

    /**
     * Revokes every live key of the user at once (a password change leaves keys valid; this is
     * the way to cut them all off), audited in the same transaction; returns how many.
     */
    async revokeAll(user: { id: string; username: string }): Promise<number> {
      return db.transaction(async (trx) => {
        const revoked = await live(trx).where({ user_id: user.id }).update({ revoked_at: trx.fn.now() });
        await withTransaction(trx).audit.record(user, {
          action: 'api_keys.revoke_all',
          targetKind: 'user',
          targetId: user.id,
          targetLabel: user.username,
          reason: `${revoked} live key${revoked === 1 ? '' : 's'} revoked by the owner`,
        });
        return revoked;
      });
    },

    /**
     * The user behind a presented key, or a 401 for any key that is malformed, unknown,
     * expired or revoked. `lastUsedAt` is written at most once a minute per key.
     */
    async authenticate(presented: string): Promise<{ user: User; apiKeyId: string }> {
      if (!API_KEY_PATTERN.test(presented)) throw new Unauthorized();
      const digest = hashApiKey(presented);
      const row = await db('api_keys as k')
        .join('users as u', 'u.id', 'k.user_id')
        .where('k.key_hash', digest)
        .first('k.id as key_id', 'k.key_hash', 'k.last_used_at', 'k.expires_at', 'k.revoked_at', db.raw('now() as db_now'), 'u.*');
      // The lookup is by hash; the constant-time compare guards against any collation surprise.
      if (!row || !timingSafeEqual(Buffer.from(row.key_hash), Buffer.from(digest))) throw new Unauthorized();
      const now: Date = row.db_now;
      if (row.revoked_at || (row.expires_at && row.expires_at <= now)) throw new Unauthorized();
      if (!row.last_used_at || now.getTime() - row.last_used_at.getTime() >= LAST_USED_RESOLUTION_MS) {
        await db('api_keys').where({ id: row.key_id }).update({ last_used_at: now });
      }
      return { user: toUser(row), apiKeyId: row.key_id };
    },
  };
}

export type ApiKeysService = ReturnType<typeof createApiKeysService>;
