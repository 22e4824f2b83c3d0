import type { FastifyBaseLogger, FastifyServerOptions } from 'fastify';
import type { Bindings, ChildLoggerOptions, LevelWithSilentOrString, Logger } from 'pino';

type LogMethod = 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace';

/**
 * `request.log` for one request. Fastify would build a pino child logger (bindings serialised,
 * redaction set up) for every request, though at the usual levels almost no request logs
 * anything. This stands in for it and builds the child only when a line is actually written.
 */
class DeferredChildLogger {
  private instance: Logger | undefined;
  constructor(private readonly root: Logger, private readonly bindings: Bindings, private readonly options: ChildLoggerOptions) {}

  private real(): Logger {
    return (this.instance ??= this.root.child(this.bindings, this.options));
  }

  private write(level: LogMethod, args: unknown[]): void {
    if (!this.root.isLevelEnabled(level)) return;
    (this.real()[level] as (...a: unknown[]) => void)(...args);
  }

  get level(): LevelWithSilentOrString {
    return this.root.level;
  }
  set level(level: LevelWithSilentOrString) {
    this.real().level = level;
  }
  isLevelEnabled(level: string): boolean {
    return this.root.isLevelEnabled(level);
  }
  fatal(...args: unknown[]): void {
    this.write('fatal', args);
  }
  error(...args: unknown[]): void {
    this.write('error', args);
  }
  warn(...args: unknown[]): void {
    this.write('warn', args);
  }
  info(...args: unknown[]): void {
    this.write('info', args);
  }
  debug(...args: unknown[]): void {
    this.write('debug', args);
  }
  trace(...args: unknown[]): void {
    this.write('trace', args);
  }
  silent(): void {}
  child(bindings: Bindings, options?: ChildLoggerOptions): Logger {
    return this.real().child(bindings, options);
  }
}

/** Fastify's `childLoggerFactory` option: the deferred child above. */
export const deferredChildLoggerFactory: NonNullable<FastifyServerOptions['childLoggerFactory']> = (logger, bindings, options) =>
  new DeferredChildLogger(logger as Logger, bindings, options) as unknown as FastifyBaseLogger;

/** Whether `logger` writes lines of `level` (false for Fastify's silent stand-in logger). */
export function logsAt(logger: FastifyBaseLogger | Logger, level: string): boolean {
  return (logger as Partial<Logger>).isLevelEnabled?.(level) ?? false;
}
