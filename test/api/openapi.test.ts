import { compileErrors, validate } from '@readme/openapi-parser';
import { expect } from 'chai';
import request from 'supertest';
import { legacyAliasesOf, getRevisionProfile, type LegacyAlias } from '../../src/revisions.ts';
import { useTestApp } from '../helpers/app.ts';
import { registeredRoutes, schemaChecker } from '../helpers/openapi.ts';

// Expected values come from the spec ("Versioning", "Endpoints", "Limits"), not from the profiles.
const REVISIONS = [
  {
    revision: 1,
    results: '/api/benchmarks',
    onlyHere: ['candle', 'ctransformers'],
    absentEngines: ['exllamav3'],
    absentFields: ['tokSPrefill', 'prefillTokens', 'engineCommit', 'hardwareCost', 'gpuPowerWatts'],
    paths: ['/api/benchmarks', '/api/benchmarks/{id}', '/api/leaderboard', '/api/models', '/api/models/{org}/{model}', '/api/openapi.json'],
    absentPaths: ['/api/benchmarks/dry-run', '/api/models/search', '/api/agent-context', '/api/speed-tests'],
    legacyPaths: [],
  },
  {
    revision: 2,
    results: '/api/benchmarks',
    onlyHere: [],
    absentEngines: ['candle', 'exllamav3'],
    absentFields: ['engineCommit', 'hardwareCost', 'gpuPowerWatts'],
    paths: ['/api/benchmarks', '/api/benchmarks/dry-run', '/api/models/search', '/api/agent-context', '/api/openapi.json'],
    absentPaths: ['/api/speed-tests'],
    legacyPaths: [],
  },
  {
    revision: 3,
    results: '/api/speed-tests',
    onlyHere: ['exllamav3', 'bunn-llama', 'freetoken', 'ember'],
    absentEngines: ['candle'],
    absentFields: [],
    paths: [
      '/api/speed-tests',
      '/api/speed-tests/dry-run',
      '/api/speed-tests/{id}',
      '/api/benchmarks',
      '/api/benchmarks/dry-run',
      '/api/agent-context',
    ],
    absentPaths: ['/api/benchmarks/{id}'],
    // Revision-2 paths a revision-3 deployment keeps ("Versioning"): the speed-test results and
    // dry-run paths, and everything under the revision-2 quality root.
    legacyPaths: ['/api/benchmarks', '/api/benchmarks/dry-run', '/api/evals'],
  },
] as const;

type Json = Record<string, any>;
const METHODS = ['get', 'post', 'patch', 'delete', 'put', 'head', 'options', 'trace'];

function operationsOf(document: Json): { method: string; path: string; operation: Json }[] {
  return Object.entries(document.paths as Json).flatMap(([path, item]) =>
    Object.entries(item as Json)
      .filter(([method]) => METHODS.includes(method))
      .map(([method, operation]) => ({ method, path, operation })),
  );
}

