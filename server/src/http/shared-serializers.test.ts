import { describe, expect, it } from 'vitest';
import { buildSharedSerializer } from './shared-serializers.js';

const problem = { $id: 'Problem', type: 'object', properties: { code: { type: 'string' }, status: { type: 'integer' } } };
const refusal = { $ref: 'Problem#', description: 'Rate limited' };

describe('buildSharedSerializer', () => {
  it('compiles a schema once for every route and app that answers with it, against the same shared schemas', () => {
    const first = buildSharedSerializer({ Problem: problem }, {})({ schema: refusal });
    const again = buildSharedSerializer({ Problem: problem }, {})({ schema: { ...refusal } });
    expect(again).toBe(first);
    expect(JSON.parse(first({ code: 'rate_limited', status: 429, secret: 'x' }))).toEqual({ code: 'rate_limited', status: 429 });
  });

  it('compiles again when the shared schemas it may reference differ', () => {
    const wider = { ...problem, properties: { ...problem.properties, detail: { type: 'string' } } };
    const narrow = buildSharedSerializer({ Problem: problem }, {})({ schema: refusal });
    const wide = buildSharedSerializer({ Problem: wider }, {})({ schema: refusal });
    expect(wide).not.toBe(narrow);
    expect(JSON.parse(wide({ code: 'c', detail: 'd' }))).toEqual({ code: 'c', detail: 'd' });
  });

  it('compiles a shared schema answered by its own $id without passing it as a reference to itself', () => {
    const serialize = buildSharedSerializer({ Problem: problem }, {})({ schema: problem });
    expect(JSON.parse(serialize({ code: 'c', status: 400 }))).toEqual({ code: 'c', status: 400 });
  });
});
