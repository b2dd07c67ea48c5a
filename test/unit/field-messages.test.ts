import { expect } from 'chai';
import { fieldLabel, formProblems, plainFormErrors, plainMessage, SETUP_FIELD_LABELS } from '../../src/web/field-messages.ts';

describe('field messages: labels and plain sentences for the forms', () => {
  it('says what to do about a missing field, by its label, never by its API path', () => {
    expect(plainMessage('hardware.gpuName', 'Required unless gpus is given')).to.equal(
      'Type the GPU’s name, like NVIDIA GeForce RTX 4090.',
    );
    expect(plainMessage('engineVersion', 'engineVersion must not be empty')).to.equal('Fill in the engine version.');
    expect(plainMessage('hardware.npuTops', 'Required')).to.equal('Fill in the NPU TOPS.');
    expect(plainMessage('gpuName', 'Required unless gpus is given', SETUP_FIELD_LABELS)).to.equal(
      'Type the GPU’s name, like NVIDIA GeForce RTX 4090.',
    );
  });

  it('rewrites bounds and types in plain words', () => {
    expect(plainMessage('tokSOut', 'Must be positive')).to.equal('Must be more than 0.');
    expect(plainMessage('batchSize', 'Must be at least 1')).to.equal('Must be 1 or more.');
    expect(plainMessage('notes', 'Must be at most 2000 characters')).to.equal('Keep it to 2000 characters or fewer.');
    expect(plainMessage('hfId', 'Must be a model id of the form <org>/<model>')).to.equal(
      'Write it as organisation/model, like meta-llama/Llama-3.1-8B-Instruct.',
    );
    expect(plainMessage('engineName', 'Must be one of: llama.cpp, vllm')).to.equal('Choose one from the list.');
  });

  it('labels rows by their place, GPU row 0 being the single-GPU fields', () => {
    expect(fieldLabel('hardware.gpus.2.vramGb')).to.equal('Other GPUs, row 2: VRAM per card (GB)');
    expect(fieldLabel('hardwareCost.0.price')).to.equal('Purchase 1: Price');
    const { fieldErrors, problems } = formProblems({
      'hardware.gpus.0.vramGb': ['Must be positive'],
      tokSOut: ['Must be a number'],
      hfId: ['Required'],
      'gpuPowerWatts.1': ['Must be positive'],
    });
    expect(Object.keys(fieldErrors)).to.have.members(['hardware.vramGb', 'tokSOut', 'hfId', 'gpuPowerWatts']);
    // In the form's order: model first, then hardware, then results.
    expect(problems.map((p) => p.label)).to.deep.equal([
      'Model id on the hub',
      'VRAM per GPU (GB)',
      'Output tokens per second',
      'Measured watts per GPU, comma-separated',
    ]);
  });

  it('names fields in form-wide messages by their labels', () => {
    expect(plainFormErrors(['Give tokSOut or ttftMs'], { tokSOut: 'Output tok/s', ttftMs: 'TTFT' })).to.deep.equal([
      'Give “Output tok/s” or “TTFT”',
    ]);
  });
});