for (const rev of REVISIONS) {
  describe(`OpenAPI document, revision ${rev.revision}`, () => {
    const ctx = useTestApp({ API_REVISION: String(rev.revision) });
    let document: Json;

    before(async () => {
      const res = await request(ctx.app).get('/api/openapi.json').expect(200);
      expect(res.headers['content-type']).to.match(/^application\/json/);
      document = res.body;
    });

    it('is a valid OpenAPI 3.1 document', async () => {
      expect(document.openapi).to.equal('3.1.0');
      expect(document.info.version).to.equal(String(rev.revision));
      const result = await validate(structuredClone(document) as never);
      expect(result.valid, result.valid ? '' : compileErrors(result)).to.equal(true);
      expect(result.warnings).to.deep.equal([]);
    });

    it('documents exactly the routes Express registers under /api for this revision', () => {
      const registered = registeredRoutes(ctx.app)
        .filter((route) => route.path.startsWith('/api/'))
        .map((route) => `${route.method.toUpperCase()} ${route.path}`)
        .sort();
      const documented = operationsOf(document)
        .map(({ method, path }) => `${method.toUpperCase()} ${path.replace(/\{(\w+)\}/g, ':$1')}`)
        .sort();
      expect(registered.length).to.be.greaterThan(10);
      expect(documented).to.deep.equal(registered);
    });

    it('has the paths of the revision and none of the others', () => {
      for (const path of rev.paths) expect(document.paths, path).to.have.property(path);
      for (const path of rev.absentPaths) expect(document.paths, path).not.to.have.property(path);
    });

    it('marks the revision-2 paths a revision-3 deployment keeps as deprecated, with their headers', () => {
      // Which (method, path) an alias keeps comes from the profile (exact or prefix, its methods);
      // which old paths are kept at all comes from the spec.
      const aliases = legacyAliasesOf(getRevisionProfile(rev.revision));
      expect(aliases.map((alias) => alias.path).sort()).to.deep.equal([...rev.legacyPaths].sort());
      const keptBy = (method: string, path: string): LegacyAlias | undefined =>
        aliases.find(
          (alias) =>
            (alias.methods as readonly string[]).includes(method.toUpperCase()) &&
            (path === alias.path || (alias.match === 'prefix' && path.startsWith(`${alias.path}/`))),
        );
      const deprecatedPerAlias = new Map(aliases.map((alias) => [alias.path, 0]));
      for (const { method, path, operation } of operationsOf(document)) {
        const alias = keptBy(method, path);
        expect(Boolean(operation.deprecated), `${method.toUpperCase()} ${path} deprecated`).to.equal(Boolean(alias));
        if (!alias) continue;
        deprecatedPerAlias.set(alias.path, deprecatedPerAlias.get(alias.path)! + 1);
        const success = Object.entries(operation.responses as Json).find(([status]) => status.startsWith('2'))![1];
        expect(Object.keys(success.headers), `${method.toUpperCase()} ${path} success headers`).to.include.members(['Deprecation', 'Link']);
        // Each kept path stands for a current operation with the same method, which is not deprecated.
        const successor = document.paths[alias.target + path.slice(alias.path.length)]?.[method];
        expect(successor, `${method.toUpperCase()} ${path} has a current successor`).to.be.an('object');
        expect(Boolean(successor.deprecated), `${method.toUpperCase()} ${path}'s successor`).to.equal(false);
      }
      for (const [path, count] of deprecatedPerAlias) expect(count, `operations kept at ${path}`).to.be.greaterThan(0);
    });

    it('gives every operation a unique id, tags, a summary and the security of its auth mode', () => {
      const ids = operationsOf(document).map(({ operation }) => operation.operationId);
      expect(new Set(ids).size).to.equal(ids.length);
      const tagNames = document.tags.map((tag: Json) => tag.name);
      for (const { method, path, operation } of operationsOf(document)) {
        expect(operation.tags, `${method} ${path}`).to.be.an('array').that.is.not.empty;
        for (const tag of operation.tags) expect(tagNames).to.include(tag);
        expect(operation.summary).to.be.a('string').that.is.not.empty;
        const schemes = (operation.security ?? []).flatMap((s: Json) => Object.keys(s));
        if (operation.responses['401']) expect(schemes, `${method} ${path}`).to.include('sessionCookie');
        else expect(schemes, `${method} ${path}`).to.deep.equal([]);
      }
      expect(document.paths[rev.results].post.security).to.deep.equal([{ bearerAuth: [] }, { sessionCookie: [] }]);
      expect(document.paths['/api/keys'].post.security).to.deep.equal([{ sessionCookie: [] }]);
      expect(document.paths[rev.results].get).not.to.have.property('security');
    });

    it('describes both security schemes: the bhk_ Bearer key and the bh.sid session cookie', async () => {
      expect(document.components.securitySchemes.bearerAuth).to.include({ type: 'http', scheme: 'bearer' });
      expect(document.components.securitySchemes.bearerAuth.bearerFormat).to.match(/^bhk_/);
      expect(document.components.securitySchemes.sessionCookie).to.include({ type: 'apiKey', in: 'cookie', name: 'bh.sid' });
      // The cookie the app really sets has the documented name.
      const form = await request(ctx.app).get('/signup').expect(200);
      expect(String(form.headers['set-cookie'])).to.match(/^bh\.sid=/);
    });

    it('takes the engine list, the fields and the bounds of the revision from its schemas', () => {
      const submission = document.components.schemas.SpeedTestSubmission;
      for (const engine of rev.onlyHere) expect(submission.properties.engineName.enum).to.include(engine);
      for (const engine of rev.absentEngines) expect(submission.properties.engineName.enum).not.to.include(engine);
      for (const field of rev.absentFields) expect(submission.properties, field).not.to.have.property(field);
      expect(submission.additionalProperties).to.equal(false);
      expect(submission.required).to.include.members(['hfId', 'hardware', 'engineName', 'quantization']);
      expect(submission.properties.hfId.maxLength).to.equal(256);
      expect(submission.properties.notes.maxLength).to.equal(2000);
      const flags = submission.properties.engineFlags.properties;
      expect(flags.temperature.maximum).to.equal(rev.revision === 1 ? 2 : 100);
      expect(flags.commandSnippet.maxLength).to.equal(4000);
      expect(flags.gpuMemUtil).to.include({ minimum: 0, maximum: 1 });
      expect(submission.properties.hardware.oneOf.map((v: Json) => v.properties.hwClass.const)).to.deep.equal([
        'DISCRETE_GPU',
        'UNIFIED',
        'CPU_ONLY',
      ]);
      expect(submission.properties.hardware.oneOf[0].properties.gpus.maxItems).to.equal(16);
      expect(submission.properties.tokSOut.description).to.match(/tokens per second/);
    });

    it('documents query parameters with their bounds, defaults and enums', () => {
      const param = (path: string, name: string) => document.paths[path].get.parameters.find((p: Json) => p.name === name);
      expect(param(rev.results, 'limit')).to.deep.include({ in: 'query', required: false });
      expect(param(rev.results, 'limit').schema).to.deep.equal({ type: 'integer', minimum: 1, maximum: 100, default: 20 });
      expect(param('/api/leaderboard', 'limit').schema).to.deep.equal({ type: 'integer', minimum: 1, maximum: 200, default: 50 });
      expect(param('/api/leaderboard', 'memTier').schema.enum).to.deep.equal([8, 12, 16, 24, 32, 48, 80, 96, 128]);
      expect(param('/api/leaderboard', 'since').schema.enum).to.deep.equal(['7d', '30d']);
      expect(param('/api/leaderboard', 'hwClass').schema.enum).to.deep.equal(['DISCRETE_GPU', 'UNIFIED', 'CPU_ONLY']);
      expect(param('/api/models', 'limit').schema.default).to.equal(rev.revision === 1 ? 20 : 200);
      expect(Boolean(param('/api/leaderboard', 'paramSize')), 'paramSize').to.equal(rev.revision !== 1);
      expect(Boolean(param(rev.results, 'username')), 'username').to.equal(rev.revision !== 1);
      if (rev.revision !== 1) {
        expect(param('/api/leaderboard', 'paramSize').schema.enum).to.deep.equal([1, 3, 7, 13, 30, 70, 110]);
        expect(param('/api/models/search', 'q').required).to.equal(true);
        expect(param('/api/models/search', 'limit').schema).to.deep.equal({ type: 'integer', minimum: 1, maximum: 25, default: 10 });
      }
      expect(document.paths['/api/setups/{id}'].get.parameters).to.deep.equal([
        {
          name: 'id',
          in: 'path',
          required: true,
          description: 'Setup id',
          schema: { type: 'string', format: 'uuid', pattern: document.paths['/api/setups/{id}'].get.parameters[0].schema.pattern },
        },
      ]);
    });

    it('documents the submission answers: rate-limit headers, every error with examples, 429 with Retry-After', () => {
      const submit = document.paths[rev.results].post;
      expect(Object.keys(submit.responses)).to.deep.equal(['201', '400', '401', '403', '404', '409', '422', '429', '503']);
      expect(Object.keys(submit.responses['201'].headers)).to.include.members(['X-RateLimit-Remaining', 'X-RateLimit-Reset', 'Location']);
      expect(Object.keys(submit.responses['429'].headers)).to.include('Retry-After');
      expect(Object.keys(submit.responses['503'].headers)).to.include('Retry-After');
      expect(document.components.headers['X-RateLimit-Remaining'].schema).to.deep.equal({ type: 'integer', minimum: 0, maximum: 1 });
      expect(submit.responses['401'].content['application/json'].examples.missing.value).to.deep.equal({
        error: 'Authentication required. Use a session cookie or Authorization: Bearer <api_key>',
      });
      const limited = submit.responses['429'].content['application/json'].examples.limited.value;
      expect(limited.error).to.equal(`Rate limit exceeded. You may submit once every ${rev.revision === 3 ? '1 minute' : '5 minutes'}.`);
      const unprocessable = JSON.stringify(submit.responses['422'].content['application/json'].examples);
      if (rev.revision === 1)
        expect(unprocessable).to.include('At least one performance metric (TTFT, tok/s output, or tok/s total) is required');
      if (rev.revision === 2)
        expect(unprocessable).to.include(
          'At least one additional metric (TTFT, prefill tok/s, tok/s total, or peak VRAM) is required alongside tok/s output',
        );
      expect(document.components.schemas.ValidationError.properties.details.required).to.deep.equal(['fieldErrors', 'formErrors']);
      for (const { method, path, operation } of operationsOf(document)) {
        for (const [status, response] of Object.entries(operation.responses as Json)) {
          if (Number(status) < 400) continue;
          const examples = response.content?.['application/json']?.examples;
          expect(examples, `${method} ${path} ${status} has examples`).to.be.an('object').that.is.not.empty;
        }
      }
    });

    it('has request examples and response examples that match their own schemas', () => {
      const checker = schemaChecker(document);
      let checked = 0;
      const schemaName = (schema: Json) => String(schema.$ref).replace('#/components/schemas/', '');
      for (const { method, path, operation } of operationsOf(document)) {
        const body = operation.requestBody?.content['application/json'];
        for (const [name, example] of Object.entries((body?.examples ?? {}) as Json)) {
          checker.expectValid(schemaName(body.schema), example.value, `${method} ${path} request example ${name}`);
          checked += 1;
        }
        for (const [status, response] of Object.entries(operation.responses as Json)) {
          const content = response.content?.['application/json'];
          for (const [name, example] of Object.entries((content?.examples ?? {}) as Json)) {
            checker.expectValid(schemaName(content.schema), example.value, `${method} ${path} ${status} example ${name}`);
            checked += 1;
          }
        }
      }
      expect(checked).to.be.greaterThan(40);
    });

    it('names this deployment in servers: the request origin when PUBLIC_URL is unset', async () => {
      const res = await request(ctx.app).get('/api/openapi.json').set('Host', 'bench.test:8080').expect(200);
      expect(res.body.servers).to.deep.equal([{ url: 'http://bench.test:8080', description: 'This deployment' }]);
      expect(document.servers[0].url).to.match(/^http:\/\/127\.0\.0\.1:\d+$/);
      // A Host header that is not a plain name and port is never echoed into URLs.
      const odd = await request(ctx.app).get('/api/openapi.json').set('Host', 'bench.test"><x').expect(200);
      expect(odd.body.servers[0].url).to.equal('http://localhost:3000');
      // The docs pages carry the same Host-made URLs: kept private too.
      for (const page of ['/docs/api', '/docs/agents']) {
        const html = await request(ctx.app).get(page).set('Host', 'bench.test:8080').expect(200);
        expect(html.text, page).to.include('http://bench.test:8080');
        expect(html.headers['cache-control'], page).to.equal('private');
      }
    });

    it('is one cached answer with an ETag and Cache-Control, and 304 for If-None-Match', async () => {
      // supertest listens on a new port per request: a fixed Host keeps the base URL the same.
      const get = () => request(ctx.app).get('/api/openapi.json').set('Host', 'bench.test');
      const first = await get().expect(200);
      const etag = first.headers.etag;
      expect(etag).to.match(/^"[\w-]{20,}"$/);
      // Without PUBLIC_URL the document names the Host it was asked at: no shared cache may keep it.
      expect(first.headers['cache-control']).to.equal('private, max-age=300');
      const again = await get().expect(200);
      expect(again.headers.etag).to.equal(etag);
      expect(again.text).to.equal(first.text);
      const notModified = await get().set('If-None-Match', etag).expect(304);
      expect(notModified.text).to.equal('');
      expect(notModified.headers.etag).to.equal(etag);
      await get().set('If-None-Match', '"something-else"').expect(200);
      await get().set('If-None-Match', `"x", ${etag}`).expect(304);
    });
  });
}

