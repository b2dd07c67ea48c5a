import { expect } from 'chai';
import { compactRows, correctionFromForm, formValuesOf, submissionFromForm } from '../../src/runs/presentation/submission-form.ts';

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

describe('correctionFromForm and formValuesOf', () => {
  const stored = {
    hfId: 'org/model',
    hardware: { hwClass: 'DISCRETE_GPU', gpuName: 'RTX 4090', gpuCount: 2, vramGb: 24 },
    engineName: 'vllm',
    quantization: 'fp8',
    tokSOut: 50,
    gpuPowerWatts: [300, 250.5],
    hardwareCost: [{ component: 'NVIDIA GeForce RTX 4090', condition: 'NEW', yearPurchased: 2024, price: 1800, currency: 'USD' }],
    engineFlags: { commandSnippet: 'vllm serve org/model -tp 2', tensorParallel: 2, flashAttn: true },
  };

  it('fills the form from a stored submission, purchases as rows', () => {
    expect(formValuesOf(stored)).to.deep.equal({
      hfId: 'org/model',
      'hardware.hwClass': 'DISCRETE_GPU',
      'hardware.gpuName': 'RTX 4090',
      'hardware.gpuCount': '2',
      'hardware.vramGb': '24',
      engineName: 'vllm',
      quantization: 'fp8',
      tokSOut: '50',
      gpuPowerWatts: '300, 250.5',
      'hardwareCost.0.component': 'NVIDIA GeForce RTX 4090',
      'hardwareCost.0.condition': 'NEW',
      'hardwareCost.0.yearPurchased': '2024',
      'hardwareCost.0.price': '1800',
      'hardwareCost.0.currency': 'USD',
      'engineFlags.commandSnippet': 'vllm serve org/model -tp 2',
      'engineFlags.tensorParallel': '2',
      'engineFlags.flashAttn': 'true',
    });
  });

  it('sends the filled form back as the same fields, and null for each field the form shows empty', () => {
    const shown = stored;
    expect(correctionFromForm({ _csrf: 'token', ...formValuesOf(stored) })).to.deep.equal(shown);
    expect(
      correctionFromForm({
        _csrf: 'token',
        ...formValuesOf(stored),
        tokSOut: '',
        notes: ' ',
        'engineFlags.commandSnippet': '',
        'engineFlags.tensorParallel': '',
        'engineFlags.flashAttn': '',
      }),
    ).to.deep.equal({
      ...shown,
      tokSOut: null,
      notes: null,
      engineFlags: null,
    });
  });
});

describe("the form's rows: other GPUs and purchases", () => {
  it('turns GPU rows into gpus, the single-GPU fields first, and ignores them for another class', () => {
    const form = {
      'hardware.hwClass': 'DISCRETE_GPU',
      'hardware.gpuName': 'RTX 4090',
      'hardware.vramGb': '24',
      'hardware.gpus.1.gpuName': 'RTX 3090',
      'hardware.gpus.1.count': '2',
      'hardware.gpus.1.vramGb': '24',
      'hardware.gpus.2.gpuName': ' ',
    };
    expect(submissionFromForm(form).hardware).to.deep.equal({
      hwClass: 'DISCRETE_GPU',
      gpus: [
        { gpuName: 'RTX 4090', vramGb: 24 },
        { gpuName: 'RTX 3090', count: 2, vramGb: 24 },
      ],
    });
    expect(submissionFromForm({ ...form, 'hardware.hwClass': 'CPU_ONLY' }).hardware).to.not.have.property('gpus');
  });

  it('numbers filled rows from the first, so errors land on the rows shown, and drops empty ones', () => {
    const values = compactRows({
      hfId: 'a/b',
      'hardwareCost.0.price': '',
      'hardwareCost.1.price': '10',
      'hardwareCost.1.currency': 'EUR',
      'hardware.gpus.3.gpuName': 'RTX 3090',
    });
    expect(values).to.deep.equal({
      hfId: 'a/b',
      'hardwareCost.0.price': '10',
      'hardwareCost.0.currency': 'EUR',
      'hardware.gpus.1.gpuName': 'RTX 3090',
    });
    expect(submissionFromForm(values).hardwareCost).to.deep.equal([{ price: 10, currency: 'EUR' }]);
  });

  it('sends null for purchases when every row is emptied in a correction', () => {
    expect(correctionFromForm({ hfId: 'a/b', 'hardwareCost.0.price': '', 'hardwareCost.0.component': '' })).to.deep.equal({
      hfId: 'a/b',
      hardwareCost: null,
    });
  });
});
