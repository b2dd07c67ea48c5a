import { pino, type Logger, type DestinationStream } from 'pino';

export type { Logger };

// Anything that could carry a credential is masked before a log line is written.
export const redactedPaths = [
  'req.headers.authorization',
  'req.headers.cookie',
  'req.headers["x-csrf-token"]',
  'res.headers["set-cookie"]',
  'password',
  '*.password',
  'key',
  '*.key',
  'apiKey',
  '*.apiKey',
  'passwordHash',
  '*.passwordHash',
  'sessionSecret',
  '*.sessionSecret',
  '_csrf',
  '*._csrf',
];

/** A logger at `level` writing to `destination` (stdout by default) in `format`. */
export function createLogger(level: string, destination?: DestinationStream, format: LogFormat = 'json'): Logger {
  return pino(
    {
      level,
      base: { service: 'bench-leaderboard' },
      redact: { paths: redactedPaths, censor: '[Redacted]' },
      timestamp: pino.stdTimeFunctions.isoTime,
    },
    format === 'line' ? lineDestination(destination ?? process.stdout) : destination,
  );
}

/** `json`: one JSON object a line (production, for log collectors); `line`: short readable lines (development). */
export type LogFormat = 'json' | 'line';

/** The format when LOG_FORMAT does not say: JSON in production, readable lines anywhere else. */
export function defaultLogFormat(nodeEnv: string): LogFormat {
  return nodeEnv === 'production' ? 'json' : 'line';
}

const LEVEL_NAMES: Record<number, string> = { 10: 'TRACE', 20: 'DEBUG', 30: 'INFO', 40: 'WARN', 50: 'ERROR', 60: 'FATAL' };

/** Fields every line has, or that the short form already says. */
const SAID = new Set(['level', 'time', 'pid', 'hostname', 'service', 'msg', 'req', 'res', 'responseTime', 'err', 'reqId']);

/**
 * One pino JSON line as a short readable one: `12:00:01 GET /runs/1 200 4ms` for a request
 * (pino-http's), `12:00:01 WARN message key=value` otherwise; an error's stack follows on its
 * own lines. The request's headers and the rest of its ~1.7 KB are left out.
 */
export function formatLogLine(json: string): string {
  let entry: Record<string, unknown>;
  try {
    entry = JSON.parse(json) as Record<string, unknown>;
  } catch {
    return json.endsWith('\n') ? json : `${json}\n`;
  }
  const time = typeof entry.time === 'string' ? entry.time.slice(11, 19) : new Date().toISOString().slice(11, 19);
  const level = typeof entry.level === 'number' ? (LEVEL_NAMES[entry.level] ?? String(entry.level)) : 'INFO';
  const parts = [time];
  if (level !== 'INFO') parts.push(level);
  const req = entry.req as { method?: string; url?: string } | undefined;
  const res = entry.res as { statusCode?: number } | undefined;
  if (req?.method) {
    parts.push(req.method, String(req.url ?? ''), String(res?.statusCode ?? '-'));
    if (typeof entry.responseTime === 'number') parts.push(`${Math.round(entry.responseTime)}ms`);
    // pino-http's own message for a finished request says nothing the line does not.
    if (typeof entry.msg === 'string' && entry.msg !== 'request completed') parts.push(`(${entry.msg})`);
  } else if (typeof entry.msg === 'string') {
    parts.push(entry.msg);
  }
  for (const [key, value] of Object.entries(entry)) {
    if (!SAID.has(key)) parts.push(`${key}=${typeof value === 'string' ? value : JSON.stringify(value)}`);
  }
  const err = entry.err as { stack?: string; message?: string } | undefined;
  const stack = err ? `\n  ${String(err.stack ?? err.message ?? '').replace(/\n/g, '\n  ')}` : '';
  return `${parts.join(' ')}${stack}\n`;
}

/** A destination that writes each pino line through `formatLogLine`. */
export function lineDestination(out: { write(text: string): unknown } = process.stdout): DestinationStream {
  return {
    write(json: string) {
      out.write(formatLogLine(json.replace(/\n$/, '')));
    },
  };
}