describe('OpenAPI document with PUBLIC_URL', () => {
  const ctx = useTestApp({ PUBLIC_URL: 'https://bench.example.org/' });

  it('names PUBLIC_URL in servers, whatever host the request came to, and may be cached publicly', async () => {
    const res = await request(ctx.app).get('/api/openapi.json').set('Host', 'internal:3000').expect(200);
    expect(res.body.servers).to.deep.equal([{ url: 'https://bench.example.org', description: 'This deployment' }]);
    expect(res.headers['cache-control']).to.equal('public, max-age=300');
    const evil = await request(ctx.app).get('/api/openapi.json').set('Host', 'evil.example').expect(200);
    expect(evil.text).not.to.include('evil.example');
    for (const page of ['/docs/api', '/docs/agents']) {
      const html = await request(ctx.app).get(page).set('Host', 'evil.example').expect(200);
      expect(html.text, page).not.to.include('evil.example');
      expect(html.headers['cache-control'], page).to.equal(undefined);
    }
    const context = await request(ctx.app).get('/api/agent-context').set('Host', 'evil.example').expect(200);
    expect(context.text).not.to.include('evil.example');
    expect(context.body.baseUrl).to.equal('https://bench.example.org');
    expect(context.headers['cache-control']).to.equal('public, max-age=300');
  });
});
