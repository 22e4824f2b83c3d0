import { describe, expect, it } from 'vitest';
import { createLogger, scrubCredentials, withoutQuery } from './logger.js';

function capture() {
  const lines: string[] = [];
  const logger = createLogger('trace', { write: (line: string) => void lines.push(line) });
  return { logger, text: () => lines.join('\n'), lines };
}

const RESET = 'gthp_Q2hhbmdlZC1ieS1hbi1hdHRhY2tlcg';
const JWT = 'eyJhbGciOiJFZERTQSJ9.eyJzdWIiOiJ1c3JfMSJ9.c2lnbmF0dXJl';

describe('logger', () => {
  it('drops the query of a logged request (Fastify logs { req } on some errors)', () => {
    const { logger, lines } = capture();
    logger.warn({ req: { method: 'GET', url: `/reset-password?token=${RESET}`, ip: '127.0.0.1' } }, 'writeHead failed');
    const line = JSON.parse(lines[0]!) as { req: { url: string; method: string } };
    expect(line.req).toMatchObject({ method: 'GET', url: '/reset-password?[redacted]' });
  });

  it('removes every credential shape from message strings (Fastify quotes raw URLs in some warnings)', () => {
    const { logger, text } = capture();
    logger.warn(`Reply was already sent, did you forget to "return reply" in the "/reset-password?token=${RESET}" (GET) route?`);
    logger.error({ reqId: 'req_1' }, `refused gth_AbC123_xyz, gthr_abc, gthv_def, whsec_c2VjcmV0+/= and ${JWT}`);
    expect(text()).toContain('in the \\"/reset-password?token=[redacted]\\" (GET) route');
    for (const secret of [RESET, 'gth_AbC123_xyz', 'gthr_abc', 'gthv_def', 'whsec_c2VjcmV0', JWT, 'c2lnbmF0dXJl']) expect(text()).not.toContain(secret);
  });

  it('redacts token fields in logged objects', () => {
    const { logger, text } = capture();
    logger.info({ body: { token: RESET, password: 'Pass-Word-1234', refresh_token: 'gthr_x' } }, 'body');
    expect(text()).not.toContain(RESET);
    expect(text()).not.toContain('Pass-Word-1234');
    expect(text()).toContain('"token":"[redacted]"');
  });

  it('leaves ordinary text alone', () => {
    expect(scrubCredentials('request failed: gathering eyJ is not a token')).toBe('request failed: gathering eyJ is not a token');
    expect(withoutQuery('/v1/agents')).toBe('/v1/agents');
  });
});
