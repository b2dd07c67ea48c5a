import { NotFound } from '../../lib/errors.ts';
import { speedTestFacets } from './run-facts.ts';
import { recipeColumns } from './recipe.ts';
import {
  dryRunParts,
  normaliseParsedSubmission,
  submittedHardware,
  type NormalisedHardware,
  type NormalisedSpeedTest,
} from './normalise.ts';
import { plausibilityOf } from '../../lib/peer-verdict.ts';
import { judgeSubmission, verdictColumns, verdictObject } from './verdict.ts';
import { messages } from '../../messages.ts';
import type { RevisionProfile } from '../../revisions.ts';
import { speedTestSubmissionSchema, type SpeedTestSubmission } from './speed-test.schema.ts';
import type { ServiceDeps, Transactional } from '../../services/deps.ts';
import type { IdempotencyService } from '../../services/idempotency.service.ts';
import { upsertByContentHash, upsertHardwareProfile } from '../../services/hardware.service.ts';
import { resolvedModelSummary, type ModelRow, type ModelsService, type ResolvedModel } from '../../services/models.service.ts';
import type { SpeedTestDocumentRow, SpeedTestReads, SpeedTestRun } from '../reads/speed-test-reads.ts';
import { toSpeedTestRun } from '../run-json.ts';
import type { ResultsListReads } from '../reads/results-list.ts';
import type { ReplicationsService } from '../reads/replications.service.ts';
import { submitInWindow, type SubmissionWindowService, type WindowState } from '../../services/submission-window.service.ts';
import { assertVisibleWrite } from '../../services/visible-writes.ts';

export type { SpeedTestRun };

/** Idempotency keys of speed-test submissions never meet those of other writes. */
const IDEMPOTENCY_SCOPE = 'speed-test';

export interface ValidatedSubmission {
  normalised: NormalisedSpeedTest;
  model: ResolvedModel;
}

export interface SubmissionResult {
  run: SpeedTestRun;
  /** Submissions left in the window and when it ends (for a replay: the window as it is now). */
  rateLimit: { remaining: number; resetAt: Date };
  replayed: boolean;
}

/** Submitted fields stored elsewhere than in the run's own columns (model, hardware profile, engine row), or not at all. */
const NOT_RUN_COLUMNS = new Set([
  'hfId',
  'hardware',
  'engineName',
  'engineVersion',
  'engineRepository',
  'engineBuild',
  'engineCommit',
  'commandSnippetFlags',
  // Kept only as their digests and samples (promptSha256, promptSample, ...).
  'prompt',
  'outputText',
]);
/** What a run stores for a field its revision does not take. */
const RUN_COLUMN_DEFAULTS = { prefill_tokens: 0 };

const snakeCase = (field: string) => field.replace(/[A-Z]/g, (letter) => `_${letter.toLowerCase()}`);

/**
 * The normalised submission's own fields as the run's columns: a field's column is its
 * name in snake_case (`tokSOut` -> `tok_s_out`), lists and objects are stored as JSON.
 */
function submittedColumns(normalised: NormalisedSpeedTest): Record<string, unknown> {
  const columns: Record<string, unknown> = { ...RUN_COLUMN_DEFAULTS };
  for (const [field, value] of Object.entries(normalised)) {
    if (value === undefined || NOT_RUN_COLUMNS.has(field)) continue;
    columns[snakeCase(field)] = value !== null && typeof value === 'object' ? JSON.stringify(value) : value;
  }
  return columns;
}

/** Every run column a submission may fill: the schema's fields as submittedColumns names them, and the summed power. */
function submittableColumns(profile: RevisionProfile): string[] {
  return [
    ...Object.keys(speedTestSubmissionSchema(profile).shape).filter((field) => !NOT_RUN_COLUMNS.has(field)),
    'totalPowerWatts',
    'verificationIssues',
  ].map(snakeCase);
}

/**
 * The stored run's submission: hfId, the hardware in its submitted form, the engine row's
 * fields and the run's own columns (submittedColumns read back). What an owner's
 * correction is merged over; fields this revision does not take are left out.
 */
