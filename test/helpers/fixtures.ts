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
