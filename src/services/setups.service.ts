import type { Db } from '../db/knex.ts';
import { rethrowDbError } from '../db/errors.ts';
import { SETUPS_PER_ACCOUNT } from '../constants.ts';
import { Conflict, Forbidden, NotFound } from '../lib/errors.ts';
import { parseOrThrow } from '../lib/validation.ts';
import { messages } from '../messages.ts';
import type { RevisionProfile } from '../revisions.ts';
import { setupSchemas, type SetupCreateInput, type SetupPatchInput } from '../schemas/setup.schema.ts';
import type { ServiceDeps } from './deps.ts';
import type { SpeedTestRun } from '../runs/reads/speed-test-reads.ts';

/**
 * Saved setups: named hardware/engine configurations a user keeps to fill the submit
 * form. One user's setups are written one request at a time (a lock on the user's row),
 * so "make default" clears the others and sets its own without a race; the partial unique
 * index on (user_id) where is_default is the database's guarantee behind that.
 */

export interface Setup {
  id: string;
  name: string;
  description: string | null;
  isDefault: boolean;
  /** The hardware, engine and flag fields, null when not set. */
  [field: string]: unknown;
  createdAt: string;
  updatedAt: string;
}

/** The account already holds the maximum of setups: a 409 about the form, not about the name. */
export class SetupLimitReached extends Conflict {
  constructor() {
    super(messages.setupLimit(SETUPS_PER_ACCOUNT));
  }
}

/** `GET /api/setups`: the usual list shape. */
export interface SetupPage {
  setups: Setup[];
  total: number;
  limit: number;
  offset: number;
}

interface SetupRow {
  id: string;
  user_id: string;
  name: string;
  description: string | null;
  is_default: boolean;
  config: Record<string, unknown>;
  created_at: Date;
  updated_at: Date;
}

function toSetup(profile: RevisionProfile, row: SetupRow): Setup {
  const setup: Record<string, unknown> = { id: row.id, name: row.name, description: row.description, isDefault: row.is_default };
  // Every field the revision has, null when not set: one shape for every setup.
  for (const field of setupSchemas(profile).configFields) setup[field] = row.config[field] ?? null;
  setup.createdAt = row.created_at.toISOString();
  setup.updatedAt = row.updated_at.toISOString();
  return setup as Setup;
}

/** A setup's configuration as stored: only the fields that are set. */
function storedConfig(fields: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(fields).filter(([, value]) => value !== null && value !== undefined));
}

async function clearDefault(trx: Db, userId: string, now: Date, except?: string): Promise<void> {
  const query = trx('setups').where({ user_id: userId, is_default: true });
  if (except) query.whereNot({ id: except });
  await query.update({ is_default: false, updated_at: now });
}

/**
 * A run's hardware, engine and flags as setup fields. A mixed-GPU run keeps its `gpus`;
 * derived fields (totals, the heterogeneous flag) are left out, like on a submission.
 */
export function setupFieldsFromRun(run: SpeedTestRun): Record<string, unknown> {
  const hardware = { ...(run.hardware as Record<string, unknown>) };
  for (const derived of ['id', 'totalVramGb', 'isHeterogeneousGpu']) delete hardware[derived];
  if (hardware.gpus) {
    delete hardware.gpuName;
    delete hardware.vramGb;
    delete hardware.gpuCount;
  }
  const fields: Record<string, unknown> = {
    ...hardware,
    engineName: run.engineName,
    engineVersion: run.engineVersion,
    backend: run.backend,
    quantization: run.quantization,
    contextLength: run.contextLength,
    batchSize: run.batchSize,
    ...((run.engineFlags as Record<string, unknown> | null) ?? {}),
  };
  return storedConfig(fields);
}