export function submissionOfStoredRun(
  profile: RevisionProfile,
  run: Record<string, unknown>,
  stored: {
    hfId: string;
    hardware: NormalisedHardware;
    engine: { name: string; version: string | null; repository: string | null; build: string | null; commit: string | null };
  },
): Record<string, unknown> {
  const { engine } = stored;
  const submission: Record<string, unknown> = { hfId: stored.hfId, hardware: submittedHardware(stored.hardware), engineName: engine.name };
  const engineFields = {
    engineVersion: engine.version,
    engineRepository: engine.repository,
    engineBuild: engine.build,
    engineCommit: engine.commit,
  };
  const gated = new Set<string>(profile.speedTests.revisionOnlyFields);
  // A field the submitter never gave stays not given: the correction's normalisation then
  // defaults it again and lists it, instead of taking the stored default as stated.
  const defaulted = new Set<string>(Array.isArray(run.defaulted_fields) ? (run.defaulted_fields as string[]) : []);
  for (const field of Object.keys(speedTestSubmissionSchema(profile).shape)) {
    if (gated.has(field) || defaulted.has(field) || field in submission) continue;
    const value =
      field in engineFields
        ? engineFields[field as keyof typeof engineFields]
        : NOT_RUN_COLUMNS.has(field)
          ? undefined
          : run[snakeCase(field)];
    if (value !== null && value !== undefined) submission[field] = value;
  }
  return submission;
}

/**
 * Writes validated runs; built on the writing transaction (`withTransaction(trx).runWriter`),
 * which must be a `writeVisibly` one: each write refuses any other. Submissions, owners'
 * corrections and the demo seeder all store runs through it.
 */
export function createSpeedTestWriter({ db }: Pick<ServiceDeps, 'db'>) {
  /**
   * The run's columns from a normalised submission: the de-duplicated hardware and engine
   * rows, the leaderboard facts and the roofline verdict, and the submitted fields.
   */
  async function runColumns(
    normalised: NormalisedSpeedTest,
    modelRow: ModelRow,
    userId: string,
    id: string | null = null,
  ): Promise<Record<string, unknown>> {
    const hardwareId = await upsertHardwareProfile(db, normalised.hardware);
    const engine = {
      name: normalised.engineName,
      version: normalised.engineVersion ?? null,
      repository: normalised.engineRepository ?? null,
      build: normalised.engineBuild ?? null,
      commit: normalised.engineCommit ?? null,
    };
    const engineId = await upsertByContentHash(db, 'engines', engine, engine);
    const { is_verified: userVerified } = await db('users').where({ id: userId }).first('is_verified');
    return {
      ...speedTestFacets(normalised, modelRow, userVerified),
      // The verdict on the board as it is; the others of its device are re-judged in the background (the trigger queues it).
      ...verdictColumns(await judgeSubmission(db, normalised, modelRow, { id, userId })),
      ...submittedColumns(normalised),
      ...recipeColumns({ ...normalised, hfId: modelRow.hf_id }),
      model_id: modelRow.id,
      hardware_id: hardwareId,
      engine_id: engineId,
    };
  }

  return {
    /** One new run, APPROVED, and its model's run count. */
    async store({
      normalised,
      model: modelRow,
      userId,
      createdAt,
    }: {
      normalised: NormalisedSpeedTest;
      model: ModelRow;
      userId: string;
      createdAt: Date;
    }): Promise<string> {
      assertVisibleWrite(db);
      const [{ id }] = await db('speed_test_runs')
        .insert({ ...(await runColumns(normalised, modelRow, userId)), user_id: userId, status: 'APPROVED', created_at: createdAt })
        .returning('id');
      await db('models').where({ id: modelRow.id }).increment('benchmark_count', 1);
      return id;
    },

    /**
     * An approved run rewritten from a corrected submission: every submitted column (those
     * the correction left out cleared), its facts and verdict; a change of model moves the
     * run between the models' run counts. The triggers follow with the document and counts.
     */
    async rewrite(
      profile: RevisionProfile,
      {
        id,
        normalised,
        model: modelRow,
        userId,
        previousModelId,
        correctedAt,
      }: { id: string; normalised: NormalisedSpeedTest; model: ModelRow; userId: string; previousModelId: string; correctedAt: Date },
    ): Promise<void> {
      assertVisibleWrite(db);
      const cleared = Object.fromEntries(submittableColumns(profile).map((column) => [column, null]));
      await db('speed_test_runs')
        .where({ id })
        .update({ ...cleared, ...(await runColumns(normalised, modelRow, userId, id)), corrected_at: correctedAt });
      if (previousModelId !== modelRow.id) {
        await db('models').where({ id: previousModelId }).decrement('benchmark_count', 1);
        await db('models').where({ id: modelRow.id }).increment('benchmark_count', 1);
      }
    },
  };
}

