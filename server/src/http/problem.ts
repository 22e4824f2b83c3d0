import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { isDatabaseUnavailable, isTransactionConflict } from '../kernel/db/errors.js';
import { AppError, ERROR_CATALOGUE, type ErrorCode, type FieldError } from '../kernel/errors.js';
import { setCommonHeaders } from './common-headers.js';
import { createFailureLog } from './failure-log.js';
import { documentFrameworkErrors } from './framework-responses.js';
import { validationToFieldErrors } from './validation.js';
import { sendProblemPage, wantsProblemPage } from './problem-page.js';

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
  if (error instanceof SyntaxError || (error.statusCode === 400 && /JSON/i.test(error.message))) {
    return new AppError('malformed_json', 'The request body is not valid JSON.');
  }
  const status = clientErrorStatus(error);
  if (status !== undefined) return clientError(status, error);
  // The database is down or restarting: nothing is wrong with the request, so say when to retry.
  if (isDatabaseUnavailable(error)) {
    return new AppError('service_unavailable', 'The database is unreachable at the moment; try again shortly.', { headers: { 'Retry-After': '5' } });
  }
  if (isTransactionConflict(error)) {
    return new AppError('service_unavailable', 'The request collided with another one changing the same data; send it again.', { headers: { 'Retry-After': '1' } });
  }
  return new AppError('internal_error', 'Something went wrong on our side. Quote the request_id if you contact support.');
}

/**
 * The 4xx an error from Fastify or a plugin carries (`statusCode`, or `status` on http-errors
 * objects such as @fastify/send's), if any: the client asked for something that cannot be
 * served, so it is that 4xx, never a 500.
 */
function clientErrorStatus(error: FastifyError & { status?: unknown }): number | undefined {
  const status = error.statusCode ?? error.status;
  return typeof status === 'number' && status >= 400 && status < 500 ? status : undefined;
}

/** Headers a framework 4xx brings that belong to its answer: a 416's Content-Range (the length), a 405's Allow. */
const CLIENT_ERROR_HEADERS = ['Content-Range', 'Allow'];

/**
 * A framework or plugin 4xx as its catalogue problem. A 403 from the static file server (a dot
 * segment, NUL, an encoded slash, an over-long name) is a 404: which paths exist on disk is not
 * the client's business. A 4xx with no code of its own is 400 invalid_request.
 */
function clientError(status: number, error: FastifyError & { headers?: unknown }): AppError {
  const given = (error.headers ?? {}) as Record<string, unknown>;
  const headers: Record<string, string> = {};
  for (const name of CLIENT_ERROR_HEADERS) {
    const value = given[name] ?? given[name.toLowerCase()];
    if (typeof value === 'string') headers[name] = value;
  }
  switch (status) {
    case 403:
    case 404:
      return new AppError('not_found', 'No resource matches this path.');
    case 405:
      return new AppError('method_not_allowed', 'This method is not allowed here.', { headers });
    case 406:
      return new AppError('not_acceptable', 'No representation of this resource matches the Accept header.');
    case 408:
      return new AppError('request_timeout', 'The request was not received in time.');
    case 409:
      return new AppError('conflict', 'The request conflicts with the current state of the resource.');
    case 412:
      return new AppError('precondition_failed', 'A condition in the request headers (If-Match, If-Unmodified-Since) does not hold.');
    case 413:
      return new AppError('payload_too_large', 'The request body is larger than the limit.');
    case 415:
      return new AppError('unsupported_media_type', 'Send the body as application/json.');
    case 416:
      return new AppError('range_not_satisfiable', 'The requested range lies outside the resource.', { headers });
    case 431:
      return new AppError('header_too_large', 'The request headers are larger than 16 KiB in all.');
    default:
      return new AppError('invalid_request', 'The request could not be read.');
  }
}

/** An error as a problem document (RFC 9457), as every answer carries it (its headers are not part of it). */
export function problemBody(error: AppError, publicUrl: string, requestId: string): ProblemBody {
  const { errors, headers: _headers, ...extra } = error.extra;
  const body: ProblemBody = {
    type: problemTypeUri(publicUrl, error.code),
    title: ERROR_CATALOGUE[error.code].title,
    status: error.status,
    detail: error.message,
    code: error.code,
    request_id: requestId,
    ...extra,
  };
  if (errors?.length) body.errors = errors;
  return body;
}

export function sendProblem(reply: FastifyReply, publicUrl: string, error: AppError): FastifyReply {
  const body = problemBody(error, publicUrl, String(reply.request.id));
  const { headers } = error.extra;
  if (headers) reply.headers(headers);
  if (wantsProblemPage(reply)) return sendProblemPage(reply, body, publicUrl);
  return reply.code(error.status).type('application/problem+json').send(body);
}

/**
 * Errors Fastify raises while routing (bad percent-encoding, an over-long path parameter) skip
 * setErrorHandler and the onRequest hooks; passed as the `frameworkErrors` option, they become
 * problem details with an X-Request-Id like every other answer.
 */
export function frameworkErrorHandler(publicUrl: string) {
  return (error: FastifyError, request: FastifyRequest, reply: FastifyReply): void => {
    setCommonHeaders(request, reply);
    const appError = toAppError(error);
    if (appError.status >= 500) request.log.error({ err: error }, 'request failed');
    void sendProblem(reply, publicUrl, appError);
  };
}

/** The one place errors become responses. Registered on the root instance. */
export function registerProblemHandlers(app: FastifyInstance, opts: {
  publicUrl: string;
  allowedMethods: (url: string) => string[];
  /** Told of every request no route matched (metrics). */
  onNotFound?: (request: FastifyRequest, reply: FastifyReply) => void;
}) {
  documentFrameworkErrors(app);
  const logFailure = createFailureLog();
  app.setErrorHandler((error: FastifyError, request: FastifyRequest, reply: FastifyReply) => {
    const appError = toAppError(error);
    logFailure(request, error, appError);
    return sendProblem(reply, opts.publicUrl, appError);
  });

  app.setNotFoundHandler((request, reply) => {
    setCommonHeaders(request, reply);
    opts.onNotFound?.(request, reply);
    const allowed = opts.allowedMethods(request.url);
    // A route of this method matched and found nothing (a missing static file): a 404, not a 405.
    const method = request.method === 'HEAD' ? 'GET' : request.method;
    if (allowed.length > 0 && !allowed.includes(method)) {
      reply.header('Allow', allowed.join(', '));
      return sendProblem(reply, opts.publicUrl, new AppError('method_not_allowed', `${request.method} is not allowed here; use ${allowed.join(', ')}.`));
    }
    return sendProblem(reply, opts.publicUrl, new AppError('not_found', `No route matches ${request.method} ${request.url.split('?')[0]}.`));
  });
}
