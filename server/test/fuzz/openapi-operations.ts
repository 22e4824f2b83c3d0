import type { FastifyInstance } from 'fastify';

/**
 * The operations to fuzz, read from the app's own OpenAPI document: a new route is fuzzed the
 * day it is added, and "documented" means what clients are told, not what the tests assume.
 */
export type JsonSchema = { [key: string]: unknown };

export interface Parameter {
  in: 'path' | 'query' | 'header' | 'cookie';
  name: string;
  required: boolean;
  schema: JsonSchema;
}

export interface Operation {
  /** "POST /v1/agents/{id}" */
  key: string;
  method: string;
  /** OpenAPI template, e.g. /v1/chats/{id}/messages */
  path: string;
  parameters: Parameter[];
  /** Media type → schema ($refs resolved lazily through `resolve`). */
  bodies: Record<string, JsonSchema>;
  /** Documented status codes, as the document writes them ("200", "4XX", "default"). */
  responses: string[];
  requiresCredential: boolean;
  /** A page a browser navigates to (`x-gatehouse-browser-page`): refusals asked for as text/html are pages. */
  browserPage: boolean;
}

type RawOperation = {
  security?: Record<string, string[]>[];
  parameters?: Array<{ in: Parameter['in']; name: string; required?: boolean; schema?: JsonSchema }>;
  requestBody?: { content?: Record<string, { schema?: JsonSchema }> };
  responses?: Record<string, unknown>;
  'x-gatehouse-browser-page'?: boolean;
};
export type OpenApiDocument = { paths: Record<string, Record<string, RawOperation>>; components?: { schemas?: Record<string, JsonSchema> } };

const METHODS = ['get', 'put', 'post', 'delete', 'patch'];

export function openApiDocument(app: FastifyInstance): OpenApiDocument {
  return app.swagger() as unknown as OpenApiDocument;
}

export function operationsOf(doc: OpenApiDocument): Operation[] {
  return Object.entries(doc.paths).flatMap(([path, item]) =>
    METHODS.filter((m) => item[m]).map((m) => {
      const op = item[m]!;
      return {
        key: `${m.toUpperCase()} ${path}`,
        method: m.toUpperCase(),
        path,
        parameters: (op.parameters ?? []).map((p) => ({ in: p.in, name: p.name, required: Boolean(p.required), schema: p.schema ?? {} })),
        bodies: Object.fromEntries(Object.entries(op.requestBody?.content ?? {}).map(([type, media]) => [type, media.schema ?? {}])),
        responses: Object.keys(op.responses ?? {}),
        // `{}` among the requirements makes the credential optional (verifyEmail: a session only for a change of email's link).
        requiresCredential: (op.security ?? []).length > 0 && (op.security ?? []).every((requirement) => Object.keys(requirement).length > 0),
        browserPage: op['x-gatehouse-browser-page'] === true,
      };
    }),
  );
}

/** Whether the document promises `status` for this operation (exact code, "4XX" range or default). */
export function isDocumented(op: Operation, status: number): boolean {
  return op.responses.some((r) => r === String(status) || r.toUpperCase() === `${String(status)[0]}XX` || r === 'default');
}

/** Follows `#/components/schemas/X` references (the only kind the generator emits). */
export function schemaResolver(doc: OpenApiDocument): (schema: JsonSchema) => JsonSchema {
  return function resolve(schema) {
    const ref = schema.$ref;
    if (typeof ref !== 'string') return schema;
    const name = ref.replace(/^#\/components\/schemas\//, '');
    const target = doc.components?.schemas?.[name];
    if (!target) throw new Error(`unresolvable $ref ${ref}`);
    return resolve(target);
  };
}
