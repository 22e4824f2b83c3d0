import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { isDatabaseUnavailable } from '../infra/db/errors.js';
import { AppError, ERROR_CATALOGUE, type ErrorCode, type FieldError } from './error-catalogue.js';
import { createFailureLog } from './failure-log.js';
import { documentFrameworkErrors } from './framework-responses.js';
import { validationToFieldErrors } from './validation.js';

export interface ProblemBody {
  type: string;
  title: string;
  status: number;
  detail: string;
  code: ErrorCode;
  request_id: string;
  errors?: FieldError[];
  [extra: string]: unknown;
}

export function problemTypeUri(publicUrl: string, code: ErrorCode): string {
  return `${publicUrl}/docs/errors#${code}`;
}

/** Framework errors that clients cause, mapped to our public codes. Anything else is a 500. */
function toAppError(error: FastifyError): AppError {
  if (error instanceof AppError) return error;
  if (error.validation) {
    const errors = validationToFieldErrors(error.validation, error.validationContext ?? 'body');
    return new AppError('validation_failed', errors[0]?.message ?? 'The request is not valid.', { errors });
  }
  switch (error.code) {
    case 'FST_ERR_CTP_INVALID_JSON_BODY':
    case 'FST_ERR_CTP_EMPTY_JSON_BODY':
      return new AppError('malformed_json', 'The request body is not valid JSON.');
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return new AppError('payload_too_large', 'The request body is larger than the limit.');
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
    case 'FST_ERR_CTP_INVALID_TYPE':
      return new AppError('unsupported_media_type', 'Send the body as application/json.');
    // A path parameter longer than the router allows cannot name anything that exists.
    case 'FST_ERR_MAX_PARAM_LENGTH':
      return new AppError('not_found', 'No resource matches this path.');
    case 'FST_ERR_CTP_INVALID_CONTENT_LENGTH':
    case 'FST_ERR_BAD_URL':
    case 'FST_ERR_ASYNC_CONSTRAINT':
    case 'FST_ERR_CTP_INVALID_PARAMETER':
      return new AppError('invalid_request', 'The request could not be read.');
  }
  if (error.statusCode === 413) return new AppError('payload_too_large', 'The request body is larger than the limit.');
  if (error.statusCode === 415) return new AppError('unsupported_media_type', 'Send the body as application/json.');
  if (error instanceof SyntaxError || (error.statusCode === 400 && /JSON/i.test(error.message))) {
    return new AppError('malformed_json', 'The request body is not valid JSON.');
  }
  // Any other client error a plugin raises with a status of its own (@fastify/static: 403 for a
  // path with a NUL byte or too long a name, 404, 416 for a range past the end): the client's
  // doing, so its 4xx problem, never a 500.
  if (error.statusCode !== undefined && error.statusCode >= 400 && error.statusCode < 500) return clientError(error.statusCode);
  // The database is down or restarting: nothing is wrong with the request, so say when to retry.
  if (isDatabaseUnavailable(error)) {
    return new AppError('service_unavailable', 'The database is unreachable at the moment; try again shortly.', { headers: { 'Retry-After': '5' } });
  }
  return new AppError('internal_error', 'Something went wrong on our side. Quote the request_id if you contact support.');
}

/** A plugin's 4xx as the catalogue's problem. A forbidden file is "not found": the file system's layout stays private. */
function clientError(status: number): AppError {
  switch (status) {
    case 403:
    case 404:
    case 410:
      return new AppError('not_found', 'No resource matches this path.');
    case 405:
      return new AppError('method_not_allowed', 'This method is not allowed here.');
    case 408:
      return new AppError('request_timeout', 'The request took too long to arrive.');
    case 416:
      return new AppError('range_not_satisfiable', 'The requested range is outside the file.');
    default:
      return new AppError('invalid_request', 'The request could not be read.');
  }
}

export function sendProblem(reply: FastifyReply, publicUrl: string, error: AppError): FastifyReply {
  const { errors, headers, ...extra } = error.extra;
  const body: ProblemBody = {
    type: problemTypeUri(publicUrl, error.code),
    title: ERROR_CATALOGUE[error.code].title,
    status: error.status,
    detail: error.message,
    code: error.code,
    request_id: String(reply.request.id),
    ...extra,
  };
  if (errors?.length) body.errors = errors;
  if (headers) reply.headers(headers);
  return reply.code(error.status).type('application/problem+json').send(body);
}

/**
 * Errors Fastify raises while routing (bad percent-encoding, an over-long path parameter) skip
 * setErrorHandler and the onRequest hooks; passed as the `frameworkErrors` option, they become
 * problem details with an X-Request-Id like every other answer.
 */
export function frameworkErrorHandler(publicUrl: string) {
  return (error: FastifyError, request: FastifyRequest, reply: FastifyReply): void => {
    reply.header('X-Request-Id', request.id);
    reply.header('X-Content-Type-Options', 'nosniff');
    const appError = toAppError(error);
    if (appError.status >= 500) request.log.error({ err: error }, 'request failed');
    void sendProblem(reply, publicUrl, appError);
  };
}

/** The one place errors become responses. Registered on the root instance. */
export function registerProblemHandlers(app: FastifyInstance, opts: { publicUrl: string; allowedMethods: (url: string) => string[] }) {
  documentFrameworkErrors(app);
  const logFailure = createFailureLog();
  app.setErrorHandler((error: FastifyError, request: FastifyRequest, reply: FastifyReply) => {
    const appError = toAppError(error);
    logFailure(request, error, appError);
    return sendProblem(reply, opts.publicUrl, appError);
  });

  app.setNotFoundHandler((request, reply) => {
    const allowed = opts.allowedMethods(request.url);
    // A route that takes this method passed the request on (a static file that does not exist): 404, not 405.
    const methodServed = allowed.includes(request.method) || (request.method === 'HEAD' && allowed.includes('GET'));
    if (allowed.length > 0 && !methodServed) {
      reply.header('Allow', allowed.join(', '));
      return sendProblem(reply, opts.publicUrl, new AppError('method_not_allowed', `${request.method} is not allowed here; use ${allowed.join(', ')}.`));
    }
    return sendProblem(reply, opts.publicUrl, new AppError('not_found', `No route matches ${request.method} ${request.url.split('?')[0]}.`));
  });
}
