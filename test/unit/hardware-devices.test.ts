import { expect } from 'chai';
import { DEVICE_SLUG, deviceOf, deviceSlug } from '../../src/lib/hardware-devices.ts';

describe('hardware devices', () => {
  it('names a profile by the catalogue device it runs on, however the name was written', () => {
    for (const gpuName of ['NVIDIA GeForce RTX 4090', 'RTX 4090', 'rtx4090', 'GeForce RTX 4090 24GB']) {
      const device = deviceOf({ hwClass: 'DISCRETE_GPU', gpuName });
      expect(device, gpuName).to.include({ slug: 'nvidia-rtx-4090', name: 'NVIDIA GeForce RTX 4090', kind: 'GPU' });
      expect(device.catalogue?.kind).to.equal('GPU');
    }
    expect(deviceOf({ hwClass: 'UNIFIED', chipVendor: 'Apple', chipFamily: 'M4 Max', chipVariant: '' })).to.include({
      slug: 'apple-m4-max',
      kind: 'chip',
    });
    expect(deviceOf({ hwClass: 'UNIFIED', chipVendor: 'AMD', chipFamily: 'Ryzen AI Max+', chipVariant: '395' }).slug).to.equal(
      'amd-ryzen-ai-max-plus-395',
    );
    expect(deviceOf({ hwClass: 'CPU_ONLY', cpu: 'AMD EPYC 9654 96-Core Processor' })).to.include({ slug: 'amd-epyc-9654', kind: 'CPU' });
  });

  it('keeps a name the catalogue does not know, as submitted, with no specs', () => {
    const device = deviceOf({ hwClass: 'DISCRETE_GPU', gpuName: '  Moore Threads MTT S4000 ' });
    expect(device).to.deep.equal({ slug: 'moore-threads-mtt-s4000', name: 'Moore Threads MTT S4000', kind: 'GPU', catalogue: null });
    expect(deviceOf({ hwClass: 'CPU_ONLY', cpu: null })).to.include({ slug: 'unknown-cpu', name: 'Unknown CPU' });
  });

  it('writes slugs of lower-case words joined by single dashes, which the route accepts', () => {
    expect(deviceSlug('AMD Radeon™ RX 7900 XTX (R)')).to.equal('amd-rx-7900-xtx');
    expect(deviceSlug('--Ümlaut  GPU--')).to.equal('umlaut-gpu');
    for (const slug of ['nvidia-rtx-4090', 'amd-ryzen-ai-max-plus-395', deviceSlug('Intel® Arc™ A770')])
      expect(DEVICE_SLUG.test(slug), slug).to.equal(true);
    expect(DEVICE_SLUG.test('Not_A_Slug')).to.equal(false);
  });
});
