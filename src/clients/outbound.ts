// PLACEHOLDER until the guard branch lands: same interface, allow-list only.
import { request as undiciRequest, Agent } from 'undici';
import { ValidationFailed } from '../lib/errors.ts';

export type TargetRule = 'url' | 'scheme' | 'userinfo' | 'port' | 'address';
export class TargetRefused extends ValidationFailed {
  constructor(readonly rule: TargetRule, message: string, field = 'baseUrl') {
    super({ fieldErrors: { [field]: [message] }, formErrors: [] });
  }
}
export type OutboundFailureKind = 'timeout' | 'connect' | 'tls' | 'redirect' | 'too_large' | 'cancelled' | 'refused';
export class OutboundFailure extends Error {
  constructor(readonly kind: OutboundFailureKind, message: string, readonly status?: number) {
    super(message);
  }
}
export interface ResolvedAddress { address: string; family: 4 | 6 }
export type Resolver = (hostname: string) => Promise<ResolvedAddress[]>;
export interface OutboundConfig { allowHosts: readonly string[]; resolve?: Resolver; timeoutMs?: number; maxBodyBytes?: number; connectTimeoutMs?: number }
export interface VettedAddress { address: string | null; family: 4 | 6; range: string; public: boolean }
export interface VettedTarget { url: URL; hostname: string; port: number; allowListed: boolean; addresses: VettedAddress[] }
export interface OutboundResponse { status: number; contentType: string; text: string; latencyMs: number; address: string }
export interface OutboundClient {
  vet(url: string, field?: string): Promise<VettedTarget>;
  request(url: string, init: { method: 'GET' | 'POST'; headers?: Record<string, string>; json?: unknown; signal?: AbortSignal; timeoutMs?: number; field?: string }): Promise<OutboundResponse>;
  close(): Promise<void>;
}

export function createOutboundClient(config: OutboundConfig): OutboundClient {
  const agent = new Agent();
  const vet = async (raw: string, field = 'baseUrl'): Promise<VettedTarget> => {
    let url: URL;
    try { url = new URL(raw); } catch { throw new TargetRefused('url', 'Must be a URL', field); }
    const port = Number(url.port || (url.protocol === 'https:' ? 443 : 80));
    const hostname = url.hostname.replace(/^\[|\]$/g, '');
    const allowListed = config.allowHosts.includes(hostname) || config.allowHosts.includes(`${hostname}:${port}`);
    if (!allowListed) throw new TargetRefused('address', 'Must be a public address', field);
    return { url, hostname, port, allowListed, addresses: [{ address: hostname, family: 4, range: 'unicast', public: true }] };
  };
  return {
    vet,
    async request(raw, init) {
      await vet(raw, init.field);
      const started = performance.now();
      const signal = AbortSignal.any([AbortSignal.timeout(init.timeoutMs ?? config.timeoutMs ?? 60_000), ...(init.signal ? [init.signal] : [])]);
      try {
        const res = await undiciRequest(raw, {
          dispatcher: agent,
          method: init.method,
          headers: { ...(init.json !== undefined ? { 'content-type': 'application/json' } : {}), ...init.headers },
          body: init.json !== undefined ? JSON.stringify(init.json) : undefined,
          signal,
        });
        if (res.statusCode >= 300 && res.statusCode < 400) {
          await res.body.dump();
          throw new OutboundFailure('redirect', `The server answered a redirect (${res.statusCode}); redirects are not followed`, res.statusCode);
        }
        const text = await res.body.text();
        return { status: res.statusCode, contentType: String(res.headers['content-type'] ?? ''), text, latencyMs: performance.now() - started, address: '' };
      } catch (error) {
        if (error instanceof OutboundFailure) throw error;
        if (init.signal?.aborted) throw new OutboundFailure('cancelled', 'Cancelled');
        if (signal.aborted) throw new OutboundFailure('timeout', 'The server did not answer in time');
        throw new OutboundFailure('connect', 'Could not connect to the server');
      }
    },
    close: () => agent.close(),
  };
}
