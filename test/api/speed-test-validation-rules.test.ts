/**
 * Speed-test submission validation, per API revision: the metric rule, fields that belong
 * to other revisions, de-duplication of hardware and engines, and that a rejected
 * submission (or a dry-run) writes nothing.
 *
 * Sources: spec/interface.md "Speed-test run", "Hardware", "Engine flags", "Errors",
 * "Limits" (field bounds), "Versioning"; DECISIONS.md "Revisions", "Hardware and costs".
 */
import { expect } from 'chai';
import type { TestContext } from '../helpers/app.ts';
import {
  COST_ITEM,
  describeEachRevision,
  expectFieldErrors,
  PAST_THE_WINDOW_MS,
  payload,
  valueAt,
  withValue,
  type Body,
  type Revision,
} from '../helpers/speed-test-validation.ts';

const METRIC_422: Partial<Record<Revision, { error: string }>> = {
  1: { error: 'At least one performance metric (TTFT, tok/s output, or tok/s total) is required' },
  2: { error: 'At least one additional metric (TTFT, prefill tok/s, tok/s total, or peak VRAM) is required alongside tok/s output' },
};

async function rowCounts(ctx: TestContext): Promise<Record<string, number>> {
  const counts: Record<string, number> = {};
  for (const table of ['speed_test_runs', 'hardware_profiles', 'engines', 'models', 'submission_windows']) {
    const [{ count }] = await ctx.db(table).count('* as count');
    counts[table] = Number(count);
  }
  return counts;
}

