import { createHash } from 'node:crypto';
import { fakeHubModels } from './fake-hub.ts';

/**
 * One speed-test submission for every test that needs a valid run, so a change to what a
 * submission must carry is made here once instead of in each file's own copy.
 *
 * Valid in every API revision: tokSOut plus ttftMs meets revision 1's any-of rule, revision
 * 2's "tok/s output and one more metric" and revision 3's required tokSOut; the model is
 * one the fake hub knows. `overrides` are merged shallowly: `hardware` replaces the whole
 * hardware object, and a field set to `undefined` is left out of the JSON body.
 */
export function validSubmission(overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    hfId: fakeHubModels.dense,
    hardware: { hwClass: 'DISCRETE_GPU', gpuName: 'NVIDIA GeForce RTX 4090', vramGb: 24 },
    engineName: 'llama.cpp',
    quantization: 'Q4_K_M',
    tokSOut: 42.5,
    ttftMs: 180,
    ...overrides,
  };
}

/**
 * Verified-run evidence as llm-bench sends it for a run of `tokSOut` and `ttftMs`: the
 * prompt's and output's digests and samples, three iterations, llama.cpp's timings (decode
 * 0.5% above tokSOut, prompt time 1% under ttftMs) and the engine commit.
 */
export function measuredEvidence(tokSOut: number, ttftMs: number, prompt: string, output: string): Record<string, unknown> {
  const sha256 = (text: string) => createHash('sha256').update(text, 'utf8').digest('hex');
  return {
    tokSOut,
    ttftMs,
    engineCommit: '1a2b3c4d',
    promptSha256: sha256(prompt),
    promptSample: prompt,
    outputSha256: sha256(output),
    outputSample: output,
    engineTimingsRaw: { source: 'llama.cpp timings', timings: { predicted_per_second: tokSOut * 1.005, prompt_ms: ttftMs * 0.99 } },
    samples: [0.99, 1, 1.01].map((share, index) => ({ iteration: index + 1, tokSOut: tokSOut * share, ttftMs })),
    sampleStats: { iterations: 3, decodeTokS: { median: tokSOut, min: tokSOut * 0.99, max: tokSOut * 1.01 } },
  };
}
