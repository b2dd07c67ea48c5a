import { hash, verify } from '@node-rs/argon2';
import type { Db } from '../db/knex.ts';
import { rethrowDbError } from '../db/errors.ts';
import { Conflict, HttpError, NotFound, RateLimited, Unauthorized } from '../lib/errors.ts';
import { escapeLike } from '../lib/like-patterns.ts';
import { messages } from '../messages.ts';
import type { AdminActor, AuditAction } from './audit.service.ts';
import type { ServiceDeps, Transactional } from './deps.ts';
import type { FixedWindow, RateLimitService } from './rate-limit.service.ts';
import { writeVisibly } from './visible-writes.ts';

export interface User {
  id: string;
  username: string;
  displayName: string;
  isAdmin: boolean;
  isVerified: boolean;
  createdAt: Date;
}

interface UserRow {
  id: string;
  username: string;
  display_name: string;
  password_hash: string;
  is_admin: boolean;
  is_verified: boolean;
  created_at: Date;
  updated_at: Date;
}

/** How fast passwords may be guessed: per username and address at sign-in, per account when changing it. */
export const SIGN_IN_LIMIT: FixedWindow = { limit: 10, windowMs: 15 * 60_000 };
/** Accounts one address may create. */
export const SIGN_UP_LIMIT: FixedWindow = { limit: 30, windowMs: 60 * 60_000 };
/** Failed sign-ins from one address across all usernames: stops password spraying. */
export const FAILED_SIGN_INS_PER_ADDRESS: FixedWindow = { limit: 30, windowMs: 15 * 60_000 };

export function toUser(row: UserRow): User {
  return {
    id: row.id,
    username: row.username,
    displayName: row.display_name,
    isAdmin: row.is_admin,
    isVerified: row.is_verified,
    createdAt: row.created_at,
  };
}

/** argon2id with the library's defaults (its default algorithm is argon2id). */
function hashPassword(password: string): Promise<string> {
  return hash(password);
}

// Verified against when the username does not exist, so both failures cost the same time.
let dummyHash: Promise<string> | undefined;

function byUsername(db: Db, username: string) {
  return db<UserRow>('users').whereRaw('lower(username) = lower(?)', [username.trim()]).first();
}

export class WrongCurrentPassword extends HttpError {
  constructor() {
    super(400, messages.wrongCurrentPassword);
  }
}

/** A user's audit label: what the log shows as the target. */
const userLabel = (row: { username: string }) => `@${row.username}`;

const minutesUntil = (ms: number) => {
  const minutes = Math.max(1, Math.ceil(ms / 60_000));
  return `${minutes} minute${minutes === 1 ? '' : 's'}`;
};

