/**
 * Reading the real-run fixtures (test/fixtures/real-runs, README there) the way a submission
 * would carry them: LocalScore's results with their hardware as LocalScore wrote it, and the
 * older set's models as the hub would answer for them. Shared by the plausibility tests and
 * the prediction evaluation, so every test reads the same runs the same way.
 */
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import type { HubModelInfo } from '../../src/clients/hub.ts';
import { catalogueEntryFromHub } from '../../src/lib/model-metadata.ts';
import type { HardwareForBandwidth } from '../../src/lib/hardware-lookup.ts';
import type { RooflineVerdict } from '../../src/lib/roofline.ts';
import { normaliseHardware } from '../../src/runs/submission/normalise.ts';
import type { SubmittedHardware } from '../../src/runs/submission/speed-test.schema.ts';
import { runVerdict } from '../../src/runs/submission/verdict.ts';
import type { RealModel } from '../fixtures/real-runs/models.ts';
import type { RealHardware } from '../fixtures/real-runs/runs.ts';

const LOCALSCORE = resolve(import.meta.dirname, '../fixtures/real-runs/localscore.tsv');
export const SOURCE = 'LocalScore public results (test/fixtures/real-runs/README.md)';

/** Parameter counts from the model cards (Llama 3.2 1B / 3B, Llama 3.1 8B, Qwen2.5 14B). */
export const LOCALSCORE_MODELS: Record<string, number> = {
  'Llama 3.2 1B Instruct': 1.24,
  'Llama 3.2 3B Instruct': 3.21,
  'Meta Llama 3.1 8B Instruct': 8.03,
  'Qwen2.5 14B Instruct': 14.77,
};

export interface LocalScoreRun {
  testNum: string;
  modelName: string;
  /** From the card for LOCALSCORE_MODELS; with `allModels`, else as the catalogue reads a name ("Gemma 3 4b It": 4), else null. */
  paramsB: number | null;
  quantization: string;
  tokSOut: number;
  hardware: SubmittedHardware;
  /** The accelerator as LocalScore wrote it. */
  device: string;
}

/** A model's size as the catalogue reads it from a name alone (approximate), or null. */
function paramsOfName(name: string): number | null {
  const hfId = `localscore/${name.trim().replace(/\s+/g, '-')}`;
  return catalogueEntryFromHub({ id: hfId, gated: false, tags: [] }, hfId).params;
}

/**
 * LocalScore's results: one per row of the four models whose cards give their size, or with
 * `allModels` every row (1,218). A result is one accelerator: an Apple GPU is the unified chip,
 * another GPU the discrete card (with the system CPU), a CPU result the CPU alone.
 */
export function localScoreRuns({ allModels = false } = {}, text = readFileSync(LOCALSCORE, 'utf8')): LocalScoreRun[] {
  const [head, ...lines] = text.trim().split('\n');
  const columns = head!.split('\t');
  return lines.flatMap((line) => {
    const row = Object.fromEntries(line.split('\t').map((value, i) => [columns[i], value])) as Record<string, string>;
    const paramsB = LOCALSCORE_MODELS[row.model_name!] ?? (allModels ? paramsOfName(row.model_name!) : undefined);
    if (paramsB === undefined) return [];
    const os = row.system_os!;
    const device = row.accel_name!;
    const hardware =
      row.accel_type === 'CPU'
        ? { hwClass: 'CPU_ONLY', cpu: device, ramGb: Number(row.system_ram), os }
        : device.startsWith('Apple')
          ? { hwClass: 'UNIFIED', chipVendor: '', chipFamily: device, chipVariant: '', unifiedMemoryGb: Number(row.accel_ram), os }
          : { hwClass: 'DISCRETE_GPU', gpuName: device, vramGb: Number(row.accel_ram), cpu: row.system_cpu, os };
    return [
      {
        testNum: row.test_num!,
        modelName: row.model_name!,
        paramsB,
        quantization: row.model_quant!,
        tokSOut: Number(row.gen_tps),
        hardware: hardware as SubmittedHardware,
        device,
      },
    ];
  });
}

/** The hub's answer for a fixture model, in the shape the hub client returns. */
export function hubAnswer(model: RealModel): HubModelInfo {
  const total = Math.round(model.paramsB * 1e9);
  const base = model.hub.baseModel;
  return {
    id: model.hfId,
    gated: false,
    tags: [model.hub.format, ...(base ? [`base_model:${base.relation}:${base.hfId}`, `base_model:${base.hfId}`] : [])],
    ...(base ? { cardData: { base_model: base.hfId } } : {}),
    ...(model.hub.format === 'gguf'
      ? { gguf: { total, architecture: model.hub.architecture } }
      : { safetensors: { total }, config: { architectures: [model.hub.architecture], model_type: model.hub.modelType } }),
    ...(model.hub.configJson ? { configJson: model.hub.configJson } : {}),
  };
}

/**
 * The hardware as a submission carries it. Memory sizes the source does not state are
 * filled with 1 GB, which matches no catalogued configuration, so the bandwidth lookup
 * takes its reading for an unknown size (as it does for a name without a size).
 */
export function submittedHardware(hardware: RealHardware): SubmittedHardware {
  switch (hardware.hwClass) {
    case 'DISCRETE_GPU':
      return ('gpus' in hardware ? hardware : { ...hardware, vramGb: hardware.vramGb ?? 1 }) as SubmittedHardware;
    case 'UNIFIED':
      return { ...hardware, unifiedMemoryGb: hardware.unifiedMemoryGb ?? 1 } as SubmittedHardware;
    case 'CPU_ONLY':
      return { ...hardware, ramGb: hardware.ramGb ?? 1 } as SubmittedHardware;
  }
}

/** The roofline verdict of a LocalScore run, its decode speed multiplied by `speedFactor` (2: a doubled copy). */
export function verdict(run: LocalScoreRun, speedFactor: number): RooflineVerdict {
  return runVerdict({
    tokSOut: run.tokSOut * speedFactor,
    batchSize: 1,
    quantization: run.quantization,
    engineName: 'llamafile',
    engineFlags: null,
    model: { params: run.paramsB, active_params: null, is_moe: false },
    hardware: normaliseHardware(run.hardware) as HardwareForBandwidth,
  });
}
