/**
 * The guarded HTTP client of server-side execution: the only way the service calls a
 * server a user names (their OpenAI-compatible server) or the deployment's judge.
 *
 * - Every URL passes `checkTargetUrl` before dispatch (scheme, credentials, port, IP
 *   literals in any spelling: net connects to a literal without a lookup).
 * - Every new connection to a name goes through OUR lookup (undici `connect.lookup`): it
 *   resolves all addresses, refuses unless every one is public (or the host is allow-listed),
 *   and hands the socket only an address it vetted in that same call. So a DNS answer that
 *   changes between a check and the connection (rebinding) cannot steer a socket inward.
 *   TLS still verifies the certificate against the host name.
 * - Redirects are never followed (a 3xx is a failure), bodies are capped, requests time out.
 */
import dns from 'node:dns';
import type { LookupAddress } from 'node:dns';
import { Agent, buildConnector, request as undiciRequest } from 'undici';
import { ValidationFailed } from '../lib/errors.ts';
import {
  addressRange,
  checkResolvedAddresses,
  checkTargetUrl,
  isPublicAddress,
  isRefusal,
  type TargetRefusal,
  type TargetRule,
} from '../lib/target-address.ts';

export type { TargetRule } from '../lib/target-address.ts';

/** A target the guard refuses: 400 with `details.fieldErrors[field]` naming the rule. */
export class TargetRefused extends ValidationFailed {
  constructor(
    readonly rule: TargetRule,
    message: string,
    readonly field = 'baseUrl',
  ) {
    super({ fieldErrors: { [field]: [message] }, formErrors: [] });
  }
  /** The one message, for places that show it alone (an execution's error). */
  get reason(): string {
    return this.details.fieldErrors[this.field]![0]!;
  }
}

export type OutboundFailureKind = 'timeout' | 'connect' | 'tls' | 'redirect' | 'too_large' | 'cancelled';

/** A request that could not complete; `message` is short and safe to show (never the target's body). */
export class OutboundFailure extends Error {
  override name = 'OutboundFailure';
  constructor(
    readonly kind: OutboundFailureKind,
    message: string,
    readonly status?: number,
  ) {
    super(message);
  }
}

export interface ResolvedAddress {
  address: string;
  family: 4 | 6;
}
export type Resolver = (hostname: string) => Promise<ResolvedAddress[]>;

export interface OutboundConfig {
  allowHosts: readonly string[];
  /** Default: the system resolver (getaddrinfo, all addresses). Tests pass one backed by a fake DNS server. */
  resolve?: Resolver;
  /** Per request, headers and body together. Default 60 s. */
  timeoutMs?: number;
  /** Default 8 MiB. */
  maxBodyBytes?: number;
  /** Default 10 s. */
  connectTimeoutMs?: number;
}

export interface VettedAddress {
  /** Null for a non-public address: internal addresses are never echoed. */
  address: string | null;
  family: 4 | 6;
  range: string;
  public: boolean;
}
export interface VettedTarget {
  url: URL;
  hostname: string;
  port: number;
  allowListed: boolean;
  addresses: VettedAddress[];
}
export interface OutboundResponse {
  status: number;
  contentType: string;
  text: string;
  latencyMs: number;
}
export interface OutboundRequest {
  method: 'GET' | 'POST';
  headers?: Record<string, string>;
  json?: unknown;
  signal?: AbortSignal;
  timeoutMs?: number;
  /** A smaller cap than the client's, for answers that are small when honest. */
  maxBodyBytes?: number;
  /** The request field a refusal names (`baseUrl`, or `JUDGE_BASE_URL` for the judge). */
  field?: string;
}
export interface OutboundClient {
  /** Checks the URL and resolves the host (all addresses); throws TargetRefused with the rule broken. */
  vet(url: string, field?: string): Promise<VettedTarget>;
  /** One request on a socket pinned to a vetted address; a non-2xx other than 3xx is returned, not thrown. */
  request(url: string, init: OutboundRequest): Promise<OutboundResponse>;
  close(): Promise<void>;
}

export const systemResolver: Resolver = async (hostname) =>
  (await dns.promises.lookup(hostname, { all: true, verbatim: true })).map((entry) => ({
    address: entry.address,
    family: entry.family === 6 ? 6 : 4,
  }));

/** The error our lookup fails a connection with: a refusal, carried to `request`. */
class LookupRefused extends Error {
  readonly code = 'EXECUTE_TARGET_REFUSED';
  constructor(readonly refusal: TargetRefusal) {
    super(refusal.message);
  }
}

/** Walks an error and its causes. */
function* causes(error: unknown): Generator<unknown> {
  for (let current = error, depth = 0; current && depth < 5; current = (current as { cause?: unknown }).cause, depth += 1) yield current;
}

const DEFAULTS = { timeoutMs: 60_000, maxBodyBytes: 8 * 1024 * 1024, connectTimeoutMs: 10_000 };