/** Everything a submission must pass beyond its schema, the hub check included; writes nothing. */
export async function validateSubmission(
  profile: RevisionProfile,
  models: ModelsService,
  submission: SpeedTestSubmission,
): Promise<ValidatedSubmission> {
  const normalised = normaliseParsedSubmission(profile, submission);
  const model = await models.resolve(normalised.hfId);
  return { normalised, model };
}

/**
 * Speed-test runs: dry-run and submit (validated, checked on the hub, one per user and
 * window, safe to retry with an Idempotency-Key), and the results list with its exports.
 */
export function createSpeedTestsService(
  deps: ServiceDeps &
    Transactional & {
      idempotency: IdempotencyService;
      windows: SubmissionWindowService;
      models: ModelsService;
      reads: SpeedTestReads;
      replications: ReplicationsService;
      resultsList: ResultsListReads;
    },
) {
  const { profile, reads, windows, models, replications, withTransaction } = deps;
  const submissionRule = profile.speedTests.submissionLimit;

  const validate = async (submission: SpeedTestSubmission) => {
    await replications.assertTarget(submission.replicates);
    return validateSubmission(profile, models, submission);
  };

  /** One approved run's stored document; `viewerId` fills `myEmoji`. */
  async function getDocument(id: string, viewerId: string | null = null): Promise<SpeedTestDocumentRow> {
    const [row] = await reads.findDocuments((q) => q.where('r.id', id).where('r.status', 'APPROVED'), undefined, viewerId);
    if (!row) throw new NotFound(messages.speedTestNotFound);
    return row;
  }

  return {
    getDocument,

    async get(id: string, viewerId: string | null = null): Promise<SpeedTestRun> {
      return toSpeedTestRun(profile, await getDocument(id, viewerId));
    },

    /** The whole validation of a real submission, hub included, and the normalised payload; writes nothing. */
    async dryRun(submission: SpeedTestSubmission, userId: string | null = null) {
      const { normalised, model } = await validate(submission);
      const summary = resolvedModelSummary(model);
      // The verdict the run would get, so an agent sees a doubtful figure before submitting it.
      const judged = await judgeSubmission(deps.db, normalised, await models.verdictFacts(model), { userId });
      const { parsed, verification } = dryRunParts(profile, normalised);
      return {
        valid: true as const,
        parsed: { ...parsed, hfId: summary.hfId, model: summary },
        plausibility: { verdict: plausibilityOf(judged.verdict), decodeBoundTokS: judged.decodeBoundTokS, reason: judged.reason },
        verdict: verdictObject(judged),
        ...verification,
      };
    },

    /**
     * Stores a run (APPROVED at once): validated and checked on the hub first, then in one
     * transaction the user's submission window is claimed, the model catalogued if new and
     * the run written. With an Idempotency-Key a retry gets the first answer again without
     * writing or using the window.
     */
    async submit(
      userId: string,
      submission: SpeedTestSubmission,
      idempotency?: { key: string; requestHash: string },
    ): Promise<SubmissionResult> {
      const {
        answer: run,
        replayed,
        rateLimit,
      } = await submitInWindow(deps, {
        userId,
        rule: submissionRule,
        scope: IDEMPOTENCY_SCOPE,
        idempotency,
        prepare: () => validate(submission),
        store: async (trx, { normalised, model }, now) => {
          const inTransaction = withTransaction(trx);
          const modelRow = await inTransaction.models.catalogueIfNew(model);
          const id = await inTransaction.runWriter.store({ normalised, model: modelRow, userId, createdAt: now });
          return (await inTransaction.reads.find((q) => q.where('r.id', id)))[0]!;
        },
      });
      return { run, replayed, rateLimit };
    },

    /** What the submit form shows: may this user submit now, and if not, when. */
    windowState(userId: string): Promise<WindowState> {
      return windows.state(userId, submissionRule);
    },

    ...deps.resultsList,
  };
}

export type SpeedTestWriter = ReturnType<typeof createSpeedTestWriter>;
