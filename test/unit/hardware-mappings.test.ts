/** The admins' hardware name mappings as the resolver applies them (issue 33 point 4). */
import { expect } from 'chai';
import { deviceOf, writtenNamesOf } from '../../src/lib/hardware-devices.ts';
import { memoryBandwidthUpperBoundOf } from '../../src/lib/hardware-lookup.ts';
import { catalogueEntry, mappedEntry, setHardwareMappings } from '../../src/lib/hardware-mappings.ts';
import { hardwareSearchText } from '../../src/runs/submission/run-facts.ts';

describe('hardware name mappings', () => {
  afterEach(() => setHardwareMappings([]));

  const gpu = { hwClass: 'DISCRETE_GPU', gpuName: 'Frobnicator 9000 Pro', vramGb: 24 } as const;

  it('place a written name on its catalogue device everywhere the resolver is asked: device, bound, search text', () => {
    expect(deviceOf(gpu).catalogue).to.equal(null);
    expect(memoryBandwidthUpperBoundOf(gpu)).to.equal(null);
    expect(hardwareSearchText(gpu as never)).to.equal('frobnicator 9000 pro');
    setHardwareMappings([{ kind: 'gpu', writtenName: 'frobnicator   9000 PRO ', deviceName: 'NVIDIA GeForce RTX 4090' }]);
    const device = deviceOf(gpu);
    expect([device.name, device.slug]).to.deep.equal(['NVIDIA GeForce RTX 4090', 'nvidia-rtx-4090']);
    expect(memoryBandwidthUpperBoundOf(gpu)).to.be.closeTo(1008, 1);
    expect(hardwareSearchText(gpu as never)).to.equal('frobnicator 9000 pro | nvidia geforce rtx 4090');
    // Two cards written with the name: each card is the mapped one.
    expect(memoryBandwidthUpperBoundOf({ ...gpu, gpuCount: 2 })).to.be.closeTo(2016, 2);
  });

  it('apply only to the kind they were made for, and never to other names', () => {
    setHardwareMappings([{ kind: 'gpu', writtenName: 'Acme Z9', deviceName: 'NVIDIA GeForce RTX 4090' }]);
    expect(mappedEntry('Acme Z9', ['cpu', 'chip'])).to.equal(null);
    expect(deviceOf({ hwClass: 'CPU_ONLY', cpu: 'Acme Z9' }).catalogue).to.equal(null);
    expect(deviceOf({ hwClass: 'DISCRETE_GPU', gpuName: 'Acme Z9 Ultra' }).catalogue).to.equal(null);
  });

  it('map a chip by its fields joined as the resolver reads them, and skip a device the catalogue no longer has', () => {
    const chip = { hwClass: 'UNIFIED', chipVendor: 'Acme', chipFamily: 'Z9', chipVariant: 'Max' };
    const [written] = writtenNamesOf(chip);
    expect(written).to.deep.equal({ kind: 'chip', name: 'Acme Z9 Max' });
    setHardwareMappings([
      { kind: 'chip', writtenName: written!.name, deviceName: 'Apple M2 Max' },
      { kind: 'gpu', writtenName: 'Gone GPU', deviceName: 'Not A Catalogue Card' },
    ]);
    expect(deviceOf(chip).name).to.equal('Apple M2 Max');
    expect(mappedEntry('Gone GPU', ['gpu'])).to.equal(null);
  });

  it('know canonical names by kind only', () => {
    expect(catalogueEntry('gpu', 'nvidia geforce rtx 4090')?.spec.name).to.equal('NVIDIA GeForce RTX 4090');
    expect(catalogueEntry('chip', 'NVIDIA GeForce RTX 4090')).to.equal(null);
    expect(catalogueEntry('gpu', 'RTX 4090')).to.equal(null);
  });

  it('list the names a profile writes, its device first (mixed cards and the CPU too)', () => {
    expect(
      writtenNamesOf({ hwClass: 'DISCRETE_GPU', gpuName: 'A  B', cpu: 'Some CPU', gpus: [{ gpuName: 'a b' }, { gpuName: 'C D' }] }),
    ).to.deep.equal([
      { kind: 'gpu', name: 'A B' },
      { kind: 'gpu', name: 'C D' },
      { kind: 'cpu', name: 'Some CPU' },
    ]);
  });
});
