import request from 'supertest';
import { getRevisionProfile, type RevisionNumber } from '../../src/revisions.ts';
import type { TestContext } from './app.ts';
import { fakeHubModels } from './fake-hub.ts';
import type { Account } from './moderation.ts';

/**
 * Quality evaluation fixtures: suite bodies with known answers, run bodies that cover a
 * suite, and shortcuts to register, approve and submit through the API.
 */

type Body = Record<string, any>;

/** The revisions that have quality evaluations, with their roots. */
export const QUALITY_REVISIONS = ([2, 3] as const).map((revision) => ({ revision, root: getRevisionProfile(revision).quality!.root }));

let slugCounter = 0;
export function uniqueSlug(prefix = 'suite'): string {
  slugCounter += 1;
  return `${prefix}-${Date.now().toString(36)}-${slugCounter}`;
}

/** Four QA items with numeric answers, scored by the last number (SQuAD-normalised exact match). */
export const ARITHMETIC_ITEMS = [
  { input: 'What is 2 + 2?', gold: 4 },
  { input: 'What is 10 - 3?', gold: '7' },
  { input: 'What is 6 x 7?', gold: [42, 'forty-two'] },
  { input: 'What is 9 / 3?', gold: 3 },
];

/** A CUSTOM suite with an arithmetic QA task (weight 3) and a multiple-choice task (weight 1). */
export function customSuite(overrides: Body = {}): Body {
  // A fresh copy each time: tests edit the body they get.
  return structuredClone({
    slug: uniqueSlug('custom'),
    name: 'Arithmetic and colours',
    description: 'A test suite',
    category: 'math',
    runner: 'CUSTOM',
    suiteDoc: {
      version: '1.0',
      runner: 'custom',
      scoringMethod: 'exact_match',
      aggregation: 'weighted_mean',
      runConfig: { temperature: 0 },
      tasks: [
        {
          key: 'arith',
          displayName: 'Arithmetic',
          taskType: 'qa',
          weight: 3,
          promptTemplate: 'Q: {{input}}\nA:',
          answerExtraction: 'last_number',
          dataset: { source: 'inline', items: ARITHMETIC_ITEMS },
        },
        {
          key: 'colours',
          taskType: 'multiple_choice',
          weight: 1,
          promptTemplate: '{{input}}\n{{choices}}',
          dataset: {
            source: 'inline',
            items: [
              { input: 'Colour of the sky?', choices: ['Green', 'Blue'], gold: 'B' },
              { input: 'Colour of grass?', choices: ['Green', 'Red'], gold: 0 },
            ],
          },
        },
      ],
    },
    ...overrides,
  });
}

/** An lm-eval-harness suite: task keys only. */
export function lmEvalSuite(overrides: Body = {}): Body {
  return {
    slug: uniqueSlug('lmeval'),
    name: 'lm-eval pair',
    category: 'reasoning',
    runner: 'LM_EVAL_HARNESS',
    suiteDoc: {
      runner: 'lm-eval-harness',
      scoringMethod: 'exact_match',
      aggregation: 'mean',
      tasks: [{ key: 'hellaswag' }, { key: 'arc_challenge' }],
    },
    ...overrides,
  };
}

/** A run of `customSuite` covering both tasks. */
export function qualityRun(suiteSlug: string, overrides: Body = {}): Body {
  return {
    suiteSlug,
    hfId: fakeHubModels.dense,
    hardware: { hwClass: 'DISCRETE_GPU', gpuName: 'NVIDIA GeForce RTX 4090', vramGb: 24 },
    quantization: 'Q4_K_M',
    results: { arith: 0.75, colours: { score: 0.5, nShots: 0, nSamples: 2 } },
    ...overrides,
  };
}

export const bearer = (who: Account) => ({ Authorization: `Bearer ${who.key}` });

/** Registers a suite through the API; returns its 201 body. */
export async function registerSuite(ctx: TestContext, root: string, who: Account, body: Body): Promise<Body> {
  const res = await request(ctx.app).post(`${root}/suites`).set(bearer(who)).send(body);
  if (res.status !== 201) throw new Error(`suite registration failed with ${res.status}: ${JSON.stringify(res.body)}`);
  return res.body;
}

/** Marks a suite approved (the admin pages have their own tests). */
export async function approveSuite(ctx: TestContext, slug: string, { official = false } = {}): Promise<void> {
  await ctx
    .db('quality_suites')
    .where({ slug })
    .whereNot('status', 'WITHDRAWN')
    .update({ status: 'APPROVED', official, reviewed_at: ctx.db.fn.now() });
}

export async function registeredApprovedSuite(ctx: TestContext, root: string, who: Account, body: Body = customSuite()): Promise<Body> {
  const suite = await registerSuite(ctx, root, who, body);
  await approveSuite(ctx, suite.slug);
  return suite;
}

/** Submits a quality run (the clock moves past the user's quality window first); returns its 201 body. */
export async function submitQualityRun(ctx: TestContext, root: string, who: Account, body: Body): Promise<Body> {
  ctx.clock.advance(10 * 60_000);
  const res = await request(ctx.app).post(`${root}/runs`).set(bearer(who)).send(body);
  if (res.status !== 201) throw new Error(`quality run failed with ${res.status}: ${JSON.stringify(res.body)}`);
  return res.body;
}

/** Marks a run approved and counts it on its suite, as the admin action does. */
export async function approveQualityRun(ctx: TestContext, id: string): Promise<void> {
  const [run] = await ctx
    .db('quality_runs')
    .where({ id })
    .update({ status: 'APPROVED', reviewed_at: ctx.db.fn.now() })
    .returning('suite_id');
  await ctx.db('quality_suites').where({ id: run.suite_id }).increment('run_count', 1);
}

export type QualityRevision = { revision: RevisionNumber; root: string };