export function createOutboundClient(config: OutboundConfig): OutboundClient {
  const resolve = config.resolve ?? systemResolver;
  const { timeoutMs, maxBodyBytes, connectTimeoutMs } = { ...DEFAULTS, ...config };

  /** Resolves a name; unless allow-listed, every address must be public. */
  async function resolvePublic(hostname: string, port: number): Promise<ResolvedAddress[]> {
    let addresses: ResolvedAddress[];
    try {
      addresses = await resolve(hostname);
    } catch {
      addresses = [];
    }
    const allowListed = checkTargetUrl(`http://${hostname.includes(':') ? `[${hostname}]` : hostname}:${port}/`, config.allowHosts);
    if (!isRefusal(allowListed) && allowListed.allowListed) {
      if (addresses.length === 0) throw new LookupRefused({ rule: 'url', message: 'The host name does not resolve' });
      return addresses;
    }
    const refusal = checkResolvedAddresses(addresses.map((entry) => entry.address));
    if (refusal) throw new LookupRefused(refusal);
    return addresses;
  }

  /** A lookup for connections to `port` (lookup itself is not told the port, the allow-list may name one). */
  const lookupFor =
    (port: number) =>
    (
      hostname: string,
      options: { all?: boolean },
      callback: (error: Error | null, address: string | LookupAddress[], family?: number) => void,
    ) => {
      resolvePublic(hostname, port).then(
        (addresses) => {
          // Only what was vetted in this call reaches the socket.
          if (options.all)
            callback(
              null,
              addresses.map((entry) => ({ address: entry.address, family: entry.family })),
            );
          else callback(null, addresses[0]!.address, addresses[0]!.family);
        },
        (error: Error) => callback(error, ''),
      );
    };

  const agent = new Agent({
    // A connector per connection, built with the lookup of that connection's port.
    connect: (options, callback) => {
      const port = Number(options.port) || (options.protocol === 'https:' ? 443 : 80);
      return buildConnector({ timeout: connectTimeoutMs, lookup: lookupFor(port) } as buildConnector.BuildOptions)(options, callback);
    },
    keepAliveTimeout: 4000,
  });

  function checked(raw: string, field: string) {
    const target = checkTargetUrl(raw, config.allowHosts);
    if (isRefusal(target)) throw new TargetRefused(target.rule, target.message, field);
    return target;
  }

  return {
    async vet(raw, field = 'baseUrl') {
      const target = checked(raw, field);
      let addresses: ResolvedAddress[];
      if (target.literal) {
        addresses = [{ address: target.literal, family: target.literal.includes(':') ? 6 : 4 }];
      } else {
        try {
          addresses = await resolvePublic(target.hostname, target.port);
        } catch (error) {
          if (error instanceof LookupRefused) throw new TargetRefused(error.refusal.rule, error.refusal.message, field);
          throw error;
        }
      }
      return {
        url: target.url,
        hostname: target.hostname,
        port: target.port,
        allowListed: target.allowListed,
        addresses: addresses.map((entry) => {
          const isPublic = isPublicAddress(entry.address);
          return { address: isPublic ? entry.address : null, family: entry.family, range: addressRange(entry.address), public: isPublic };
        }),
      };
    },

    async request(raw, init) {
      const field = init.field ?? 'baseUrl';
      const target = checked(raw, field);
      const started = performance.now();
      const bodyCap = Math.min(init.maxBodyBytes ?? maxBodyBytes, maxBodyBytes);
      const timeout = AbortSignal.timeout(init.timeoutMs ?? timeoutMs);
      const signal = init.signal ? AbortSignal.any([timeout, init.signal]) : timeout;
      try {
        const res = await undiciRequest(target.url, {
          dispatcher: agent,
          method: init.method,
          headers: {
            accept: 'application/json, text/event-stream',
            ...(init.json !== undefined ? { 'content-type': 'application/json' } : {}),
            ...init.headers,
          },
          body: init.json !== undefined ? JSON.stringify(init.json) : undefined,
          signal,
        });
        // A body not read is thrown away (its stream's abort error has nobody to tell).
        const discard = () => res.body.on('error', () => undefined).destroy();
        if (res.statusCode >= 300 && res.statusCode < 400) {
          discard();
          throw new OutboundFailure(
            'redirect',
            `The server answered a redirect (HTTP ${res.statusCode}); redirects are not followed`,
            res.statusCode,
          );
        }
        const declared = Number(res.headers['content-length']);
        if (declared > bodyCap) {
          discard();
          throw new OutboundFailure('too_large', `The answer is larger than ${bodyCap} bytes`);
        }
        const chunks: Buffer[] = [];
        let size = 0;
        for await (const chunk of res.body) {
          size += (chunk as Buffer).length;
          if (size > bodyCap) {
            discard();
            throw new OutboundFailure('too_large', `The answer is larger than ${bodyCap} bytes`);
          }
          chunks.push(chunk as Buffer);
        }
        const contentType = res.headers['content-type'];
        return {
          status: res.statusCode,
          contentType: Array.isArray(contentType) ? contentType.join(', ') : (contentType ?? ''),
          text: Buffer.concat(chunks).toString('utf8'),
          latencyMs: performance.now() - started,
        };
      } catch (error) {
        if (error instanceof OutboundFailure) throw error;
        for (const cause of causes(error))
          if (cause instanceof LookupRefused) throw new TargetRefused(cause.refusal.rule, cause.refusal.message, field);
        if (init.signal?.aborted) throw new OutboundFailure('cancelled', 'Cancelled');
        if (timeout.aborted)
          throw new OutboundFailure('timeout', `The server did not answer in time (${Math.round((init.timeoutMs ?? timeoutMs) / 1000)} s)`);
        const code = [...causes(error)].map((cause) => (cause as { code?: string }).code).find(Boolean) ?? '';
        if (code === 'UND_ERR_CONNECT_TIMEOUT') throw new OutboundFailure('timeout', 'Could not connect to the server in time');
        if (/CERT|SSL|TLS|SELF_SIGNED|ERR_TLS/i.test(code)) throw new OutboundFailure('tls', 'The TLS certificate could not be verified');
        if (code === 'ECONNREFUSED') throw new OutboundFailure('connect', 'The server refused the connection');
        throw new OutboundFailure('connect', 'Could not reach the server');
      }
    },

    close: () => agent.close(),
  };
}
