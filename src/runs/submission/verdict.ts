import { createHash } from 'node:crypto';
import { cpus, gpus, unifiedChips } from '../../data/hardware-catalogue.ts';
import { lastLevelCacheUpperBoundOf, memoryBandwidthUpperBoundOf, type HardwareForBandwidth } from '../../lib/hardware-lookup.ts';
import { assessPlausibility, methodology, type RooflineVerdict } from '../../lib/roofline.ts';
import type { NormalisedSpeedTest } from './normalise.ts';

/** What the roofline needs to know about one run. */
export interface RunForVerdict {
  tokSOut: number | null;
  batchSize: number;
  quantization: string;
  /** With the split flags, tells how many cards stream at once (`cardsStreamingAtOnce`). */
  engineName: string;
  /** A llama.cpp build tells whether an unstated split is by layers (`cardsStreamingAtOnce`). */
  engineVersion?: string | null;
  engineFlags:
    | {
        concurrency?: number;
        specDecoding?: boolean;
        mtpEnabled?: boolean;
        tensorParallel?: number;
        pipelineParallel?: number;
        splitMode?: string;
      }
    | null
    | undefined;
  model: { params: number | null; active_params: number | null; is_moe: boolean; native_bits_per_weight?: number | null };
  hardware: HardwareForBandwidth;
}

/**
 * The decode-speed roofline verdict of a run. The bandwidth is the upper bound over the
 * devices that stream weights at once: every card of a tensor split, one card of a layer
 * split (src/lib/hardware-lookup.ts, `cardsStreamingAtOnce`).
 */
export function runVerdict(run: RunForVerdict): RooflineVerdict {
  const flags = run.engineFlags ?? {};
  const parallelism = { engineName: run.engineName, engineVersion: run.engineVersion, engineFlags: run.engineFlags };
  return assessPlausibility({
    tokSOut: run.tokSOut,
    batchSize: run.batchSize,
    concurrency: flags.concurrency ?? null,
    specDecoding: flags.specDecoding ?? null,
    mtpEnabled: flags.mtpEnabled ?? null,
    quantization: run.quantization,
    engineName: run.engineName,
    nativeBitsPerWeight: run.model.native_bits_per_weight ?? null,
    paramsB: run.model.params,
    activeParamsB: run.model.active_params,
    isMoE: run.model.is_moe,
    memoryBandwidthGBs: memoryBandwidthUpperBoundOf(run.hardware, parallelism),
    lastLevelCacheMb: lastLevelCacheUpperBoundOf(run.hardware, parallelism),
    hwClass: run.hardware.hwClass,
  });
}

/** The verdict of a normalised submission on its catalogued model (the writer's and the demo seed's). */
export function submissionVerdict(normalised: NormalisedSpeedTest, model: RunForVerdict['model']): RooflineVerdict {
  return runVerdict({
    tokSOut: normalised.tokSOut ?? null,
    batchSize: normalised.batchSize,
    quantization: normalised.quantization,
    engineName: normalised.engineName,
    engineVersion: normalised.engineVersion,
    engineFlags: normalised.engineFlags,
    model,
    hardware: normalised.hardware,
  });
}

export function verdictColumns(verdict: RooflineVerdict) {
  return { plausibility: verdict.plausibility, decode_bound_tok_s: verdict.boundTokS, plausibility_reason: verdict.reason };
}

/**
 * Bump when a change of code (not of the data below) would judge any stored run
 * differently: name matching, a rule, the reason texts. Data changes (the catalogue, the
 * bits table, the factors, the methodology's words) change the fingerprint by themselves.
 */
export const VERDICT_RULES_REVISION = 4;

/** What the stored verdicts depend on besides each run's own facts; stored runs are re-judged when it changes. */
export function verdictRulesFingerprint(): string {
  const rules = { revision: VERDICT_RULES_REVISION, methodology, catalogue: { gpus, unifiedChips, cpus } };
  return createHash('sha256').update(JSON.stringify(rules)).digest('hex');
}
