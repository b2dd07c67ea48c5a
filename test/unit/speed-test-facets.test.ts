import { expect } from 'chai';
import { hardwareSearchText, memoryGb, osFamily } from '../../src/runs/submission/run-facts.ts';

describe('run facets', () => {
  it('folds free-text OS names onto windows, linux and macos', () => {
    const cases: [string | undefined, string | null][] = [
      ['Windows 11 Pro', 'windows'],
      ['win10', 'windows'],
      ['Ubuntu 24.04', 'linux'],
      ['Arch Linux', 'linux'],
      ['WSL2 (Ubuntu)', 'linux'],
      ['Raspbian', 'linux'],
      ['macOS 15.1', 'macos'],
      ['Darwin 24.1.0', 'macos'],
      ['OS X', 'macos'],
      ['FreeBSD', null],
      [undefined, null],
    ];
    for (const [os, family] of cases) expect(osFamily(os), String(os)).to.equal(family);
  });

  it('collects every GPU, chip and CPU name for hardwareName search, lower-cased, then the catalogue names they resolve to', () => {
    expect(
      hardwareSearchText({
        hwClass: 'DISCRETE_GPU',
        gpuName: 'Multi-GPU',
        gpuCount: 2,
        vramGb: 48,
        totalVramGb: 48,
        isHeterogeneousGpu: true,
        gpus: [
          { gpuName: 'RTX 4090', count: 1, vramGb: 24 },
          { gpuName: 'RTX 3090', count: 1, vramGb: 24 },
        ],
        cpu: 'Ryzen 9',
      }),
    ).to.equal('multi-gpu | rtx 4090 | rtx 3090 | ryzen 9 | nvidia geforce rtx 4090 | nvidia geforce rtx 3090');
    expect(
      hardwareSearchText({ hwClass: 'UNIFIED', chipVendor: 'Apple', chipFamily: 'M4', chipVariant: 'Max', unifiedMemoryGb: 128 }),
    ).to.equal('apple | m4 | max | apple m4 max');
    // A catalogue name the written text already holds is not repeated.
    expect(hardwareSearchText({ hwClass: 'DISCRETE_GPU', gpuName: 'NVIDIA GeForce RTX 4090', vramGb: 24 } as never)).to.equal(
      'nvidia geforce rtx 4090',
    );
  });

  it('takes the tier memory from total VRAM, unified memory or system RAM', () => {
    expect(
      memoryGb({ hwClass: 'DISCRETE_GPU', gpuName: 'x', gpuCount: 2, vramGb: 12, totalVramGb: 24, isHeterogeneousGpu: false }),
    ).to.equal(24);
    expect(memoryGb({ hwClass: 'UNIFIED', chipVendor: 'a', chipFamily: 'b', chipVariant: 'c', unifiedMemoryGb: 64 })).to.equal(64);
    expect(memoryGb({ hwClass: 'CPU_ONLY', cpu: 'x', ramGb: 256 })).to.equal(256);
  });
});
