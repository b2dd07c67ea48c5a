import { expect } from 'chai';
import request from 'supertest';
import { useTestApp } from '../helpers/app.ts';

type Json = Record<string, any>;

for (const revision of [1, 2, 3] as const) {
  describe(`docs pages, revision ${revision}`, () => {
    const ctx = useTestApp({ API_REVISION: String(revision) });
    const results = revision === 3 ? '/api/speed-tests' : '/api/benchmarks';
    let document: Json;

    before(async () => {
      document = (await request(ctx.app).get('/api/openapi.json').set('Host', 'docs.test').expect(200)).body;
    });

    it('renders /docs/api from the OpenAPI document: every operation, grouped by tag, and every schema', async () => {
      const res = await request(ctx.app).get('/docs/api').set('Host', 'docs.test').expect(200);
      expect(res.headers['content-type']).to.match(/^text\/html/);
      const html = res.text;
      for (const tag of document.tags)
        expect(html).to.include(`<h2 id="tag-${tag.name.toLowerCase().replace(/[^a-z0-9]+/g, '-')}">${tag.name}</h2>`);
      for (const [path, item] of Object.entries(document.paths as Json)) {
        for (const [method, op] of Object.entries(item as Json)) {
          expect(html, op.operationId).to.include(
            `<h3 id="op-${op.operationId}"><span class="method method-${method}">${method.toUpperCase()}</span> <code>${path}</code></h3>`,
          );
        }
      }
      for (const name of Object.keys(document.components.schemas)) expect(html, name).to.include(`<h3 id="schema-${name}">${name}</h3>`);
      expect(html).to.include('href="/api/openapi.json"');
      expect(html).to.include('<code>memTier</code>');
      expect(html).to.include('Example: Minimal, DISCRETE_GPU');
      expect(html).to.include('exactly &quot;DISCRETE_GPU&quot;');
      // Description text is escaped; only its `code` spans become markup.
      expect(html).to.include('<code>Authentication required. Use a session cookie or Authorization: Bearer &lt;api_key&gt;</code>');
      expect(html).to.include(revision === 1 ? 'Interface revision 1' : 'href="/api/agent-context"');
      expect(html.includes(`${results}/dry-run`)).to.equal(revision !== 1);
    });

    it('renders /docs/agents: agent-context, dry-run first and idempotency keys', async () => {
      const res = await request(ctx.app).get('/docs/agents').set('Host', 'docs.test').expect(200);
      const html = res.text;
      expect(html).to.include('<h1>For agents</h1>');
      expect(html).to.include('<h2>Idempotency keys</h2>');
      expect(html).to.include(`POST http://docs.test${results}`);
      expect(html).to.include('Idempotency-Key: ');
      if (revision === 1) {
        expect(html).not.to.include('/api/agent-context');
        expect(html).not.to.include('Dry-run first');
      } else {
        expect(html).to.include('GET http://docs.test/api/agent-context');
        expect(html).to.include('<h2>Dry-run first</h2>');
        expect(html).to.include(`curl -sS -X POST &#39;http://docs.test${results}/dry-run&#39;`);
        expect(html).to.include('If-None-Match');
      }
      expect(html).to.include(revision === 3 ? 'One submission per 1 minute per account' : 'One submission per 5 minutes per account');
    });

    it('links both pages from the footer of every page, and /docs leads to the reference', async () => {
      const home = await request(ctx.app).get('/').expect(200);
      expect(home.text).to.include('<a href="/docs/api">API reference</a>');
      expect(home.text).to.include('<a href="/docs/agents">For agents</a>');
      const docs = await request(ctx.app).get('/docs').expect(302);
      expect(docs.headers.location).to.equal('/docs/api');
    });

    it('uses no inline scripts or styles (the CSP allows neither)', async () => {
      for (const path of ['/docs/api', '/docs/agents']) {
        const { text } = await request(ctx.app).get(path).expect(200);
        expect(text, path).not.to.match(/<script(?![^>]*\bsrc=)/);
        expect(text, path).not.to.match(/\sstyle=|<style/);
      }
    });
  });
}
