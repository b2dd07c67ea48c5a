import { memoryBandwidthUpperBoundOf, type HardwareForBandwidth } from './hardware-lookup.ts';
import { assessPlausibility, type RooflineVerdict } from './roofline.ts';

/** What the roofline needs to know about one run. */
export interface RunForVerdict {
  tokSOut: number | null;
  batchSize: number;
  quantization: string;
  /** With the split flags, tells how many cards stream at once (`cardsStreamingAtOnce`). */
  engineName: string;
  engineFlags:
    | { concurrency?: number; specDecoding?: boolean; mtpEnabled?: boolean; tensorParallel?: number; pipelineParallel?: number; splitMode?: string }
    | null
    | undefined;
  model: { params: number | null; active_params: number | null; is_moe: boolean };
  hardware: HardwareForBandwidth;
}

/**
 * The decode-speed roofline verdict of a run. The bandwidth is the upper bound over the
 * devices that stream weights at once: every card of a tensor split, one card of a layer
 * split (src/lib/hardware-lookup.ts, `cardsStreamingAtOnce`).
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
    paramsB: run.model.params,
    activeParamsB: run.model.active_params,
    isMoE: run.model.is_moe,
    memoryBandwidthGBs: memoryBandwidthUpperBoundOf(run.hardware, { engineName: run.engineName, engineFlags: run.engineFlags }),
  });
}

export function verdictColumns(verdict: RooflineVerdict) {
  return { plausibility: verdict.plausibility, decode_bound_tok_s: verdict.boundTokS, plausibility_reason: verdict.reason };
}
