import { demoSuiteBodies } from '../db/seeds/demo-suites.ts';
import type { RevisionProfile } from '../revisions.ts';
import { example, type Example } from '../api/operation.ts';

/**
 * Worked quality examples for the documents: suite registrations (one per runner, the demo
 * suites themselves), a run upload with traces, a sharded dataset and typical field
 * errors. The demo seed registers the same suites, so an example run dry-runs against a
 * fresh demo deployment.
 */

type Body = Record<string, unknown>;

const [arithmetic, commonsense, lmEval] = demoSuiteBodies;

/** A run of the arithmetic suite: 11 of 12 right, with two of its traces. */
export const exampleQualityRun: Body = {
  suiteSlug: arithmetic.slug,
  hfId: 'Qwen/Qwen3-8B',
  hardware: { hwClass: 'DISCRETE_GPU', gpuName: 'NVIDIA GeForce RTX 4090', vramGb: 24 },
  quantization: 'Q4_K_M',
  quantFormat: 'gguf',
  runnerVersion: 'llm-bench 0.3.0',
  results: { arithmetic: { score: 0.9167, nShots: 0, nSamples: 12 } },
  runConfig: { temperature: 0, engine: 'llama.cpp b5200' },
  executionMode: 'CUSTOM_LOCAL',
  artifacts: [
    {
      taskKey: 'arithmetic',
      itemIndex: 0,
      question: arithmetic.suiteDoc.tasks[0].dataset.items[0].input,
      response: '17 + 25 = 42.\nFinal answer: 42',
      score: 1,
      latencyMs: 412,
    },
    {
      taskKey: 'arithmetic',
      itemIndex: 5,
      question: arithmetic.suiteDoc.tasks[0].dataset.items[5].input,
      response: '15% of 200 is 3.\nFinal answer: 3',
      score: 0,
      latencyMs: 388,
    },
  ],
};

export function qualityExamples(profile: RevisionProfile) {
  const suiteBodies: Record<string, Example> = {
    custom: example('CUSTOM: arithmetic QA with inline items', arithmetic),
    multipleChoice: example('CUSTOM: multiple choice, weighted tasks', commonsense),
    lmEval: example('LM_EVAL_HARNESS: lm-eval task keys, no items', lmEval),
  };
  if (profile.quality?.submissions) {
    suiteBodies.shard = example('CUSTOM: a task reading an approved (or your own) sharded dataset', {
      ...arithmetic,
      slug: 'arithmetic-from-shards',
      suiteDoc: {
        ...arithmetic.suiteDoc,
        tasks: [{ ...arithmetic.suiteDoc.tasks[0], dataset: { source: 'shard', datasetSlug: 'arithmetic-shards' } }],
      },
    });
  }
  return {
    suiteBodies,
    suiteAnswer: {
      id: '5d0b7c52-3f8e-4a8e-9d0e-2a1c3b4d5e6f',
      ...arithmetic,
      taskKeys: ['arithmetic'],
      taskCount: 1,
      itemCount: 12,
      scoring: { method: 'exact_match', aggregation: 'weighted_mean', higherIsBetter: true },
      runConfig: arithmetic.suiteDoc.runConfig,
      status: 'APPROVED',
      official: true,
      createdBy: { username: 'demo_ada', displayName: 'Ada (demo)' },
      runCount: 4,
      createdAt: '2026-11-01T09:00:00.000Z',
      updatedAt: '2026-11-01T10:00:00.000Z',
    },
    runBody: exampleQualityRun,
    datasetBody: {
      slug: 'arithmetic-shards',
      name: 'Arithmetic word problems (sharded)',
      license: 'CC-BY-4.0',
      shards: [
        { name: 'easy', items: arithmetic.suiteDoc.tasks[0].dataset.items.slice(0, 6) },
        { name: 'hard', items: arithmetic.suiteDoc.tasks[0].dataset.items.slice(6) },
      ],
    } as Body,
    suiteFieldErrors: {
      'suiteDoc.tasks.0.dataset.items.12.gold': ['Each item needs gold (the accepted answers) or a rubric'],
      'suiteDoc.tasks.1.promptTemplate': ['A CUSTOM suite task needs a prompt template containing {{input}}'],
    },
    runFieldErrors: {
      'results.arithmetic': ['Task scores are fractions in [0, 1]: divide a percentage by 100'],
      'results.algebra': ["Unknown task key: suite 'arithmetic-qa-mini' has no such task"],
    },
  };
}
