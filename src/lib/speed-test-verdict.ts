import { memoryBandwidthUpperBoundOf, type HardwareForBandwidth } from './hardware-lookup.ts';
import { assessPlausibility, type RooflineVerdict } from './roofline.ts';

/** What the roofline needs to know about one run. */
export interface RunForVerdict {
  tokSOut: number | null;
  batchSize: number;
  quantization: string;
  engineFlags: { concurrency?: number; specDecoding?: boolean; mtpEnabled?: boolean } | null | undefined;
  model: { params: number | null; active_params: number | null; is_moe: boolean; native_bits_per_weight?: number | null };
  hardware: HardwareForBandwidth;
}

/**
 * The decode-speed roofline verdict of a run. The bandwidth is the upper bound over every
 * device the run could have used, so a split model is never held to one card's speed.
 */
export function runVerdict(run: RunForVerdict): RooflineVerdict {
  const flags = run.engineFlags ?? {};
  return assessPlausibility({
    tokSOut: run.tokSOut,
    batchSize: run.batchSize,
    concurrency: flags.concurrency ?? null,
    specDecoding: flags.specDecoding ?? null,
    mtpEnabled: flags.mtpEnabled ?? null,
    quantization: run.quantization,
    nativeBitsPerWeight: run.model.native_bits_per_weight ?? null,
    paramsB: run.model.params,
    activeParamsB: run.model.active_params,
    isMoE: run.model.is_moe,
    memoryBandwidthGBs: memoryBandwidthUpperBoundOf(run.hardware),
  });
}

export function verdictColumns(verdict: RooflineVerdict) {
  return { plausibility: verdict.plausibility, decode_bound_tok_s: verdict.boundTokS, plausibility_reason: verdict.reason };
}
