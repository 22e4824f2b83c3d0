import { Ajv, type ErrorObject, type Options } from 'ajv';
import addFormats from 'ajv-formats';
import type { FastifySchemaCompiler } from 'fastify';
import type { FieldError } from './error-catalogue.js';

/**
 * Two validators: bodies are strict (no type coercion, unknown fields are errors, so typos
 * never pass silently); query strings and path params arrive as text and are coerced.
 */
function createAjv(options: Options) {
  const ajv = new Ajv({ allErrors: false, useDefaults: true, removeAdditional: false, strict: false, ...options });
  addFormats.default(ajv, ['email', 'uri', 'date-time', 'uuid']);
  // Registered as known keywords so OpenAPI-only annotations do not trip the compiler.
  ajv.addKeyword({ keyword: 'example' });
  return ajv;
}

// allErrors so a client sees every problem at once; bodies are size-bounded, so the cost is too.
const bodyAjv = createAjv({ coerceTypes: false, allErrors: true });
const textAjv = createAjv({ coerceTypes: 'array' });

export const validatorCompiler: FastifySchemaCompiler<unknown> = ({ schema, httpPart }) => {
  const ajv = httpPart === 'body' ? bodyAjv : textAjv;
  return ajv.compile(schema as object) as ReturnType<FastifySchemaCompiler<unknown>>;
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
