import type { Db } from '../knex.ts';
import type { Clock } from '../../lib/clock.ts';
import { bitsPerWeight } from '../../lib/roofline.ts';
import type { RevisionProfile } from '../../revisions.ts';
import {
  suiteRegistrationSchema,
  type QualityItem,
  type QualityRunSubmission,
  type SuiteRegistration,
  type SuiteTask,
} from '../../schemas/quality.schema.ts';
import { createQualityRunWriter, scoreRun } from '../../services/quality-runs.service.ts';
import { suitesWithCreator } from '../../services/quality-suites.service.ts';
import type { ModelRow } from '../../services/models.service.ts';
import { demoSuiteBodies } from './demo-suites.ts';
import { random } from './demo-runs.ts';

/**
 * Demo quality data for the quick start: the demo suites, approved (two official), and
 * quality runs for model + quantization + hardware combinations the demo speed runs
 * measured, so the suite pages, the quality-vs-speed chart and the model pages are alive.
 * Scores grow with model size and shrink with fewer bits per weight; CUSTOM runs carry a
 * trace per item (the server re-scores them like any upload). A few runs stay PENDING so
 * the admin queue has work. Deterministic and idempotent (skipped once the suites exist).
 */

/** Sizes of the lm-eval tasks' test sets, as their nSamples. */
const LM_EVAL_SAMPLES: Record<string, number> = { arc_challenge: 1172, hellaswag: 10042, mmlu: 14042, winogrande: 1267, gsm8k: 1319 };
/** How hard each lm-eval task is relative to the model's ability (added to it). */
const LM_EVAL_OFFSET: Record<string, number> = { arc_challenge: -0.12, hellaswag: 0.08, mmlu: -0.08, winogrande: 0.05, gsm8k: -0.15 };

const clamp = (value: number, low: number, high: number) => Math.min(high, Math.max(low, value));

/** A model's chance of getting an item right: from its size (billions), less a penalty for coarse quantization. */
function ability(model: ModelRow, quantization: string): number {
  const size = clamp(0.32 + 0.1 * Math.log2(Math.max(model.params ?? 1, 0.5)), 0.3, 0.93);
  const bits = bitsPerWeight(quantization) ?? 16;
  const penalty = bits >= 8 ? 0 : bits >= 6 ? 0.006 : bits >= 5 ? 0.012 : bits >= 4 ? 0.03 : 0.07;
  return size - penalty;
}

interface Combination {
  model: ModelRow;
  quantization: string;
  hardware: Record<string, unknown>;
}