describeEachRevision((revision, api, ctx) => {
  const notAccepted = `Not accepted in API revision ${revision}`;

  describe('metric rule', () => {
    const noMetrics = { tokSOut: undefined, ttftMs: undefined };
    type Outcome = 'accepted' | '422' | 'tokSOut required';
    const rules: Record<Revision, [metrics: Body, outcome: Outcome][]> = {
      1: [
        [{}, '422'],
        [{ peakVramGb: 20 }, '422'],
        [{ tokSOut: 40 }, 'accepted'],
        [{ tokSTotal: 55 }, 'accepted'],
        [{ ttftMs: 180 }, 'accepted'],
      ],
      2: [
        [{}, 'tokSOut required'],
        [{ ttftMs: 180, tokSTotal: 55 }, 'tokSOut required'],
        [{ tokSOut: 40 }, '422'],
        [{ tokSOut: 40, ttftMs: 180 }, 'accepted'],
        [{ tokSOut: 40, tokSPrefill: 900 }, 'accepted'],
        [{ tokSOut: 40, tokSTotal: 55 }, 'accepted'],
        [{ tokSOut: 40, peakVramGb: 20 }, 'accepted'],
      ],
      3: [
        [{}, 'tokSOut required'],
        [{ ttftMs: 180, tokSTotal: 55, tokSPrefill: 900, peakVramGb: 20 }, 'tokSOut required'],
        [{ tokSOut: 40 }, 'accepted'],
      ],
    };
    for (const [metrics, outcome] of rules[revision]) {
      const given = Object.keys(metrics).join(' + ') || 'no metric';
      it(`${outcome === 'accepted' ? 'accepts' : 'rejects'} ${given}${outcome === 'accepted' ? '' : ` (${outcome})`}`, async () => {
        const res = await api.validate(payload({ ...noMetrics, ...metrics }));
        if (outcome === 'accepted') expect(res.status, JSON.stringify(res.body)).to.equal(revision === 1 ? 201 : 200);
        else if (outcome === '422') {
          expect(res.status).to.equal(422);
          expect(res.body).to.deep.equal(METRIC_422[revision]);
        } else expectFieldErrors(res, { tokSOut: 'Required' });
      });
    }
  });

  describe('fields of other revisions', () => {
    const gated: [path: string, value: unknown, since: Revision][] = [
      ['tokSPrefill', 1500, 2],
      ['prefillTokens', 0, 2],
      ['engineRepository', 'https://github.com/ggml-org/llama.cpp', 3],
      ['engineBuild', 'b4500', 3],
      ['engineCommit', 'abcdef1', 3],
      ['gpuPowerWatts', [300], 3],
      ['hardwareCost', [COST_ITEM], 3],
      ['engineFlags.specDraftWindowSize', 256, 3],
    ];
    for (const [path, value, since] of gated) {
      if (revision < since) {
        it(`rejects ${path} with '${notAccepted}'`, async () => {
          expectFieldErrors(await api.validate(withValue(path, value)), { [path]: notAccepted });
        });
      } else {
        it(`accepts ${path} (since revision ${since})`, async () => {
          expect(valueAt(await api.accept(withValue(path, value)), path)).to.deep.equal(value);
        });
      }
    }

    if (revision < 3) {
      it('names every gated field at once', async () => {
        const body = withValue('engineFlags.specDraftWindowSize', 64);
        const fields = gated.filter(([path, , since]) => since > revision && !path.includes('.'));
        for (const [path, value] of fields) body[path] = value;
        const expected = Object.fromEntries(
          [...fields.map(([path]) => path), 'engineFlags.specDraftWindowSize'].map((p) => [p, notAccepted]),
        );
        expectFieldErrors(await api.validate(body), expected);
      });
    }
  });

  describe('de-duplication of hardware and engines', () => {
    const rig = {
      hwClass: 'DISCRETE_GPU',
      gpuName: 'AMD Radeon RX 7900 XTX',
      gpuCount: 2,
      vramGb: 24,
      cpu: 'Ryzen 7 7800X3D',
      os: 'linux',
    };
    const sameRig = payload({ hardware: rig, engineName: 'llama.cpp', engineVersion: 'b4500' });

    it('gives identical hardware and engine the same hardwareId and engineId', async () => {
      const first = await api.submitted(sameRig);
      const second = await api.submitted({ ...sameRig, tokSOut: 50 });
      expect(second.id).not.to.equal(first.id);
      expect(second.hardwareId).to.equal(first.hardwareId);
      expect(second.engineId).to.equal(first.engineId);
    });

    it('ignores the order of hardware fields', async () => {
      const reordered = Object.fromEntries(Object.entries(rig).reverse());
      const first = await api.submitted(sameRig);
      const second = await api.submitted(payload({ hardware: reordered, engineName: 'llama.cpp', engineVersion: 'b4500' }));
      expect(second.hardwareId).to.equal(first.hardwareId);
    });

    it('gives homogeneous gpus and the equivalent flat form one hardwareId', async () => {
      const flat = await api.submitted(payload({ hardware: { hwClass: 'DISCRETE_GPU', gpuName: 'NVIDIA A100', gpuCount: 4, vramGb: 80 } }));
      const slots = await api.submitted(
        payload({
          hardware: {
            hwClass: 'DISCRETE_GPU',
            gpus: [
              { gpuName: 'NVIDIA A100', count: 3, vramGb: 80 },
              { gpuName: 'NVIDIA A100', vramGb: 80 },
            ],
          },
        }),
      );
      expect(slots.hardwareId).to.equal(flat.hardwareId);
    });

    it('gives different hardware a different hardwareId and a different engine version a different engineId', async () => {
      const base = await api.submitted(sameRig);
      const moreVram = await api.submitted({ ...sameRig, hardware: { ...rig, vramGb: 48 } });
      expect(moreVram.hardwareId).not.to.equal(base.hardwareId);
      expect(moreVram.engineId).to.equal(base.engineId);
      const newerEngine = await api.submitted({ ...sameRig, engineVersion: 'b4600' });
      expect(newerEngine.engineId).not.to.equal(base.engineId);
      expect(newerEngine.hardwareId).to.equal(base.hardwareId);
    });
  });

  describe('rejected submissions write nothing', () => {
    const metricFailure: [Body, number] =
      revision === 1
        ? [payload({ tokSOut: undefined, ttftMs: undefined }), 422]
        : revision === 2
          ? [payload({ ttftMs: undefined }), 422]
          : [payload({ tokSOut: undefined }), 400];
    const rejected: [label: string, body: Body, status: number][] = [
      ['a bound', payload({ contextLength: 0 }), 400],
      ['an unknown hwClass', payload({ hardware: { hwClass: 'TPU' } }), 400],
      ['an unknown engine', payload({ engineName: 'LLAMA.CPP' }), 400],
      ['an unknown field', payload({ surprise: true }), 400],
      [
        'an out-of-range snippet value',
        payload({ engineName: 'vllm', engineFlags: { commandSnippet: 'vllm serve x --gpu-memory-utilization 1.5' } }),
        400,
      ],
      ['a gated or malformed revision-3 field', revision === 3 ? payload({ engineCommit: 'xyz' }) : payload({ engineBuild: 'b1' }), 400],
      ['the metric rule', ...metricFailure],
    ];

    it('leaves runs, hardware, engines, models and the submission window untouched on every 400 and 422', async () => {
      ctx.clock.advance(PAST_THE_WINDOW_MS);
      const before = await rowCounts(ctx);
      const windowBefore = await ctx.db('submission_windows').orderBy('user_id').select();
      for (const [label, body, status] of rejected) {
        const res = await api.post(api.resultsPath, body);
        expect(res.status, `${label}: ${JSON.stringify(res.body)}`).to.equal(status);
        if (status === 422) expect(res.body).to.deep.equal(METRIC_422[revision]);
      }
      expect(await rowCounts(ctx)).to.deep.equal(before);
      expect(await ctx.db('submission_windows').orderBy('user_id').select()).to.deep.equal(windowBefore);
      // The window was not used up by the rejections.
      expect((await api.post(api.resultsPath, payload())).status).to.equal(201);
    });

    if (revision >= 2) {
      it('writes nothing on a valid dry-run and leaves the submission window free', async () => {
        ctx.clock.advance(PAST_THE_WINDOW_MS);
        const before = await rowCounts(ctx);
        await api.accept(payload({ hardware: { hwClass: 'CPU_ONLY', cpu: 'Intel Xeon w9-3495X', ramGb: 512 } }));
        expect(await rowCounts(ctx)).to.deep.equal(before);
        expect((await api.post(api.resultsPath, payload())).status).to.equal(201);
      });
    } else {
      it('has no dry-run: 404, nothing written', async () => {
        const before = await rowCounts(ctx);
        const res = await api.post(`${api.resultsPath}/dry-run`, payload());
        expect(res.status).to.equal(404);
        expect(await rowCounts(ctx)).to.deep.equal(before);
      });
    }
  });
});