export function createSetupsService({ db, profile, clock }: Pick<ServiceDeps, 'db' | 'profile' | 'clock'>) {
  /** Runs `work` holding the user's row lock, so one user's setup writes never interleave. */
  async function asTheUser<T>(userId: string, work: (trx: Db) => Promise<T>): Promise<T> {
    try {
      return await db.transaction(async (trx) => {
        // NO KEY UPDATE: serialises these writers without blocking inserts that reference the user.
        await trx('users').where({ id: userId }).forNoKeyUpdate().first('id');
        return work(trx);
      });
    } catch (error) {
      // A name taken (case-insensitively) is the 409 the forms show on the name field.
      return rethrowDbError(error);
    }
  }

  const countOf = async (trx: Db, userId: string): Promise<number> =>
    ((await trx('setups').where({ user_id: userId }).first(trx.raw('count(*)::int as n'))) as { n: number }).n;

  // Another user's id is answered like an unknown one: 404, never revealing which.
  const ownSetup = (trx: Db, userId: string, id: string) => trx<SetupRow>('setups').where({ id, user_id: userId });

  /** Creates a setup (input already parsed by the create schema); `isDefault` clears the user's other default. */
  async function create(userId: string, input: SetupCreateInput): Promise<Setup> {
    const { name, description, isDefault, ...fields } = input;
    const config = storedConfig(fields);
    parseOrThrow(setupSchemas(profile).hardware, config);
    const now = clock.now();
    return asTheUser(userId, async (trx) => {
      // Counted under the user's row lock, so parallel saves cannot pass the cap together.
      if ((await countOf(trx, userId)) >= SETUPS_PER_ACCOUNT) throw new SetupLimitReached();
      if (isDefault) await clearDefault(trx, userId, now);
      const [row] = await trx<SetupRow>('setups')
        .insert({
          user_id: userId,
          name,
          description: description ?? null,
          is_default: isDefault ?? false,
          config: JSON.stringify(config) as unknown as Record<string, unknown>,
          created_at: now,
          updated_at: now,
        })
        .returning('*');
      return toSetup(profile, row!);
    });
  }

  return {
    create,

    /** A page of the user's setups: the default first, then the most recently updated. */
    async list(userId: string, page: { limit: number; offset: number } = { limit: SETUPS_PER_ACCOUNT, offset: 0 }): Promise<SetupPage> {
      const [rows, total] = await Promise.all([
        db<SetupRow>('setups')
          .where({ user_id: userId })
          .orderBy([
            { column: 'is_default', order: 'desc' },
            { column: 'updated_at', order: 'desc' },
            { column: 'id', order: 'desc' },
          ])
          .limit(page.limit)
          .offset(page.offset),
        countOf(db, userId),
      ]);
      return { setups: rows.map((row) => toSetup(profile, row)), total, ...page };
    },

    async get(userId: string, id: string): Promise<Setup> {
      const row = await ownSetup(db, userId, id).first();
      if (!row) throw new NotFound(messages.setupNotFound);
      return toSetup(profile, row);
    },

    async findDefault(userId: string): Promise<Setup | undefined> {
      const row = await db<SetupRow>('setups').where({ user_id: userId, is_default: true }).first();
      return row ? toSetup(profile, row) : undefined;
    },

    /**
     * Changes only the fields given; `null` clears a field. The hardware part is checked on the
     * result, so a PATCH cannot leave a setup its class does not allow.
     */
    async update(userId: string, id: string, patch: SetupPatchInput): Promise<Setup> {
      const now = clock.now();
      return asTheUser(userId, async (trx) => {
        const row = await ownSetup(trx, userId, id).first();
        if (!row) throw new NotFound(messages.setupNotFound);
        const { name, description, isDefault, ...fields } = patch;
        const given = Object.entries(fields).filter(([, value]) => value !== undefined);
        if (name === undefined && description === undefined && isDefault === undefined && given.length === 0) {
          return toSetup(profile, row);
        }
        const config = storedConfig({ ...row.config, ...Object.fromEntries(given) });
        parseOrThrow(setupSchemas(profile).hardware, config);
        if (isDefault === true) await clearDefault(trx, userId, now, id);
        const [updated] = await trx<SetupRow>('setups')
          .where({ id, user_id: userId })
          .update({
            ...(name !== undefined ? { name } : {}),
            ...(description !== undefined ? { description } : {}),
            ...(isDefault !== undefined ? { is_default: isDefault } : {}),
            config: JSON.stringify(config) as unknown as Record<string, unknown>,
            updated_at: now,
          })
          .returning('*');
        return toSetup(profile, updated!);
      });
    },

    async remove(userId: string, id: string): Promise<void> {
      const deleted = await ownSetup(db, userId, id).del();
      if (deleted === 0) throw new NotFound(messages.setupNotFound);
    },

    /** "Save as setup" on a run page: only the run's submitter may, and the name is theirs to choose. */
    async saveFromRun(
      userId: string,
      run: SpeedTestRun,
      input: { name?: unknown; description?: unknown; isDefault?: unknown },
    ): Promise<Setup> {
      if (run.userId !== userId) throw new Forbidden(messages.setupFromOthersRun);
      const { create: createSchema, configFields } = setupSchemas(profile);
      // Only what a setup holds: anything else a stored run carries is not the submitter's to fix here.
      const known = new Set<string>(configFields);
      const fields = Object.fromEntries(Object.entries(setupFieldsFromRun(run)).filter(([key]) => known.has(key)));
      return create(userId, parseOrThrow(createSchema, { ...fields, ...storedConfig(input) }));
    },
  };
}
