import type { FastifyRequest } from 'fastify';
import { describe, expect, it } from 'vitest';
import { AppError } from '../kernel/errors.js';
import { createFailureLog } from './failure-log.js';

function recordingRequest() {
  const lines: { level: string; fields: Record<string, unknown>; msg: string }[] = [];
  const log = {
    error: (fields: Record<string, unknown>, msg: string) => lines.push({ level: 'error', fields, msg }),
    warn: (fields: Record<string, unknown>, msg: string) => lines.push({ level: 'warn', fields, msg }),
  };
  return { request: { log } as unknown as FastifyRequest, lines };
}

describe('failure log', () => {
  it('logs every 500 with its error, nothing for 4xx', () => {
    const { request, lines } = recordingRequest();
    const logFailure = createFailureLog(() => 0);
    const bug = new Error('boom');
    for (let i = 0; i < 3; i++) logFailure(request, bug, new AppError('internal_error'));
    logFailure(request, new AppError('not_found'), new AppError('not_found'));
    expect(lines).toHaveLength(3);
    expect(lines.every((l) => l.level === 'error' && l.fields.err === bug)).toBe(true);
  });

  it('logs each kind of 503 once per 10 s, then says how many it left out', () => {
    const { request, lines } = recordingRequest();
    let now = 1_000_000;
    const logFailure = createFailureLog(() => now);
    const down = new Error('connect ECONNREFUSED 127.0.0.1:5432');
    const database = new AppError('service_unavailable', 'The database is unreachable at the moment; try again shortly.');
    const shed = new AppError('service_unavailable', 'Too many passwords are being checked right now; retry in a second.');
    for (let i = 0; i < 500; i++) logFailure(request, down, database);
    for (let i = 0; i < 50; i++) logFailure(request, shed, shed);
    expect(lines.map((l) => [l.level, l.fields.suppressed])).toEqual([['error', 0], ['warn', 0]]);
    expect(lines[0]!.fields.err).toBe(down);
    expect(lines[1]!.fields.err).toBeUndefined(); // our own 503: no stack to show

    now += 10_000;
    logFailure(request, down, database);
    expect(lines).toHaveLength(3);
    expect(lines[2]!.fields).toMatchObject({ suppressed: 499, detail: database.message });
  });
});
