import { recipeOf } from '../runs/submission/recipe.ts';
import { judgeRun } from '../lib/peer-verdict.ts';
import { activeSequences } from '../lib/labels.ts';
import { demoModels } from '../db/seeds/demo-models.ts';
import { parseCommandSnippet } from '../lib/command-snippet.ts';
import { speedTestFacets } from '../runs/submission/run-facts.ts';
import { dryRunParts, normaliseSubmission } from '../runs/submission/normalise.ts';
import { hwClasses, type HwClass } from '../constants.ts';
import type { MetricField, RevisionProfile } from '../revisions.ts';
import { runVerdict } from '../runs/submission/verdict.ts';
import { runResponseSchemas } from '../schemas/responses.schema.ts';

/**
 * Worked examples for agents: a minimal and a full submission per hardware class, a parsed
 * launch command and ready-to-run curl calls. Each is written once (revision 3's full form)
 * and cut down to what a revision accepts by asking its profile, so every example is a
 * valid submission of the revision it is shown in (the contract tests dry-run them all).
 * The models are in the demo catalogue, so they also pass on an offline deployment.
 */

type Body = Record<string, unknown>;

/** Minimal: the required fields, plus whatever the revision's metric rule asks for beyond `tokSOut`. */
const MINIMAL: Record<HwClass, { body: Body; metrics: Partial<Record<MetricField, number>> }> = {
  DISCRETE_GPU: {
    body: {
      hfId: 'Qwen/Qwen3-8B',
      hardware: { hwClass: 'DISCRETE_GPU', gpuName: 'NVIDIA GeForce RTX 4090', vramGb: 24 },
      engineName: 'llama.cpp',
      quantization: 'Q4_K_M',
      tokSOut: 128.4,
    },
    metrics: { ttftMs: 95, tokSPrefill: 4210, tokSTotal: 131.2, peakVramGb: 6.1 },
  },
  UNIFIED: {
    body: {
      hfId: 'Qwen/Qwen3-30B-A3B',
      hardware: { hwClass: 'UNIFIED', chipVendor: 'Apple', chipFamily: 'M4', chipVariant: 'Max', unifiedMemoryGb: 128 },
      engineName: 'mlx',
      quantization: '4bit',
      tokSOut: 84.7,
    },
    metrics: { ttftMs: 310, tokSPrefill: 1180, tokSTotal: 88.9, peakVramGb: 17.4 },
  },
  CPU_ONLY: {
    body: {
      hfId: 'Qwen/Qwen3-8B',
      hardware: { hwClass: 'CPU_ONLY', cpu: 'AMD Ryzen 9 7950X', ramGb: 64 },
      engineName: 'llama.cpp',
      quantization: 'Q4_K_M',
      tokSOut: 11.6,
    },
    metrics: { ttftMs: 2150, tokSPrefill: 96.5, tokSTotal: 12.4, peakVramGb: 5.4 },
  },
};

