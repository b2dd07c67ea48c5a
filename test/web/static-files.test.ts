/**
 * The plain (unfingerprinted) files of public/ are served under their own addresses only, so
 * an API call or a page costs no file lookup (issue 37: the static handler used to stat every
 * request's path first).
 */
import fs from 'node:fs';
import { expect } from 'chai';
import request from 'supertest';
import { useTestApp } from '../helpers/app.ts';

describe('plain static files', () => {
  const ctx = useTestApp();

  it('serves each entry of public/ by name, with caching headers', async () => {
    for (const [path, type] of [
      ['/favicon.svg', 'image/svg+xml'],
      ['/css/site.css', 'text/css'],
      ['/js/app.js', 'javascript'],
    ] as const) {
      const res = await request(ctx.app).get(path).expect(200);
      expect(res.headers['content-type'], path).to.include(type);
      expect(res.headers['cache-control'], path).to.match(/max-age=\d+/);
    }
    await request(ctx.app).get('/css/no-such.css').expect(404);
    await request(ctx.app).get('/no-such-file.svg').expect(404);
  });

  it('looks no file up for an API call or a page', async () => {
    const looked: string[] = [];
    const stat = fs.stat;
    // `send` (behind express.static and res.sendFile) stats the path through this very function.
    fs.stat = ((file: fs.PathLike, ...rest: unknown[]) => {
      looked.push(String(file));
      return (stat as (...args: unknown[]) => void)(file, ...rest);
    }) as typeof fs.stat;
    try {
      await request(ctx.app).get('/api/leaderboard').expect(200);
      await request(ctx.app).get('/api/models/search').query({ q: 'llama' }).expect(200);
      await request(ctx.app).get('/').expect(200);
      expect(looked).to.deep.equal([]);
      // The same spy sees a static file's lookup: the check above can fail.
      await request(ctx.app).get('/css/site.css').expect(200);
      expect(looked.some((file) => file.endsWith('site.css'))).to.equal(true);
    } finally {
      fs.stat = stat;
    }
  });
});