/** Accounts: sign-up and sign-in with their throttles, roles (audited), display name and password. */
export function createUsersService(deps: Pick<ServiceDeps, 'db' | 'readIndex'> & Transactional & { rateLimits: RateLimitService }) {
  const { db, rateLimits, withTransaction } = deps;

  /** The user when the credentials match, otherwise null: the caller cannot tell which part was wrong. */
  async function verifyCredentials(username: string, password: string): Promise<User | null> {
    const row = await byUsername(db, username);
    if (!row) {
      dummyHash ??= hashPassword('not-a-real-password-just-for-timing');
      await verify(await dummyHash, password).catch(() => false);
      return null;
    }
    const ok = await verify(row.password_hash, password).catch(() => false);
    return ok ? toUser(row) : null;
  }

  async function create(input: {
    username: string;
    displayName?: string;
    password: string;
    isAdmin?: boolean;
    isVerified?: boolean;
  }): Promise<User> {
    const passwordHash = await hashPassword(input.password);
    try {
      const [row] = await db<UserRow>('users')
        .insert({
          username: input.username,
          display_name: input.displayName ?? input.username,
          password_hash: passwordHash,
          is_admin: input.isAdmin ?? false,
          is_verified: input.isVerified ?? false,
        })
        .returning('*');
      return toUser(row!);
    } catch (error) {
      // A taken username is a Conflict the sign-up form shows on its field.
      return rethrowDbError(error);
    }
  }

  async function existingUser(trx: Db, userId: string): Promise<User> {
    const row = await trx<UserRow>('users').where({ id: userId }).first();
    if (!row) throw new NotFound(messages.userNotFound);
    return toUser(row);
  }

  /**
   * Sets a role flag when it differs, runs `alongside` and writes the audit entry, all in
   * the caller's transaction. An unchanged flag writes and logs nothing.
   */
  async function changeRoleFlag(
    trx: Db,
    actor: AdminActor,
    userId: string,
    flag: 'is_verified' | 'is_admin',
    value: boolean,
    action: AuditAction,
    alongside?: () => Promise<unknown>,
  ): Promise<User> {
    const [row] = await trx<UserRow>('users')
      .where({ id: userId })
      .whereNot({ [flag]: value })
      .update({ [flag]: value, updated_at: trx.fn.now() })
      .returning('*');
    if (!row) return existingUser(trx, userId);
    await alongside?.();
    await withTransaction(trx).audit.record(actor, { action, targetKind: 'user', targetId: row.id, targetLabel: userLabel(row) });
    return toUser(row);
  }

  return {
    create,
    verifyCredentials,

    async findById(id: string): Promise<User | null> {
      const row = await db<UserRow>('users').where({ id }).first();
      return row ? toUser(row) : null;
    },

    async findByUsername(username: string): Promise<User | null> {
      const row = await byUsername(db, username);
      return row ? toUser(row) : null;
    },

    /** Counts a sign-up attempt from `address` (valid or not); 429 once the address has made too many. */
    async admitSignUp(address: string): Promise<void> {
      const window = await rateLimits.hit({ bucket: 'signup', key: address, ...SIGN_UP_LIMIT });
      if (!window.allowed) throw new RateLimited(messages.tooManySignUps(minutesUntil(window.retryAfterMs)), window.retryAfterMs);
    },

    /**
     * The user for these credentials. Attempts are limited per username and address, and failed
     * ones per address across usernames (429); wrong credentials are a 401 that does not say which
     * part was wrong. Success clears the username's count and does not count against the address.
     */
    async signIn(username: string, password: string, address: string): Promise<User> {
      const key = `${username.toLowerCase()}|${address}`;
      const window = await rateLimits.hit({ bucket: 'signin', key, ...SIGN_IN_LIMIT });
      if (!window.allowed) throw new RateLimited(messages.tooManySignIns(minutesUntil(window.retryAfterMs)), window.retryAfterMs);
      // Counted before the password is checked, so parallel attempts cannot slip past the limit.
      const fromAddress = await rateLimits.hit({ bucket: 'signin-address', key: address, ...FAILED_SIGN_INS_PER_ADDRESS });
      if (!fromAddress.allowed) {
        throw new RateLimited(messages.tooManyFailedSignInsFromAddress(minutesUntil(fromAddress.retryAfterMs)), fromAddress.retryAfterMs);
      }
      const user = await verifyCredentials(username, password);
      if (!user) throw new Unauthorized(messages.wrongCredentials);
      await Promise.all([rateLimits.clear('signin', key), rateLimits.release('signin-address', address)]);
      return user;
    },

    /** Creates the configured admin, or makes an existing account admin with the given password. */
    async ensureAdmin(username: string, password: string): Promise<User> {
      const existing = await byUsername(db, username);
      if (!existing) return create({ username, password, isAdmin: true, isVerified: true });
      const [row] = await db<UserRow>('users')
        .where({ id: existing.id })
        .update({ password_hash: await hashPassword(password), is_admin: true, updated_at: db.fn.now() })
        .returning('*');
      return toUser(row!);
    },

    /** Accounts for the admin list: newest first, optionally filtered by a username/display-name substring. */
    async list({ search, limit, offset }: { search?: string; limit: number; offset: number }): Promise<{ users: User[]; total: number }> {
      const base = db<UserRow>('users').modify((q) => {
        if (search) {
          const pattern = `%${escapeLike(search)}%`;
          q.where((w) => w.whereILike('username', pattern).orWhereILike('display_name', pattern));
        }
      });
      const [rows, [{ total }]] = await Promise.all([
        base
          .clone()
          .orderBy([
            { column: 'created_at', order: 'desc' },
            { column: 'id', order: 'desc' },
          ])
          .limit(limit)
          .offset(offset),
        base.clone().count<{ total: number }[]>('* as total'),
      ]);
      return { users: rows.map(toUser), total };
    },

    /**
     * Also flips the copy on the user's runs, so the `verified` filters follow at once, and
     * writes the audit entry in the same transaction. Setting the value it already has
     * changes nothing and logs nothing.
     */
    setVerified(actor: AdminActor, userId: string, verified: boolean): Promise<User> {
      return writeVisibly(deps, (trx) =>
        changeRoleFlag(trx, actor, userId, 'is_verified', verified, verified ? 'user.verify' : 'user.unverify', () =>
          trx('speed_test_runs').where({ user_id: userId }).update({ user_verified: verified }),
        ),
      );
    },

    /**
     * Grants or revokes the admin role. Revoking locks every admin row (in id order, so two
     * revokes never deadlock) before counting them: two admins demoting each other at the
     * same moment are serialised, and the second one finds a single admin left and is refused.
     */
    setAdmin(actor: AdminActor, userId: string, admin: boolean): Promise<User> {
      return db.transaction(async (trx) => {
        if (!admin) {
          const admins: { id: string }[] = await trx('users').where({ is_admin: true }).orderBy('id').forUpdate().select('id');
          if (admins.some((a) => a.id === userId) && admins.length <= 1) throw new LastAdmin();
        }
        return changeRoleFlag(trx, actor, userId, 'is_admin', admin, admin ? 'user.grant_admin' : 'user.revoke_admin');
      });
    },

    /** An empty display name falls back to the username, as at sign-up. Runs' documents show the name. */
    async updateDisplayName(userId: string, displayName: string | undefined): Promise<User> {
      const [row] = await writeVisibly(deps, (trx) =>
        trx<UserRow>('users')
          .where({ id: userId })
          .update({ display_name: displayName ?? trx.ref('username'), updated_at: trx.fn.now() } as Record<string, unknown>)
          .returning('*'),
      );
      if (!row) throw new NotFound(messages.userNotFound);
      return toUser(row);
    },

    /**
     * Checks the current password, stores the new hash and signs out every other session of
     * the account (someone who knew the old password may hold one); `keepSessionId` stays.
     * Guessing the current password with a borrowed session is as slow as at sign-in (429).
     */
    async changePassword(userId: string, input: { currentPassword: string; newPassword: string }, keepSessionId: string): Promise<void> {
      const window = await rateLimits.hit({ bucket: 'password', key: userId, ...SIGN_IN_LIMIT });
      if (!window.allowed) throw new RateLimited(messages.tooManyPasswordAttempts, window.retryAfterMs);
      const row = await db<UserRow>('users').where({ id: userId }).first();
      if (!row) throw new NotFound(messages.userNotFound);
      const ok = await verify(row.password_hash, input.currentPassword).catch(() => false);
      if (!ok) throw new WrongCurrentPassword();
      const passwordHash = await hashPassword(input.newPassword);
      await db.transaction(async (trx) => {
        // Compare-and-set: a concurrent change since the check makes this one fail as wrong.
        const updated = await trx('users')
          .where({ id: userId, password_hash: row.password_hash })
          .update({ password_hash: passwordHash, updated_at: trx.fn.now() });
        if (updated === 0) throw new WrongCurrentPassword();
        await trx('sessions').whereRaw("sess->>'userId' = ?", [userId]).whereNot({ sid: keepSessionId }).delete();
      });
    },
  };
}

export type UsersService = ReturnType<typeof createUsersService>;

export class LastAdmin extends Conflict {
  constructor() {
    super(messages.lastAdmin);
  }
}
