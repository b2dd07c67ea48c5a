import { spawnSync } from 'node:child_process';
import { expect } from 'chai';

/**
 * sharp (libvips) is loaded at the first image, not at start (src/lib/image-pipeline.ts): an
 * instance that only serves reads keeps the ~24 MB it costs. Checked in a process of its own,
 * since other tests load sharp into this one, by the libraries mapped into that process (Linux).
 */
describe('image pipeline loading', function () {
  this.timeout(60_000);

  const libvipsMappedAfter = (script: string): boolean => {
    const result = spawnSync(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], { encoding: 'utf8' });
    expect(result.status, result.stderr).to.equal(0);
    return result.stdout.trim() === 'libvips';
  };
  const reportLibvips = `console.log((await import('node:fs')).readFileSync('/proc/self/maps', 'utf8').includes('libvips') ? 'libvips' : 'none');`;

  before(function () {
    if (process.platform !== 'linux') this.skip();
  });

  it('does not load libvips when the app and the demo seeds are imported', () => {
    expect(libvipsMappedAfter(`await import('./src/app.ts'); await import('./src/db/seeds/demo-listings.ts'); ${reportLibvips}`)).to.equal(
      false,
    );
  });

  it('loads it, configured, at the first use', () => {
    expect(
      libvipsMappedAfter(
        `const { loadSharp } = await import('./src/lib/image-pipeline.ts'); const sharp = await loadSharp();
         if (sharp.concurrency() !== 1) throw new Error('concurrency ' + sharp.concurrency()); ${reportLibvips}`,
      ),
    ).to.equal(true);
  });
});
