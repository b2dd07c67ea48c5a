/**
 * A raw HTTP client for the fuzzer: the path and query string go out exactly as given
 * (percent-encoding junk included), the body as given bytes with whatever Content-Type the
 * case names. fetch() would normalise the URL and refuse some of this.
 */
import http from 'node:http';

export interface RawRequest {
  method: string;
  /** Path and query string, already encoded as they should travel. */
  target: string;
  headers: Record<string, string>;
  body?: Buffer;
}

export interface RawResponse {
  status: number;
  headers: http.IncomingHttpHeaders;
  body: Buffer;
  ms: number;
}

const agent = new http.Agent({ keepAlive: true, maxSockets: 4 });

export class HttpClient {
  constructor(
    readonly baseUrl: string,
    private readonly timeoutMs: number,
  ) {}

  send(request: RawRequest): Promise<RawResponse> {
    const url = new URL(this.baseUrl);
    const started = performance.now();
    return new Promise((resolve, reject) => {
      const req = http.request(
        {
          host: url.hostname,
          port: url.port,
          method: request.method,
          path: request.target,
          agent,
          headers: { ...request.headers, 'Content-Length': String(request.body?.length ?? 0) },
          timeout: this.timeoutMs,
        },
        (res) => {
          const chunks: Buffer[] = [];
          res.on('data', (chunk: Buffer) => chunks.push(chunk));
          res.on('error', reject);
          res.on('end', () => {
            // A stream cut short after the headers (an export that failed midway) is no answer.
            if (!res.complete) return reject(new Error('the response was cut off before its end'));
            resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks), ms: performance.now() - started });
          });
        },
      );
      req.on('timeout', () => req.destroy(new Error(`no answer within ${this.timeoutMs} ms`)));
      req.on('error', reject);
      req.end(request.body);
    });
  }

  /** A GET with an optional session cookie, for the fuzzer's own bookkeeping. */
  get(target: string, headers: Record<string, string> = {}): Promise<RawResponse> {
    return this.send({ method: 'GET', target, headers });
  }

  /** An urlencoded form post, for the fuzzer's own sign-ins. */
  postForm(target: string, fields: Record<string, string>, headers: Record<string, string> = {}): Promise<RawResponse> {
    const body = Buffer.from(new URLSearchParams(fields).toString());
    return this.send({ method: 'POST', target, headers: { 'Content-Type': 'application/x-www-form-urlencoded', ...headers }, body });
  }

  postJson(target: string, value: unknown, headers: Record<string, string> = {}): Promise<RawResponse> {
    return this.send({
      method: 'POST',
      target,
      headers: { 'Content-Type': 'application/json', ...headers },
      body: Buffer.from(JSON.stringify(value)),
    });
  }

  static close(): void {
    agent.destroy();
  }
}

/** The session cookie a response sets (`bh.sid=...`), as a Cookie header value. */
export function sessionCookieOf(res: RawResponse): string | undefined {
  const cookies = res.headers['set-cookie'] ?? [];
  const session = cookies.find((cookie) => cookie.startsWith('bh.sid='));
  return session?.split(';')[0];
}

export function jsonOf(res: RawResponse): unknown {
  return JSON.parse(res.body.toString('utf8'));
}
