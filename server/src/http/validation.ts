import { Ajv, type ErrorObject, type Options, type ValidateFunction } from 'ajv';
import addFormats from 'ajv-formats';
import type { FastifySchemaCompiler } from 'fastify';
import { isEmailAddress } from '../kernel/email-address.js';
import type { FieldError } from '../kernel/errors.js';

/**
 * Two validators: bodies are strict (no type coercion, unknown fields are errors, so typos
 * never pass silently); query strings and path params arrive as text and are coerced.
 */
function createAjv(options: Options) {
  const ajv = new Ajv({ allErrors: false, useDefaults: true, removeAdditional: false, strict: false, ...options });
  addFormats.default(ajv, ['uri', 'date-time', 'uuid']);
  // The same rule a provider's address obeys (kernel/email-address.ts).
  ajv.addFormat('email', isEmailAddress);
  // Registered as known keywords so OpenAPI-only annotations do not trip the compiler.
  ajv.addKeyword({ keyword: 'example' });
  return ajv;
}

// allErrors so a client sees every problem at once; bodies are size-bounded, so the cost is too.
const bodyAjv = createAjv({ coerceTypes: false, allErrors: true });
const textAjv = createAjv({ coerceTypes: 'array' });

/** NUL, or a lone surrogate (with the u flag a paired surrogate is one code point and does not match). */
const NOT_TEXT = /[\u0000\p{Cs}]/u;

/**
 * Deeper than this, a value is refused (`too_deep`): no schema of ours nests so far, and a member
 * a schema leaves open (a WebAuthn credential's extension results) must not take a recursive walk
 * (this one, or a library's) past the stack: a 500 found by the fuzz suite.
 */
const MAX_DEPTH = 32;

interface Refusal {
  at: string;
  keyword: 'text' | 'depth';
}

/**
 * The first string (or key) that is not storable text, or the first value nested too deeply, as a
 * JSON Pointer; null when all is well. Runs on input the schema accepted, on every request: the
 * pointer is built only for a value that fails.
 */
function refusedAt(value: unknown, path: string, depth = 0): Refusal | null {
  if (typeof value === 'string') return NOT_TEXT.test(value) ? { at: path || '/', keyword: 'text' } : null;
  if (value === null || typeof value !== 'object') return null;
  if (depth >= MAX_DEPTH) return { at: path || '/', keyword: 'depth' };
  for (const key in value) {
    if (!Object.hasOwn(value, key)) continue;
    const item = (value as Record<string, unknown>)[key];
    if (NOT_TEXT.test(key) || (item !== null && typeof item === 'object') || (typeof item === 'string' && NOT_TEXT.test(item))) {
      const at = `${path}/${key.replace(/~/g, '~0').replace(/\//g, '~1')}`;
      const found = NOT_TEXT.test(key) ? { at, keyword: 'text' as const } : refusedAt(item, at, depth + 1);
      if (found) return found;
    }
  }
  return null;
}

/**
 * Every string a client sends (body, query, path, headers) must be storable text, whatever the
 * field: PostgreSQL `text` refuses NUL (a 500 from any query that carried one), and a lone
 * surrogate ("\ud800" in JSON) has no UTF-8 form, so SQLite and PostgreSQL would store U+FFFD,
 * silently changing the value. Both are refused as a field error instead (found by the fuzz suite).
 */
function textOnly(validate: ValidateFunction): ValidateFunction {
  const check = ((data: unknown) => {
    if (!validate(data)) {
      check.errors = validate.errors;
      return false;
    }
    const refused = refusedAt(data, '');
    check.errors = refused === null ? null : [{ keyword: refused.keyword, instancePath: refused.at === '/' ? '' : refused.at, schemaPath: '#', params: {}, message: refused.keyword === 'text' ? 'must be text' : 'is nested too deeply' }];
    return refused === null;
  }) as ValidateFunction;
  return check;
}

export const validatorCompiler: FastifySchemaCompiler<unknown> = ({ schema, httpPart }) => {
  const ajv = httpPart === 'body' ? bodyAjv : textAjv;
  return textOnly(ajv.compile(schema as object)) as ReturnType<FastifySchemaCompiler<unknown>>;
};

const KEYWORD_CODES: Record<string, string> = {
  required: 'required',
  additionalProperties: 'unknown_field',
  type: 'invalid_type',
  format: 'invalid_format',
  pattern: 'invalid_format',
  minLength: 'too_short',
  maxLength: 'too_long',
  minimum: 'too_small',
  maximum: 'too_large',
  exclusiveMinimum: 'too_small',
  exclusiveMaximum: 'too_large',
  minItems: 'too_few',
  maxItems: 'too_many',
  uniqueItems: 'duplicate',
  minProperties: 'too_few',
  maxProperties: 'too_many',
  enum: 'invalid_value',
  const: 'invalid_value',
  anyOf: 'invalid_value',
  text: 'invalid_format',
  depth: 'too_deep',
};

function describe(error: ErrorObject, field: string): string {
  const p = error.params as Record<string, unknown>;
  const name = field === '' ? 'the value' : field.slice(1);
  switch (error.keyword) {
    case 'required': return `${name} is required.`;
    case 'additionalProperties': return `${name} is not a known field.`;
    case 'type': return `${name} must be of type ${String(p.type)}.`;
    case 'format': return `${name} must be a valid ${String(p.format)}.`;
    case 'minLength': return `${name} must be at least ${String(p.limit)} characters.`;
    case 'maxLength': return `${name} must be at most ${String(p.limit)} characters.`;
    case 'pattern': return `${name} contains characters or a form that is not allowed.`;
    case 'text': return `${name} contains NUL or an unpaired surrogate (\\uD800–\\uDFFF), which is not text.`;
    case 'depth': return `${name} is nested more than ${MAX_DEPTH} levels deep.`;
    case 'enum': return `${name} must be one of: ${(p.allowedValues as unknown[]).join(', ')}.`;
    default: return `${name} ${error.message ?? 'is not valid'}.`;
  }
}

export function validationToFieldErrors(errors: ErrorObject[], context: string): FieldError[] {
  return errors.map((e) => {
    const p = e.params as Record<string, unknown>;
    let field = e.instancePath;
    if (e.keyword === 'required') field += `/${String(p.missingProperty)}`;
    if (e.keyword === 'additionalProperties') field += `/${String(p.additionalProperty)}`;
    const code = KEYWORD_CODES[e.keyword] ?? 'invalid_value';
    const message = describe(e, field);
    return { field: context === 'body' ? field || '/' : `${context}:${field || '/'}`, code, message };
  });
}