/** Full: every field a revision-3 submission can carry. */
const FULL: Record<HwClass, Body> = {
  DISCRETE_GPU: {
    hfId: 'Qwen/Qwen3-8B',
    modelRevision: 'main',
    hardware: {
      hwClass: 'DISCRETE_GPU',
      gpus: [
        { gpuName: 'NVIDIA GeForce RTX 4090', count: 1, vramGb: 24 },
        { gpuName: 'NVIDIA GeForce RTX 3090', count: 1, vramGb: 24 },
      ],
      cpu: 'AMD Ryzen 9 7950X',
      ramGb: 64,
      os: 'Ubuntu 24.04',
      powerWatts: 800,
    },
    engineName: 'llama.cpp',
    engineVersion: 'b6120',
    engineRepository: 'https://github.com/ggml-org/llama.cpp',
    engineBuild: 'cmake -DGGML_CUDA=ON -DCMAKE_BUILD_TYPE=Release',
    engineCommit: '4f3a9c2',
    backend: 'cuda',
    quantization: 'Q4_K_M',
    tokSOut: 112.3,
    tokSPrefill: 3890,
    tokSTotal: 119.8,
    ttftMs: 140,
    peakVramGb: 7.2,
    promptTokens: 512,
    outputTokens: 256,
    contextLength: 8192,
    batchSize: 1,
    prefillTokens: 0,
    gpuPowerWatts: [285.5, 241],
    powerSource: 'measured',
    hardwareCost: [
      { component: 'NVIDIA GeForce RTX 4090', condition: 'NEW', yearPurchased: 2023, price: 1599, currency: 'USD' },
      { component: 'NVIDIA GeForce RTX 3090', condition: 'USED', yearPurchased: 2024, price: 650, currency: 'EUR' },
    ],
    notes: 'llama-bench style: 3 warm-up runs discarded, median of 10; power from nvidia-smi at 1 Hz.',
    engineFlags: {
      commandSnippet: 'llama-server -m Qwen3-8B-Q4_K_M.gguf -ngl 99 -fa -c 8192 -ctk q8_0 --split-mode layer --parallel 1 --temp 0',
      cpuLayers: 0,
      contBatching: true,
    },
  },
  UNIFIED: {
    hfId: 'Qwen/Qwen3-30B-A3B',
    modelRevision: 'main',
    hardware: {
      hwClass: 'UNIFIED',
      chipVendor: 'Apple',
      chipFamily: 'M4',
      chipVariant: 'Max',
      unifiedMemoryGb: 128,
      cpu: 'Apple M4 Max (16-core CPU)',
      os: 'macOS 15.5',
      powerWatts: 140,
    },
    engineName: 'mlx',
    engineVersion: '0.26.1',
    backend: 'metal',
    quantization: '4bit',
    tokSOut: 84.7,
    tokSPrefill: 1180,
    tokSTotal: 88.9,
    ttftMs: 310,
    peakVramGb: 17.4,
    promptTokens: 1024,
    outputTokens: 512,
    contextLength: 4096,
    batchSize: 1,
    prefillTokens: 0,
    hardwareCost: [{ component: 'Apple M4 Max', condition: 'NEW', yearPurchased: 2025, price: 4699, currency: 'USD' }],
    notes: 'mlx_lm.generate, warm-up run discarded, median of 5.',
    engineFlags: {
      commandSnippet: 'mlx_lm.generate --model mlx-community/Qwen3-30B-A3B-4bit --max-tokens 512 --temp 0.0',
      kvCacheDtype: 'fp16',
    },
  },
  CPU_ONLY: {
    hfId: 'Qwen/Qwen3-8B',
    modelRevision: 'main',
    hardware: { hwClass: 'CPU_ONLY', cpu: 'AMD Ryzen 9 7950X', ramGb: 64, os: 'Debian 12' },
    engineName: 'llama.cpp',
    engineVersion: 'b6120',
    engineCommit: '4f3a9c2',
    backend: 'cpu',
    quantization: 'Q4_K_M',
    tokSOut: 11.6,
    tokSPrefill: 96.5,
    tokSTotal: 12.4,
    ttftMs: 2150,
    peakVramGb: 5.4,
    promptTokens: 512,
    outputTokens: 128,
    contextLength: 4096,
    batchSize: 1,
    prefillTokens: 2048,
    hardwareCost: [{ component: 'AMD Ryzen 9 7950X', condition: 'USED', yearPurchased: 2024, price: 420, currency: 'EUR' }],
    notes: 'DDR5-6000 dual channel; 16 threads; prompt evaluated after a 2048-token prefix already in the KV cache.',
    engineFlags: {
      commandSnippet: 'llama-server -m Qwen3-8B-Q4_K_M.gguf -t 16 -c 4096 --temp 0 --top-k 40',
      gpuLayers: 0,
    },
  },
};

/**
 * A throughput run: several requests in flight, so tokSOut is their aggregate output. It is
 * stored as it is, ranked among runs of as many streams (revision 3: batchSize x
 * concurrency), marked on every page, and not held to one stream's roofline.
 */
const THROUGHPUT: Body = {
  hfId: 'Qwen/Qwen3-8B',
  hardware: { hwClass: 'DISCRETE_GPU', gpuName: 'NVIDIA GeForce RTX 4090', vramGb: 24, os: 'Ubuntu 24.04' },
  engineName: 'vllm',
  engineVersion: '0.10.1',
  backend: 'cuda',
  quantization: 'AWQ',
  tokSOut: 410,
  ttftMs: 95,
  promptTokens: 512,
  outputTokens: 256,
  contextLength: 8192,
  batchSize: 1,
  notes: 'vllm bench serve --max-concurrency 8 --num-prompts 200: aggregate output tok/s of 8 concurrent requests.',
  engineFlags: {
    commandSnippet: 'vllm serve Qwen/Qwen3-8B-AWQ --max-model-len 8192 --gpu-memory-utilization 0.9',
    concurrency: 8,
  },
};

