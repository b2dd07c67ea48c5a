import { expect } from 'chai';
import { submissionFromForm } from '../../src/web/submission-form.ts';

describe('submissionFromForm', () => {
  it('nests dotted names, converts numbers, booleans and number lists, and drops empty inputs', () => {
    expect(
      submissionFromForm({
        _csrf: 'token',
        hfId: ' org/model ',
        tokSOut: '12.5',
        contextLength: '',
        gpuPowerWatts: '300, 250.5',
        'hardware.hwClass': 'DISCRETE_GPU',
        'hardware.vramGb': '24',
        'engineFlags.flashAttn': 'true',
        'engineFlags.prefixCaching': 'false',
        'engineFlags.specDecoding': '',
        'engineFlags.gpuLayers': '99',
      }),
    ).to.deep.equal({
      hfId: 'org/model',
      tokSOut: 12.5,
      gpuPowerWatts: [300, 250.5],
      hardware: { hwClass: 'DISCRETE_GPU', vramGb: 24 },
      engineFlags: { flashAttn: true, prefixCaching: false, gpuLayers: 99 },
    });
  });

  it('keeps a value that is not a number as text, so the schema names the field', () => {
    expect(submissionFromForm({ tokSOut: 'fast', 'engineFlags.flashAttn': 'maybe' })).to.deep.equal({
      tokSOut: 'fast',
      engineFlags: { flashAttn: 'maybe' },
    });
  });

  it('ignores field names that could reach Object prototypes or nest deeper', () => {
    const body = submissionFromForm({
      '__proto__.polluted': 'yes',
      'constructor.prototype': 'x',
      'hardware.gpus.0.gpuName': 'deep',
      'a-b': 'dash',
    });
    expect(({} as Record<string, unknown>).polluted).to.equal(undefined);
    expect(Object.keys(body)).to.deep.equal(['constructor']);
    expect(body.constructor).to.deep.equal({ prototype: 'x' });
  });
});
