/** Fingerprinted static files: hashed at start-up, and in development re-hashed at most once a second. */
import { expect } from 'chai';
import { mkdtempSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { createStaticAssets, RECHECK_INTERVAL_MS } from '../../src/web/assets.ts';

describe('static assets', () => {
  function fixture() {
    const file = path.join(mkdtempSync(path.join(tmpdir(), 'assets-')), 'site.css');
    writeFileSync(file, 'body { color: red; }');
    let clock = 1_000_000;
    const edit = (css: string) => {
      writeFileSync(file, css);
      // A modification time the file system surely tells apart from the first write's.
      const later = new Date(Date.now() + 60_000);
      utimesSync(file, later, later);
    };
    return { file, edit, now: () => clock, tick: (ms: number) => (clock += ms) };
  }

  it('names a file by its content hash and keeps that name when not rechecking', () => {
    const { file, edit, now, tick } = fixture();
    const assets = createStaticAssets([{ path: '/css/site.css', file }], { recheck: false, now });
    const first = assets.url('/css/site.css');
    expect(first).to.match(/^\/static\/css\/site\.[0-9a-f]{12}\.css$/);
    edit('body { color: blue; }');
    tick(RECHECK_INTERVAL_MS * 10);
    expect(assets.url('/css/site.css')).to.equal(first);
    expect(assets.url('/unknown.js')).to.equal('/unknown.js');
  });

  it('in development, sees an edit after the recheck interval, not on every page', () => {
    const { file, edit, now, tick } = fixture();
    const assets = createStaticAssets([{ path: '/css/site.css', file }], { recheck: true, now });
    const first = assets.url('/css/site.css');
    edit('body { color: green; }');
    // Within the interval the known name stands: no file-system call per page.
    tick(RECHECK_INTERVAL_MS - 1);
    expect(assets.url('/css/site.css')).to.equal(first);
    tick(1);
    const second = assets.url('/css/site.css');
    expect(second).to.not.equal(first);
    expect(second).to.match(/^\/static\/css\/site\.[0-9a-f]{12}\.css$/);
  });
});
