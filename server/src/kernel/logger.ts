import { pino, type DestinationStream, type Logger } from 'pino';

/** Secrets that must never reach a log line, wherever they appear in a logged object. */
export const REDACT_PATHS = [
  'req.headers.authorization',
  'req.headers.cookie',
  'headers.authorization',
  '*.password',
  '*.new_password',
  '*.current_password',
  '*.refresh_token',
  '*.access_token',
  '*.token',
  '*.key',
  '*.secret',
];

/**
 * Every credential Gatehouse issues, by its shape: API keys (`gth_`), refresh tokens (`gthr_`),
 * verification, reset and passwordless sign-in tokens (`gthv_`, `gthp_`, `gths_`), webhook secrets (`whsec_`), JWTs.
 */
const CREDENTIAL = String.raw`\b(?:gth[rvps]?_|whsec_)[A-Za-z0-9_%+/=-]+|\beyJ[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]*`;
const HAS_CREDENTIAL = new RegExp(CREDENTIAL);
const EVERY_CREDENTIAL = new RegExp(CREDENTIAL, 'g');

/** `text` with every credential in it replaced (message strings: Fastify's own warnings quote the raw URL). */
export function scrubCredentials(text: string): string {
  return text.replace(EVERY_CREDENTIAL, '[redacted]');
}

/** A URL without its query: the query of a reset or verification link is the token. */
export function withoutQuery(url: string): string {
  const query = url.indexOf('?');
  return query === -1 ? url : `${url.slice(0, query)}?[redacted]`;
}

/** Fastify's `req` serializer, minus the query string. */
function serializeRequest(req: { method?: string; url?: string; host?: string; ip?: string; socket?: { remotePort?: number } }) {
  return { method: req.method, url: req.url === undefined ? undefined : withoutQuery(req.url), host: req.host, remoteAddress: req.ip, remotePort: req.socket?.remotePort };
}

export function createLogger(level: string, destination?: DestinationStream): Logger {
  return pino(
    {
      level,
      redact: { paths: REDACT_PATHS, censor: '[redacted]' },
      serializers: { req: serializeRequest },
      hooks: {
        // Objects are covered by the paths above; strings (the message) are checked here.
        logMethod(args, method) {
          for (let i = 0; i < args.length; i++) {
            const arg = args[i];
            if (typeof arg === 'string' && HAS_CREDENTIAL.test(arg)) args[i] = scrubCredentials(arg);
          }
          method.apply(this, args as Parameters<typeof method>);
        },
      },
    },
    destination,
  );
}
