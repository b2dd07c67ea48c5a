/**
 * The hardware catalogue against public spec pages (issue 33 point 2: each device's memory
 * bandwidth per memory bin, last-level cache and peak FP16 "with its source"). Every figure in
 * test/fixtures/catalogue-checks.ts was read off the page it cites; this test fails when a
 * catalogue row drifts from what its page says.
 */
import { expect } from 'chai';
import { cpus, gpus, unifiedChips, type CpuSpec, type GpuSpec, type UnifiedChipSpec } from '../../src/data/hardware-catalogue.ts';
import { catalogueChecks, type CatalogueCheck } from '../fixtures/catalogue-checks.ts';

type Entry = { kind: 'gpu'; spec: GpuSpec } | { kind: 'chip'; spec: UnifiedChipSpec } | { kind: 'cpu'; spec: CpuSpec };

function entryNamed(name: string): Entry | undefined {
  const gpu = gpus.find((spec) => spec.name === name);
  if (gpu) return { kind: 'gpu', spec: gpu };
  const chip = unifiedChips.find((spec) => spec.name === name);
  if (chip) return { kind: 'chip', spec: chip };
  const cpu = cpus.find((spec) => spec.name === name);
  return cpu && { kind: 'cpu', spec: cpu };
}

/** The catalogue's bandwidth for the memory size a page gives it for, or the row's figure. */
function bandwidthOf(entry: Entry, atGb: number | undefined): number | undefined {
  if (atGb === undefined) return entry.spec.bandwidthGBs;
  if (entry.kind === 'gpu') {
    const variant = entry.spec.variants?.find((v) => v.vramGb === atGb);
    if (variant) return variant.bandwidthGBs;
    return entry.spec.vramGb.includes(atGb) ? entry.spec.bandwidthGBs : undefined;
  }
  if (entry.kind === 'chip') {
    const variant = entry.spec.variants?.find((v) => v.memoryGb.includes(atGb));
    if (variant) return variant.bandwidthGBs;
    return entry.spec.memoryGb.includes(atGb) ? entry.spec.bandwidthGBs : undefined;
  }
  return undefined;
}

function sizesOf(entry: Entry): number[] | undefined {
  if (entry.kind === 'gpu') return entry.spec.vramGb;
  if (entry.kind === 'chip') return entry.spec.memoryGb;
  return undefined;
}

function describeCheck(check: CatalogueCheck): string {
  return `${check.device}: ${check.field}${check.atGb === undefined ? '' : ` (${check.atGb} GB)`} = ${check.value}`;
}

describe('hardware catalogue against public spec pages (test/fixtures/catalogue-checks.ts)', () => {
  before(() => {
    const devices = new Set(catalogueChecks.map((check) => check.device));
    const perField = new Map<string, number>();
    for (const check of catalogueChecks) perField.set(check.field, (perField.get(check.field) ?? 0) + 1);
    const fields = [...perField].map(([field, count]) => `${field} ${count}`).join(', ');
    const sources = new Set(catalogueChecks.map((check) => new URL(check.url).hostname));
    console.log(
      `      Catalogue checks: ${catalogueChecks.length} figures (${fields}) on ${devices.size} devices ` +
        `(of ${gpus.length + unifiedChips.length + cpus.length} catalogued), from ${sources.size} sites`,
    );
  });

  it('cites a public http(s) page for every figure and names a catalogued device', () => {
    for (const check of catalogueChecks) {
      expect(new URL(check.url).protocol, check.url).to.match(/^https?:$/);
      expect(entryNamed(check.device), `${check.device} is not a catalogue name`).to.not.equal(undefined);
    }
  });

  for (const check of catalogueChecks) {
    it(describeCheck(check), () => {
      const entry = entryNamed(check.device);
      expect(entry, `${check.device} is not a catalogue name`).to.not.equal(undefined);
      if (!entry) return;
      if (check.field === 'bandwidthGBs') {
        const catalogued = bandwidthOf(entry, check.atGb);
        expect(catalogued, `${check.device} has no bandwidth for ${check.atGb} GB`).to.be.a('number');
        // Pages round (1,008 vs 1008.0; 716.8 vs 717): within 1 GB/s or 1%.
        const tolerance = Math.max(1, check.value * 0.01);
        expect(Math.abs(catalogued! - check.value), `catalogue ${catalogued} GB/s, page ${check.value} GB/s (${check.url})`).to.be.at.most(
          tolerance,
        );
      } else if (check.field === 'llcMb') {
        expect(entry.spec.llcMb, `page ${check.url}`).to.equal(check.value);
      } else if (check.field === 'peakFp16Tflops') {
        expect(entry.kind, `${check.device}: no peak FP16 is held for CPUs`).to.not.equal('cpu');
        const catalogued = entry.kind === 'cpu' ? undefined : entry.spec.peakFp16Tflops;
        expect(catalogued, `${check.device} has no peak FP16 (page ${check.url})`).to.be.a('number');
        // Pages round (165.15 vs 165.2; 989.4 vs 989.5): within 1%.
        expect(
          Math.abs(catalogued! - check.value),
          `catalogue ${catalogued} TFLOPS, page ${check.value} TFLOPS (${check.url})`,
        ).to.be.at.most(check.value * 0.01);
      } else {
        expect(check.field, `${check.device}: ${check.field} does not apply to a ${entry.kind}`).to.equal(
          entry.kind === 'gpu' ? 'vramGb' : 'memoryGb',
        );
        expect(sizesOf(entry), `page ${check.url}`).to.include(check.value);
      }
    });
  }
});
