/**
 * Exit codes of `llm-bench` (also in `llm-bench --help` and README), and the one error type
 * every expected failure is thrown as: the entry point prints its message as one line.
 */
export const EXIT = {
  ok: 0,
  /** Something unexpected (a bug): the message is printed, still without a stack trace. */
  internal: 1,
  /** Bad flags or input: a malformed key, an unreadable file, a missing --hf-id. */
  usage: 2,
  /** The engine answered, but not with a usable measurement (no stream, no tokens, unknown model). */
  measurementFailed: 3,
  /** The leaderboard refused the payload (400/404/422 from the dry-run or the submission). */
  validationFailed: 4,
  /** The engine or the leaderboard could not be reached, answered 5xx, or rate-limited without --wait. */
  serverUnavailable: 5,
  /** The leaderboard refused the API key (401/403). */
  authenticationFailed: 6,
} as const;

export type ExitCode = (typeof EXIT)[keyof typeof EXIT];

export class CliError extends Error {
  override name = 'CliError';
  constructor(
    readonly exitCode: ExitCode,
    message: string,
  ) {
    super(message);
  }
}

export const usageError = (message: string) => new CliError(EXIT.usage, message);
export const measurementFailed = (message: string) => new CliError(EXIT.measurementFailed, message);
export const serverUnavailable = (message: string) => new CliError(EXIT.serverUnavailable, message);

/** Why a fetch never got an answer, in words (connection refused, unknown host, timed out). */
export function networkReason(error: unknown): string {
  if (error instanceof Error && (error.name === 'TimeoutError' || error.name === 'AbortError')) return 'timed out';
  const cause = (error as { cause?: { code?: string; message?: string } })?.cause;
  switch (cause?.code) {
    case 'ECONNREFUSED':
      return 'connection refused';
    case 'ENOTFOUND':
    case 'EAI_AGAIN':
      return 'unknown host';
    case 'ECONNRESET':
    case 'UND_ERR_SOCKET':
      return 'connection dropped';
    case 'UND_ERR_HEADERS_TIMEOUT':
    case 'UND_ERR_BODY_TIMEOUT':
    case 'ETIMEDOUT':
      return 'timed out';
    default:
      return cause?.message ?? (error instanceof Error ? error.message : String(error));
  }
}

/** A one-line, bounded excerpt of an error answer (servers sometimes answer pages of HTML). */
export function errorExcerpt(body: string): string {
  let text = body;
  try {
    const parsed = JSON.parse(body) as { error?: unknown; message?: unknown; detail?: unknown };
    const error = parsed.error;
    text = String(
      (typeof error === 'object' && error !== null ? (error as { message?: unknown }).message : error) ??
        parsed.message ??
        parsed.detail ??
        body,
    );
  } catch {
    // not JSON: the raw text
  }
  const line = text.replace(/\s+/g, ' ').trim();
  return line.length > 200 ? `${line.slice(0, 197)}...` : line;
}
