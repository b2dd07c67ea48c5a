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

export function createLogger(level: string, destination?: DestinationStream): Logger {
  return pino(
    {
      level,
      base: { service: 'bench-leaderboard' },
      redact: { paths: redactedPaths, censor: '[Redacted]' },
      timestamp: pino.stdTimeFunctions.isoTime,
    },
    destination,
  );
}
