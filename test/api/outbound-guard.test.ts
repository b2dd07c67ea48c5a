/**
 * The SSRF guard of server-side execution, through the real outbound client: every row of
 * the refusal table is refused (rule `address`) with nothing reaching a server
 * listening on loopback; names are resolved by a fake DNS server on loopback (private
 * answers, mixed answers, rebinding); redirects are not followed; the allow-list, body cap,
 * timeout and cancel behave. And the pure rules over every spelling of non-public IPv4.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { expect } from 'chai';
import fc from 'fast-check';
import { createOutboundClient, OutboundFailure, TargetRefused, type OutboundClient } from '../../src/clients/outbound.ts';
import {
  allowListing,
  CLOUD_PLATFORM_ADDRESSES,
  CLOUD_PLATFORM_NAMES,
  checkResolvedAddresses,
  checkTargetUrl,
  isRefusal,
  parseAllowHosts,
} from '../../src/lib/target-address.ts';
import { resolverFor, startFakeDns, type FakeDns } from '../helpers/fake-dns.ts';

/** A loopback server that counts connections and answers 200, or what `handler` says. */
async function loopbackServer(handler?: http.RequestListener) {
  let connections = 0;
  const server = http.createServer(handler ?? ((_req, res) => res.end('{"ok":true}')));
  server.on('connection', () => (connections += 1));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    port: (server.address() as AddressInfo).port,
    connections: () => connections,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

async function refusal(promise: Promise<unknown>): Promise<TargetRefused> {
  try {
    await promise;
  } catch (error) {
    if (error instanceof TargetRefused) return error;
    throw error;
  }
  throw new Error('expected a refusal, got an answer');
}

async function failure(promise: Promise<unknown>): Promise<OutboundFailure> {
  try {
    await promise;
  } catch (error) {
    if (error instanceof OutboundFailure) return error;
    throw error;
  }
  throw new Error('expected a failure, got an answer');
}

describe('Outbound guard (execute)', () => {
  let dns: FakeDns;
  let target: Awaited<ReturnType<typeof loopbackServer>>;
  let client: OutboundClient;

  before(async () => {
    dns = await startFakeDns();
    target = await loopbackServer();
    // No allow-list: the public-address rule applies to everything.
    client = createOutboundClient({ allowHosts: [], resolve: resolverFor(dns), connectTimeoutMs: 500, timeoutMs: 2000 });
  });
  after(async () => {
    await client.close();
    await target.close();
    await dns.close();
  });

  describe('refuses, and nothing reaches the server on loopback', () => {
    const rows: [string, (port: number) => string][] = [
      ['localhost', (p) => `http://localhost:${p}/`],
      ['127.0.0.1', (p) => `http://127.0.0.1:${p}/`],
      ['127.1', (p) => `http://127.1:${p}/`],
      ['2130706433', (p) => `http://2130706433:${p}/`],
      ['0x7f000001', (p) => `http://0x7f000001:${p}/`],
      ['0177.0.0.1', (p) => `http://0177.0.0.1:${p}/`],
      ['[::1]', (p) => `http://[::1]:${p}/`],
      ['[::ffff:127.0.0.1]', (p) => `http://[::ffff:127.0.0.1]:${p}/`],
      ['[::ffff:7f00:1]', (p) => `http://[::ffff:7f00:1]:${p}/`],
      ['10.0.0.1', (p) => `http://10.0.0.1:${p}/`],
      ['172.16.0.1', (p) => `http://172.16.0.1:${p}/`],
      ['192.168.1.1', (p) => `http://192.168.1.1:${p}/`],
      ['169.254.169.254', () => 'http://169.254.169.254/latest/meta-data/'],
      ['100.64.0.1', (p) => `http://100.64.0.1:${p}/`],
      ['[fc00::1]', (p) => `http://[fc00::1]:${p}/`],
      ['[fe80::1]', (p) => `http://[fe80::1]:${p}/`],
      ['0.0.0.0', (p) => `http://0.0.0.0:${p}/`],
    ];
    for (const [row, url] of rows) {
      it(`refuses ${row}`, async () => {
        const before = target.connections();
        const refused = await refusal(client.request(url(target.port), { method: 'GET' }));
        expect(refused.rule).to.equal('address');
        expect(refused.details.fieldErrors.baseUrl![0]).to.match(/only public addresses can be reached/);
        expect((await refusal(client.vet(url(target.port)))).rule).to.equal('address');
        expect(target.connections()).to.equal(before);
      });
    }

    it('refuses a name resolving to a private address', async () => {
      dns.setAnswers('private.test', ['10.1.2.3']);
      const refused = await refusal(client.request(`http://private.test:${target.port}/`, { method: 'GET' }));
      expect(refused.reason).to.equal('The host resolves to a private address; only public addresses can be reached');
      // The internal address itself is not echoed.
      expect(refused.reason).not.to.include('10.1.2.3');
    });

    it('refuses a name resolving to one public and one private address (and to loopback over IPv6)', async () => {
      dns.setAnswers('mixed.test', ['93.184.215.14', '127.0.0.1']);
      expect((await refusal(client.request(`http://mixed.test:${target.port}/`, { method: 'GET' }))).reason).to.match(/loopback/);
      dns.setAnswers('mixed6.test', ['93.184.215.14', '::1']);
      expect((await refusal(client.vet(`http://mixed6.test:${target.port}/`))).reason).to.match(/loopback/);
      expect(target.connections()).to.equal(0);
    });

    it('never lets a rebinding name reach loopback: the connection goes only to the address vetted in the same lookup', async () => {
      // Public on the first resolution, loopback on every later one.
      dns.setAnswers('rebind.test', (resolution) => (resolution === 1 ? ['93.184.215.14'] : ['127.0.0.1']));
      const vetted = await client.vet(`http://rebind.test:${target.port}/`);
      expect(vetted.addresses).to.deep.equal([{ address: '93.184.215.14', family: 4, range: 'unicast', public: true }]);
      // The request resolves again: now loopback, which is refused, never connected to.
      const outcome = await client.request(`http://rebind.test:${target.port}/`, { method: 'GET' }).then(
        () => 'answered',
        (error) =>
          error instanceof TargetRefused
            ? `refused:${error.rule}`
            : error instanceof OutboundFailure
              ? `failed:${error.kind}`
              : String(error),
      );
      expect(outcome).to.equal('refused:address');
      // And the other order: a public answer at connect time is what the socket uses (no way out here, so it fails to connect).
      dns.setAnswers('rebind2.test', (resolution) => (resolution === 1 ? ['127.0.0.1'] : ['93.184.215.14']));
      expect((await refusal(client.vet(`http://rebind2.test:${target.port}/`))).rule).to.equal('address');
      const second = await client.request(`http://rebind2.test:${target.port}/`, { method: 'GET' }).then(
        () => 'answered',
        (error) => (error instanceof OutboundFailure ? 'failed' : `other:${String(error)}`),
      );
      expect(second).to.equal('failed');
      expect(target.connections()).to.equal(0);
    });

    it('does not follow a redirect from a (allow-listed) target to a private one', async () => {
      const inner = await loopbackServer();
      const redirecting = await loopbackServer((_req, res) => res.writeHead(302, { location: `http://127.0.0.1:${inner.port}/` }).end());
      const allowed = createOutboundClient({ allowHosts: [`127.0.0.1:${redirecting.port}`] });
      try {
        const failed = await failure(allowed.request(`http://127.0.0.1:${redirecting.port}/v1/models`, { method: 'GET' }));
        expect(failed.kind).to.equal('redirect');
        expect(failed.status).to.equal(302);
        expect(redirecting.connections()).to.equal(1);
        expect(inner.connections()).to.equal(0);
        // The allow-list names that port only: the inner server stays refused.
        expect((await refusal(allowed.request(`http://127.0.0.1:${inner.port}/`, { method: 'GET' }))).rule).to.equal('address');
      } finally {
        await allowed.close();
        await inner.close();
        await redirecting.close();
      }
    });
  });

  describe('the other rules', () => {
    const rule = (url: string, allow: string[] = []) => {
      const checked = checkTargetUrl(url, allow);
      return isRefusal(checked) ? checked.rule : 'ok';
    };

    it('takes only http and https, without credentials, on ports 80, 443 or 1024+', () => {
      for (const url of ['ftp://example.com/', 'file:///etc/passwd', 'gopher://example.com/', 'javascript:alert(1)'])
        expect(rule(url), url).to.equal('scheme');
      expect(rule('http://a:b@example.com/')).to.equal('userinfo');
      expect(rule('http://a@example.com/')).to.equal('userinfo');
      for (const port of [22, 25, 1023]) expect(rule(`http://example.com:${port}/`), String(port)).to.equal('port');
      for (const url of ['http://example.com/', 'https://example.com:443/', 'http://example.com:8080/v1', 'https://1.1.1.1/'])
        expect(rule(url), url).to.equal('ok');
      expect(rule('not a url')).to.equal('url');
    });

    it('refuses more spellings and ranges', () => {
      for (const host of [
        '0x7f.1',
        '017700000001',
        '[::]',
        '[0:0:0:0:0:ffff:7f00:1]',
        '[::127.0.0.1]',
        '[64:ff9b::a00:1]',
        '[2002:7f00:1::]',
        '[2001::1]',
        '192.0.2.1',
        '224.0.0.1',
        '255.255.255.255',
        '[fec0::1]',
        '198.18.0.1',
      ]) {
        expect(rule(`http://${host}/`), host).to.equal('address');
      }
      for (const host of ['localhost.', 'LOCALHOST', 'foo.localhost', 'intranet', 'printer.'])
        expect(rule(`http://${host}/`), host).to.equal('address');
      for (const host of ['1.1.1.1', '[2606:4700:4700::1111]', 'example.com', 'EXAMPLE.com.'])
        expect(rule(`http://${host}/`), host).to.equal('ok');
    });

    it('exempts allow-listed hosts from the address rule only', () => {
      const allow = parseAllowHosts(' 127.0.0.1:8080, LLM.internal ,[::1]:9000,');
      expect(allow).to.deep.equal(['127.0.0.1:8080', 'llm.internal', '[::1]:9000']);
      expect(rule('http://127.0.0.1:8080/', allow)).to.equal('ok');
      expect(rule('http://127.0.0.1:8081/', allow)).to.equal('address');
      expect(rule('http://llm.internal:5000/', allow)).to.equal('ok');
      expect(rule('http://[::1]:9000/', allow)).to.equal('ok');
      expect(rule('ftp://llm.internal/', allow)).to.equal('scheme');
      expect(rule('http://u:p@llm.internal/', allow)).to.equal('userinfo');
      expect(rule('http://llm.internal:22/', allow)).to.equal('port');
    });

    it("applies an allow-list entry's port to that entry alone", () => {
      const allow = parseAllowHosts('10.0.0.5,gateway.internal:22');
      // The port named for gateway.internal does not open it for 10.0.0.5.
      expect(rule('http://10.0.0.5:22/', allow)).to.equal('port');
      expect(rule('http://10.0.0.5:8080/', allow)).to.equal('ok');
      expect(rule('http://gateway.internal:22/', allow)).to.equal('ok');
      expect(allowListing('gateway.internal', 2323, allow)).to.equal(null);
      expect(rule('http://example.com:22/', allow)).to.equal('port');
    });

    it('refuses the documented cloud platform endpoints, by address and by name', () => {
      for (const { address } of CLOUD_PLATFORM_ADDRESSES) {
        expect(rule(`http://${address}/`), address).to.equal('address');
        expect(checkResolvedAddresses([address])?.message, address).to.include('cloud platform');
      }
      expect(rule('http://168.63.129.16:32526/')).to.equal('address');
      for (const { name } of CLOUD_PLATFORM_NAMES) expect(rule(`https://${name}/metadata`), name).to.equal('address');
      // The others are in non-public ranges already (the list in target-address.ts says which).
      for (const host of [
        '169.254.169.254',
        '169.254.170.2',
        '169.254.0.23',
        '169.254.42.42',
        '[fd00:ec2::254]',
        '[fd20:ce::254]',
        '100.100.100.200',
        '192.0.0.192',
      ])
        expect(rule(`http://${host}/`), host).to.equal('address');
      // Its neighbours stay public.
      expect(rule('http://168.63.129.17/')).to.equal('ok');
    });

    it('refuses every IPv4 address outside public unicast, in decimal, hex, octal and integer spelling', () => {
      const nonPublic = fc.oneof(
        fc.tuple(fc.constant(127), fc.nat(255), fc.nat(255), fc.nat(255)),
        fc.tuple(fc.constant(10), fc.nat(255), fc.nat(255), fc.nat(255)),
        fc.tuple(fc.constant(172), fc.integer({ min: 16, max: 31 }), fc.nat(255), fc.nat(255)),
        fc.tuple(fc.constant(192), fc.constant(168), fc.nat(255), fc.nat(255)),
        fc.tuple(fc.constant(169), fc.constant(254), fc.nat(255), fc.nat(255)),
        fc.tuple(fc.constant(100), fc.integer({ min: 64, max: 127 }), fc.nat(255), fc.nat(255)),
        fc.tuple(fc.constant(0), fc.nat(255), fc.nat(255), fc.nat(255)),
        fc.tuple(fc.integer({ min: 224, max: 255 }), fc.nat(255), fc.nat(255), fc.nat(255)),
      );
      const spellings = (octets: number[]) => {
        const integer = octets.reduce((sum, octet) => sum * 256 + octet, 0);
        return [
          octets.join('.'),
          octets.map((o) => `0x${o.toString(16)}`).join('.'),
          octets.map((o) => `0${o.toString(8)}`).join('.'),
          String(integer),
          `0x${integer.toString(16)}`,
        ];
      };
      fc.assert(
        fc.property(nonPublic, (octets) => {
          for (const host of spellings(octets)) expect(rule(`http://${host}:8080/`), host).to.equal('address');
        }),
        { numRuns: 300 },
      );
    });
  });

  describe('requests', () => {
    it('answers through the allow-list; a 500 is returned, not thrown; vet shows the addresses', async () => {
      const failing = await loopbackServer((_req, res) => res.writeHead(500, { 'content-type': 'application/json' }).end('{"error":"x"}'));
      const allowed = createOutboundClient({ allowHosts: ['127.0.0.1'] });
      try {
        const answer = await allowed.request(`http://127.0.0.1:${target.port}/`, { method: 'GET' });
        expect(answer).to.include({ status: 200, text: '{"ok":true}' });
        expect((await allowed.request(`http://127.0.0.1:${failing.port}/`, { method: 'POST', json: { a: 1 } })).status).to.equal(500);
        const vetted = await allowed.vet(`http://127.0.0.1:${target.port}/v1`);
        expect(vetted).to.deep.include({ hostname: '127.0.0.1', port: target.port, allowListed: true });
        // Allowed, but still not echoed as an address: it is not public.
        expect(vetted.addresses).to.deep.equal([{ address: null, family: 4, range: 'loopback', public: false }]);
      } finally {
        await allowed.close();
        await failing.close();
      }
    });

    it('caps bodies, times out, and stops when cancelled', async () => {
      const big = await loopbackServer((_req, res) => res.end('x'.repeat(5000)));
      const hanging = await loopbackServer(() => undefined);
      const allowed = createOutboundClient({ allowHosts: ['127.0.0.1'], maxBodyBytes: 1000, timeoutMs: 300 });
      try {
        expect((await failure(allowed.request(`http://127.0.0.1:${big.port}/`, { method: 'GET' }))).kind).to.equal('too_large');
        expect((await failure(allowed.request(`http://127.0.0.1:${hanging.port}/`, { method: 'GET' }))).kind).to.equal('timeout');
        const controller = new AbortController();
        setTimeout(() => controller.abort(), 50);
        expect(
          (
            await failure(
              allowed.request(`http://127.0.0.1:${hanging.port}/`, { method: 'GET', signal: controller.signal, timeoutMs: 5000 }),
            )
          ).kind,
        ).to.equal('cancelled');
      } finally {
        await allowed.close();
        await big.close();
        await hanging.close();
      }
    });

    it('reports a name that does not resolve as a refusal from vet and a failure from request', async () => {
      expect((await refusal(client.vet('http://nowhere.test/'))).reason).to.equal('The host name does not resolve');
      expect((await refusal(client.request('http://nowhere.test/', { method: 'GET' }))).rule).to.equal('url');
    });
  });
});