export async function seedDemoQuality(
  db: Db,
  profile: RevisionProfile,
  clock: Pick<Clock, 'now'>,
  { combinations = 24, seed = 20261123 } = {},
): Promise<{ suites: number; runs: number }> {
  if (!profile.quality) return { suites: 0, runs: 0 };
  if (await db('quality_suites').where({ slug: demoSuiteBodies[0].slug }).first('id')) return { suites: 0, runs: 0 };
  const demoUsers: { id: string }[] = await db('users').where({ is_demo: true }).orderBy('username').select('id');
  if (demoUsers.length === 0) return { suites: 0, runs: 0 };
  const rng = random(seed);
  const now = clock.now();

  // Distinct setups the demo speed runs measured, most measured first.
  const measured = await db('speed_test_runs as r')
    .join('models as m', 'm.id', 'r.model_id')
    .join('hardware_profiles as h', 'h.id', 'r.hardware_id')
    .join('users as u', 'u.id', 'r.user_id')
    .where({ 'r.status': 'APPROVED', 'u.is_demo': true })
    .whereNotNull('m.params')
    .groupBy('r.model_id', 'r.quantization', 'r.hardware_id', 'h.details')
    .orderByRaw('count(*) desc, r.model_id, r.quantization, r.hardware_id')
    .limit(combinations)
    .select('r.model_id', 'r.quantization', 'h.details');
  const models = new Map<string, ModelRow>(
    (await db('models').whereIn('id', [...new Set(measured.map((row) => row.model_id))])).map((row: ModelRow) => [row.id, row]),
  );
  const picked: Combination[] = measured.map((row) => ({
    model: models.get(row.model_id)!,
    quantization: row.quantization,
    hardware: row.details,
  }));

  return db.transaction(async (trx) => {
    const schema = suiteRegistrationSchema(profile);
    for (const [index, body] of demoSuiteBodies.entries()) {
      const suite = schema.parse(body) as SuiteRegistration;
      await trx('quality_suites').insert({
        slug: suite.slug,
        name: suite.name,
        description: suite.description ?? null,
        category: suite.category,
        runner: suite.runner,
        version: suite.version,
        source_url: suite.sourceUrl ?? null,
        suite_doc: JSON.stringify(suite.suiteDoc),
        task_keys: suite.suiteDoc.tasks.map((task) => task.key),
        item_count: suite.suiteDoc.tasks.reduce(
          (sum, task) => sum + (task.dataset?.source === 'inline' ? task.dataset.items.length : 0),
          0,
        ),
        official: index !== 1,
        status: 'APPROVED',
        created_by: demoUsers[0]!.id,
        reviewed_at: now,
        created_at: now,
        updated_at: now,
      });
    }

    const writer = createQualityRunWriter({ db: trx });
    let runs = 0;
    for (const body of demoSuiteBodies) {
      const row = (await suitesWithCreator(trx).where('s.slug', body.slug).first())!;
      const suite = { row, doc: row.suite_doc };
      for (const [index, { model, quantization, hardware }] of picked.entries()) {
        const skill = ability(model, quantization);
        const results: QualityRunSubmission['results'] = {};
        const artifacts: NonNullable<QualityRunSubmission['artifacts']> = [];
        for (const task of suite.doc.tasks) {
          if (task.dataset?.source !== 'inline') {
            const chance = clamp(skill + (LM_EVAL_OFFSET[task.key] ?? 0) + rng.between(-0.02, 0.02), 0.2, 0.97);
            results[task.key] = { score: Math.round(chance * 10_000) / 10_000, nSamples: LM_EVAL_SAMPLES[task.key], nShots: task.nShots };
            continue;
          }
          let right = 0;
          task.dataset.items.forEach((item: QualityItem, itemIndex: number) => {
            const correct = rng.next() < skill;
            right += correct ? 1 : 0;
            const gold = Array.isArray(item.gold) ? item.gold[0] : item.gold;
            const response =
              task.taskType === 'multiple_choice'
                ? `Answer: ${correct ? gold : gold === 'A' ? 'B' : 'A'}`
                : `Let me work it out.\nFinal answer: ${correct ? gold : Number(gold) + 1}`;
            artifacts.push({
              taskKey: task.key,
              itemIndex,
              question: item.input,
              response,
              score: correct ? 1 : 0,
              latencyMs: Math.round(rng.between(150, 2500)),
            });
          });
          results[task.key] = { score: right / task.dataset.items.length, nSamples: task.dataset.items.length, nShots: task.nShots ?? 0 };
        }
        const submission = {
          suiteSlug: body.slug,
          hfId: model.hf_id,
          hardware,
          quantization,
          modelRevision: 'main',
          results,
          artifacts,
          notes: 'Demo run: sample data generated for the quick start.',
        } as unknown as QualityRunSubmission;
        const scores = scoreRun(
          suite.doc,
          submission,
          new Map(
            suite.doc.tasks.flatMap((task: SuiteTask) =>
              task.dataset?.source === 'inline' ? [[task.key, task.dataset.items] as const] : [],
            ),
          ),
        );
        const createdAt = new Date(now.getTime() - rng.between(0, 60) * 86_400_000);
        // Every eighth stays pending, for the admin queue.
        await writer.store(
          rng.pick(demoUsers).id,
          submission,
          { suite, scores, modelRow: model },
          createdAt,
          index % 8 === 7 ? 'PENDING' : 'APPROVED',
        );
        runs += 1;
      }
    }
    return { suites: demoSuiteBodies.length, runs };
  });
}