/** A launch command and what the server reads from it (parsed live, so it never drifts from the parser). */
const COMMAND_EXAMPLE = {
  engineName: 'vllm',
  commandSnippet:
    'vllm serve Qwen/Qwen3-8B --tensor-parallel-size 2 --gpu-memory-utilization 0.9 --kv-cache-dtype fp8 --enable-prefix-caching --max-num-seqs 64 --max-model-len 8192',
};

/** `body` without what the revision does not accept, and with what its metric rule needs. */
function forRevision(profile: RevisionProfile, body: Body, metrics: Partial<Record<MetricField, number>> = {}): Body {
  const copy = structuredClone(body);
  for (const field of profile.speedTests.revisionOnlyFields) delete copy[field];
  const flags = copy.engineFlags as Body | undefined;
  if (flags) for (const flag of profile.speedTests.engineFlagFieldsUnavailable) delete flags[flag];
  const rule = profile.speedTests.metricRule;
  if (rule.kind === 'requiredPlusOneOf' && !rule.oneOf.some((field) => copy[field] !== undefined)) {
    const field = rule.oneOf.find((f) => metrics[f] !== undefined && !profile.speedTests.revisionOnlyFields.includes(f as never));
    if (field) copy[field] = metrics[field];
  }
  if (rule.kind === 'anyOf' && !rule.fields.some((field) => copy[field] !== undefined)) {
    const field = rule.fields.find((f) => metrics[f] !== undefined);
    if (field) copy[field] = metrics[field];
  }
  return copy;
}

export interface SubmissionExamples {
  minimal: Record<HwClass, Body>;
  full: Record<HwClass, Body>;
  throughput: Body;
}

export function submissionExamples(profile: RevisionProfile): SubmissionExamples {
  const minimal = Object.fromEntries(
    hwClasses.map((hwClass) => [hwClass, forRevision(profile, MINIMAL[hwClass].body, MINIMAL[hwClass].metrics)]),
  );
  const full = Object.fromEntries(hwClasses.map((hwClass) => [hwClass, forRevision(profile, FULL[hwClass])]));
  return { minimal, full, throughput: forRevision(profile, THROUGHPUT) } as SubmissionExamples;
}

export function commandSnippetExample() {
  const parsed = parseCommandSnippet(COMMAND_EXAMPLE.commandSnippet, COMMAND_EXAMPLE.engineName);
  return {
    ...COMMAND_EXAMPLE,
    parsed,
    note: "Send the launch command as engineFlags.commandSnippet: the server fills the engine flags above from it, and the top-level fields it states (contextLength, llama-bench's promptTokens, outputTokens and prefillTokens) when the body leaves them out; hfId and engineName must still be sent. A field you send explicitly always wins over the parsed value; numParallel feeds concurrency and specDraftModel feeds specModel. Flags it does not know are listed as unrecognised and kept in the snippet. Fields neither sent nor read get the spec's defaults and are listed in defaultedFields.",
  };
}

