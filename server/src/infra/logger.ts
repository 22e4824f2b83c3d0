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
  '*.key',
  '*.secret',
];

export function createLogger(level: string, destination?: DestinationStream): Logger {
  return pino({ level, redact: { paths: REDACT_PATHS, censor: '[redacted]' } }, destination);
}
