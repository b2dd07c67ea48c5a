import { z } from 'zod';
import { hwClasses } from '../constants.ts';
import { documentedAs } from './json-schema.ts';
import { queryText, wholeNumber } from './query-params.ts';

/** A positive memory size in GB, sent as text ("24", "24.5"). */
const memoryGb = () =>
  documentedAs(
    z
      .string({ error: 'Must be given once' })
      .regex(/^\d{1,5}(\.\d{1,3})?$/, 'Must be a number of GB')
      .transform(Number)
      .pipe(z.number().gt(0, 'Must be above 0').max(100_000, 'Must be at most 100000')),
    { type: 'number', exclusiveMinimum: 0, maximum: 100_000 },
  );

/**
 * `GET /api/predictions` and the "Will it run?" page: a model (any spelling the model box
 * takes), a quantization and a device: `hardwareName` (any name the hardware resolver reads) or
 * `hwClass` with the device fields of a submission's hardware.
 */
export const predictionQuerySchema = z
  .strictObject({
    hfId: queryText(256),
    quantization: queryText(64),
    hardwareName: queryText(256).optional(),
    hwClass: z.enum(hwClasses, { error: `Must be one of ${hwClasses.join(', ')}` }).optional(),
    gpuName: queryText(256).optional(),
    gpuCount: wholeNumber(1, 64).optional(),
    vramGb: memoryGb().optional(),
    chipVendor: queryText(64).optional(),
    chipFamily: queryText(128).optional(),
    chipVariant: queryText(64).optional(),
    unifiedMemoryGb: memoryGb().optional(),
    cpu: queryText(256).optional(),
    ramGb: memoryGb().optional(),
    engineName: queryText(64).optional(),
    contextDepth: wholeNumber(0, 2_000_000).optional(),
    concurrency: wholeNumber(1, 4096).optional(),
  })
  .superRefine((query, ctx) => {
    if (query.hardwareName === undefined && query.hwClass === undefined)
      ctx.addIssue({ code: 'custom', path: ['hardwareName'], message: 'Give hardwareName, or hwClass with the device fields' });
    if (query.hwClass === 'DISCRETE_GPU' && !query.gpuName)
      ctx.addIssue({ code: 'custom', path: ['gpuName'], message: 'Required with hwClass DISCRETE_GPU' });
    if (query.hwClass === 'UNIFIED' && !query.chipFamily)
      ctx.addIssue({ code: 'custom', path: ['chipFamily'], message: 'Required with hwClass UNIFIED' });
    if (query.hwClass === 'CPU_ONLY' && !query.cpu)
      ctx.addIssue({ code: 'custom', path: ['cpu'], message: 'Required with hwClass CPU_ONLY' });
  });

export type PredictionQuery = z.output<typeof predictionQuerySchema>;

export const predictionParameterDescriptions: Record<string, string> = {
  hfId: 'The model: a Hugging Face id or any words the leaderboard\'s model box takes ("llama 3.1 8b instruct").',
  quantization: 'The quantization label as runs give it (Q4_K_M, "Q4_K - Medium", AWQ, MXFP4, 4bit...).',
  hardwareName:
    'The device as people or tools write it ("RTX 4090", "M3 Max", "AMD Ryzen 9 7950X"); or give hwClass and the device fields.',
  hwClass: 'DISCRETE_GPU, UNIFIED or CPU_ONLY, with gpuName, chipFamily (and chipVendor, chipVariant) or cpu.',
  gpuName: 'With hwClass DISCRETE_GPU: the card.',
  gpuCount: 'Cards (default 1); a count in the name ("2x RTX 3090") counts too.',
  vramGb: 'Memory per card, GB (chooses the memory variant; default: the sizes the card is sold with).',
  chipVendor: 'With hwClass UNIFIED: the chip vendor (Apple, AMD, NVIDIA...).',
  chipFamily: 'With hwClass UNIFIED: the chip family (M4, Ryzen AI Max+...).',
  chipVariant: 'With hwClass UNIFIED: the tier (Pro, Max, 395...).',
  unifiedMemoryGb: 'Unified memory, GB (chooses the bin; default: the sizes the chip is sold with).',
  cpu: 'With hwClass CPU_ONLY: the CPU.',
  ramGb: 'With hwClass CPU_ONLY: system memory, GB (without it, `fits` is null).',
  engineName: 'The engine (llama.cpp, vllm, mlx...): its own efficiency where runs show it.',
  contextDepth:
    'Tokens of context held while decoding (the prompt so far, as prefillTokens): deeper reads more KV cache per token and needs more memory. Default 0.',
  concurrency: "Sequences held at once: the KV cache is held for each (the memory answer); the speed is one stream's. Default 1.",
};

const interval = z.object({
  estimate: z.number(),
  low: z.number(),
  high: z.number(),
  level: z.literal(0.8),
});

export const trackRecordSchema = z
  .object({
    count: z.int().min(0),
    medianAbsError: z.number().nullable(),
    intervalHitRate: z.number().nullable(),
  })
  .meta({
    description:
      'How well earlier predictions matched runs measured later on the same setup (model weights, quantization, device, cards): how many, the median of |estimate − measured| ÷ measured, and the share inside the 80% interval.',
  });

export const predictionResponseSchema = z.object({
  prediction: z.object({
    kind: z.literal('prediction').meta({ description: 'Always "prediction": this is an estimate, never a measured run.' }),
    tokSOut: interval.meta({ description: 'Single-stream decode tok/s: the estimate and its 80% interval.' }),
    tokSPrefill: interval
      .optional()
      .meta({ description: 'Prefill tok/s, where the device has a catalogued FP16 peak and runs report prefill.' }),
    ttftMs: interval.optional().meta({ description: 'Time to first token for `contextDepth` prompt tokens, with tokSPrefill.' }),
    fits: z.boolean().nullable().meta({
      description:
        'Whether weights, KV cache at the depth and runtime buffers fit the memory (VRAM × cards, unified memory or RAM); null when the memory is not known or the answer depends on which size it is.',
    }),
    memoryNeededGb: z.number(),
    memoryAvailableGb: z.object({ min: z.number(), max: z.number() }).nullable(),
  }),
  setup: z.object({
    model: z.object({ hfId: z.string(), displayName: z.string(), paramsB: z.number(), activeParamsB: z.number() }),
    quantization: z.string(),
    bitsPerWeight: z.number(),
    device: z.object({ name: z.string(), slug: z.string(), hwClass: z.enum(hwClasses), cards: z.int() }),
    memoryBandwidthGBs: z.number(),
    decodeBoundTokS: z.number().meta({ description: 'The roofline: bandwidth ÷ bytes read per token.' }),
    engineName: z.string().nullable(),
    contextDepth: z.int(),
    concurrency: z.int(),
  }),
  basis: z.object({
    method: z.string(),
    runs: z.int().min(0).meta({ description: 'Approved single-stream plausible runs the model was fitted on.' }),
    similar: z
      .array(z.string())
      .meta({ description: 'Ids of the runs the estimate leaned on most (the same setup, else the same device).' }),
  }),
  trackRecord: trackRecordSchema,
});

export type PredictionAnswer = z.output<typeof predictionResponseSchema>;