/** Single quotes inside a shell single-quoted string. */
const shellQuote = (text: string) => `'${text.replace(/'/g, `'\\''`)}'`;

export function curlExample(method: 'POST', url: string, body: Body, headers: Record<string, string> = {}): string {
  const lines = [
    `curl -sS -X ${method} ${shellQuote(url)}`,
    `  -H 'Authorization: Bearer bhk_<40 hex characters>'`,
    `  -H 'Content-Type: application/json'`,
    ...Object.entries(headers).map(([name, value]) => `  -H ${shellQuote(`${name}: ${value}`)}`),
    `  -d ${shellQuote(JSON.stringify(body))}`,
  ];
  return lines.join(' \\\n');
}

const EXAMPLE_IDS = {
  run: '6f1d2c3b-4a59-4e68-8b7a-1c2d3e4f5a6b',
  model: '0b8e7d6c-5f4a-4b3c-9d2e-1f0a9b8c7d6e',
  hardware: '2a3b4c5d-6e7f-4a8b-9c0d-1e2f3a4b5c6d',
  engine: '7c6b5a49-3827-4165-a4b3-c2d1e0f9a8b7',
  user: '9e8d7c6b-5a49-4382-b716-05f4e3d2c1b0',
};

const round = (n: number) => Math.round(n * 1000) / 1000;

/**
 * What the API answers for the full DISCRETE_GPU example: its dry-run and the stored run.
 * Computed with the same normalisation, facets and roofline as a real submission, and cut
 * to the revision like real answers (the contract tests hold them to the documented schemas).
 */
export function answerExamples(profile: RevisionProfile) {
  const normalised = normaliseSubmission(profile, submissionExamples(profile).full.DISCRETE_GPU);
  const demo = demoModels.find((m) => m.hfId === normalised.hfId)!;
  const model = {
    id: EXAMPLE_IDS.model,
    hfId: demo.hfId,
    displayName: demo.hfId.split('/')[1]!,
    family: demo.family,
    params: demo.params,
    paramsApproximate: false,
    activeParams: demo.activeParams ?? null,
    isMoE: demo.isMoE ?? false,
    baseHfId: demo.base?.hfId ?? null,
    baseRelation: demo.base?.relation ?? null,
  };
  const row = { params: model.params, active_params: model.activeParams, is_moe: model.isMoE, family: model.family };
  const facets = speedTestFacets(normalised, row, false);
  const verdict = runVerdict({
    ...normalised,
    tokSOut: normalised.tokSOut ?? null,
    engineFlags: normalised.engineFlags,
    model: row,
    hardware: normalised.hardware,
  });
  const tokSOut = normalised.tokSOut ?? null;
  // As if three other users' runs of the same setup were on the board, near this one.
  const peerSpeeds = tokSOut === null ? [] : [0.92, 0.97, 1.04].map((share) => ({ tokSOut: round(share * tokSOut) }));
  const exampleVerdict = judgeRun({ tokSOut, roofline: verdict, comparable: true }, { setup: peerSpeeds, device: [] });
  const per = (divisor: number | null) => (tokSOut !== null && divisor ? round(tokSOut / divisor) : null);
  const engine: Record<string, unknown> = {
    id: EXAMPLE_IDS.engine,
    name: normalised.engineName,
    version: normalised.engineVersion ?? null,
    repository: normalised.engineRepository ?? null,
    build: normalised.engineBuild ?? null,
    commit: normalised.engineCommit ?? null,
  };
  // What a stored run shows beyond its submitted fields; every other field of the
  // revision's run schema is the normalised submission's own value (or null).
  const stored: Record<string, unknown> = {
    id: EXAMPLE_IDS.run,
    modelId: model.id,
    hardwareId: EXAMPLE_IDS.hardware,
    engineId: EXAMPLE_IDS.engine,
    userId: EXAMPLE_IDS.user,
    status: 'APPROVED',
    createdAt: '2026-01-31T12:00:00.000Z',
    hfId: model.hfId,
    model,
    hardware: { id: EXAMPLE_IDS.hardware, ...normalised.hardware },
    engine: profile.speedTests.revision3Fields ? engine : { id: engine.id, name: engine.name, version: engine.version },
    user: { id: EXAMPLE_IDS.user, username: 'example-agent', displayName: 'Example agent', verified: false, demo: false },
    demo: false,
    tokPerWatt: per(facets.power_watts),
    tokPerDollar: per(facets.hardware_cost_usd),
    plausibility: verdict.plausibility,
    decodeBoundTokS: verdict.boundTokS,
    plausibilityReason: verdict.reason,
    verdict: exampleVerdict,
    reactionCounts: { fire: 2, rocket: 1 },
    streams: activeSequences(normalised as Record<string, unknown>),
    recipe: recipeOf({ ...normalised, hfId: model.hfId }),
    // A new run has no replications yet (another user's run of its recipe on its device would be one).
    replications: { count: 0, minTokS: null, maxTokS: null, spread: null, runs: [] },
    myEmoji: null,
  };
  const submitted = normalised as Record<string, unknown>;
  const run = Object.fromEntries(
    Object.keys(runResponseSchemas(profile).run.shape).map((field) => [
      field,
      field in stored ? stored[field] : (submitted[field] ?? null),
    ]),
  );
  const { parsed, verification } = dryRunParts(profile, normalised);
  const dryRun = {
    valid: true,
    parsed: { ...parsed, model: { ...model, catalogued: true } },
    plausibility: { verdict: verdict.plausibility, decodeBoundTokS: verdict.boundTokS, reason: verdict.reason },
    verdict: exampleVerdict,
    ...verification,
  };
  return { run, dryRun };
}
