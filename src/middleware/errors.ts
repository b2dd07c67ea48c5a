import type { ErrorRequestHandler, Request, RequestHandler, Response } from 'express';
import type { AppContext } from '../app-context.ts';
import type { DatabaseHealth } from '../db/health.ts';
import { translateDbError } from '../db/errors.ts';
import { DatabaseUnavailable, HttpError, NotFound, PayloadTooLarge } from '../lib/errors.ts';
import { messages } from '../messages.ts';
import { render } from '../web/views.ts';
import { isApiRequest, isHtmxRequest } from './request-kind.ts';

/** Errors raised by express.json()/urlencoded() carry a `type` naming the failure. */
interface BodyParserError extends Error {
  type?: string;
  status?: number;
  expose?: boolean;
  /** Of 'entity.too.large': the limit passed, in bytes. */
  limit?: number;
}

function toHttpError(error: unknown): HttpError | undefined {
  if (error instanceof HttpError) return error;
  const parserError = error as BodyParserError;
  switch (parserError?.type) {
    case 'entity.parse.failed':
      return new HttpError(400, messages.malformedJson);
    case 'entity.too.large':
      // The quality writes take larger bodies than the rest: say which limit was passed.
      return typeof parserError.limit === 'number'
        ? new PayloadTooLarge(messages.payloadTooLargeOf(`${Math.round(parserError.limit / 1024 / 1024)} MB`))
        : new PayloadTooLarge();
    case 'encoding.unsupported':
    case 'charset.unsupported':
      return new HttpError(415, messages.unsupportedEncoding);
    case 'request.aborted':
      return new HttpError(400, messages.requestAborted);
    case 'parameters.too.many':
      return new HttpError(413, messages.tooManyFormFields);
  }
  // The router fails to decode a parameter such as '%E0%A4%A' with a URIError marked 400.
  if (error instanceof URIError) return new HttpError(400, messages.malformedUrlEncoding);
  if (parserError?.expose && parserError.status && parserError.status < 500) {
    return new HttpError(parserError.status, parserError.message);
  }
  return translateDbError(error);
}

/** A stream piped into a response that closed first: the client left (a download abandoned). */
const clientLeft = (error: unknown) => (error as { code?: unknown } | undefined)?.code === 'ERR_STREAM_PREMATURE_CLOSE';

/**
 * A failure after the answer began (a streamed export cut short by an outage, or by the
 * client leaving): no error answer can follow, so the connection is closed and the download
 * ends incomplete. Handing it to Express's fallback would print the stack per request; an
 * outage goes to the database health (logged once), a departed client is not an error.
 */
function abandonStartedAnswer(error: unknown, req: Request, res: Response, databaseHealth: DatabaseHealth): void {
  if (translateDbError(error) instanceof DatabaseUnavailable) databaseHealth.failed(error);
  else if (!clientLeft(error)) req.log?.error({ err: error, requestId: req.id }, 'failed after the answer began');
  res.destroy();
}

export const notFound: RequestHandler = () => {
  throw new NotFound();
};

/**
 * The one error handler: JSON under /api, an error fragment for htmx, an error page
 * otherwise. Unknown errors are logged with the request id and answered with a bare 500.
 * A database outage is a 503 with Retry-After; it is reported to the database health,
 * which logs it once, so the request itself logs no error and no stack.
 */
export function errorHandler({ databaseHealth }: Pick<AppContext, 'databaseHealth'>): ErrorRequestHandler {
  // Four parameters, or Express would not take it for an error handler.
  return (error, req, res, _next) => {
    if (res.headersSent) return abandonStartedAnswer(error, req, res, databaseHealth);
    let httpError = toHttpError(error);
    if (httpError instanceof DatabaseUnavailable) databaseHealth.failed(httpError.cause);
    if (!httpError) {
      req.log?.error({ err: error, requestId: req.id }, 'unhandled error');
      httpError = new HttpError(500, messages.internalError);
    }
    for (const [name, value] of Object.entries(httpError.headers)) res.setHeader(name, value);

    if (isApiRequest(req)) {
      res.status(httpError.status).json(httpError.toJSON());
      return;
    }
    if (httpError.status >= 300 && httpError.status < 400) {
      res.status(httpError.status).end();
      return;
    }
    const data = {
      status: httpError.status,
      message: httpError.message,
      title: `${httpError.status} ${httpError.message}`,
      explanation: httpError instanceof DatabaseUnavailable ? messages.databaseUnavailablePage : undefined,
    };
    try {
      render(res, isHtmxRequest(req) ? 'partials/error' : 'errors/error', data, httpError.status);
    } catch (renderError) {
      // A broken error page must still not leak a stack trace.
      req.log?.error({ err: renderError, requestId: req.id }, 'error page failed to render');
      res.status(httpError.status).type('text').send(`${httpError.status} ${httpError.message}`);
    }
  };
}
