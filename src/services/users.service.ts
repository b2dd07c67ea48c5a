import { hash, verify } from '@node-rs/argon2';
import type { Db } from '../db/knex.ts';
import { Conflict, NotFound } from '../lib/errors.ts';

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

export class UsernameTaken extends Conflict {
  constructor() {
    super('That username is taken');
  }
}

const UNIQUE_VIOLATION = '23505';

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
export function hashPassword(password: string): Promise<string> {
  return hash(password);
}

// Verified against when the username does not exist, so both failures cost the same time.
let dummyHash: Promise<string> | undefined;

function byUsername(db: Db, username: string) {
  return db<UserRow>('users').whereRaw('lower(username) = lower(?)', [username.trim()]).first();
}

export async function createUser(
  db: Db,
  input: { username: string; displayName?: string; password: string; isAdmin?: boolean; isVerified?: boolean },
): Promise<User> {
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
    if ((error as { code?: string }).code === UNIQUE_VIOLATION) throw new UsernameTaken();
    throw error;
  }
}

/** The user when the credentials match, otherwise null: the caller cannot tell which part was wrong. */
export async function verifyCredentials(db: Db, username: string, password: string): Promise<User | null> {
  const row = await byUsername(db, username);
  if (!row) {
    dummyHash ??= hashPassword('not-a-real-password-just-for-timing');
    await verify(await dummyHash, password).catch(() => false);
    return null;
  }
  const ok = await verify(row.password_hash, password).catch(() => false);
  return ok ? toUser(row) : null;
}

export async function findUserById(db: Db, id: string): Promise<User | null> {
  const row = await db<UserRow>('users').where({ id }).first();
  return row ? toUser(row) : null;
}

export async function findUserByUsername(db: Db, username: string): Promise<User | null> {
  const row = await byUsername(db, username);
  return row ? toUser(row) : null;
}

/** Creates the configured admin, or makes an existing account admin with the given password. */
export async function ensureAdmin(db: Db, username: string, password: string): Promise<User> {
  const existing = await byUsername(db, username);
  if (!existing) return createUser(db, { username, password, isAdmin: true, isVerified: true });
  const [row] = await db<UserRow>('users')
    .where({ id: existing.id })
    .update({ password_hash: await hashPassword(password), is_admin: true, updated_at: db.fn.now() })
    .returning('*');
  return toUser(row!);
}

export interface UserPage {
  users: User[];
  total: number;
}

/** Accounts for the admin list: newest first, optionally filtered by a username/display-name substring. */
export async function listUsers(db: Db, { search, limit, offset }: { search?: string; limit: number; offset: number }): Promise<UserPage> {
  const base = db<UserRow>('users').modify((q) => {
    if (search) {
      const pattern = `%${search.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
      q.where((w) => w.whereILike('username', pattern).orWhereILike('display_name', pattern));
    }
  });
  const [rows, [{ total }]] = await Promise.all([
    base.clone().orderBy([{ column: 'created_at', order: 'desc' }, { column: 'id', order: 'desc' }]).limit(limit).offset(offset),
    base.clone().count<{ total: number }[]>('* as total'),
  ]);
  return { users: rows.map(toUser), total };
}

/** Also flips the copy on the user's runs, so the `verified` filters follow at once. */
export async function setUserVerified(db: Db, userId: string, verified: boolean): Promise<User> {
  return db.transaction(async (trx) => {
    const [row] = await trx<UserRow>('users')
      .where({ id: userId })
      .update({ is_verified: verified, updated_at: trx.fn.now() })
      .returning('*');
    if (!row) throw new NotFound('User not found');
    await trx('speed_test_runs').where({ user_id: userId }).update({ user_verified: verified });
    return toUser(row);
  });
}
