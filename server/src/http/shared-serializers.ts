import { createHash } from 'node:crypto';
import fastJsonStringify from 'fast-json-stringify';

type Serializer = (data: unknown) => string;

/**
 * Compiled response serializers, one per distinct schema in the process. Fastify compiles one per
 * route and status, and most of ours are the same few: every route answers its refusals with the
 * one problem schema. Compiling fast-json-stringify code is the dearest part of building the app
 * (about a third of it), so a test suite that builds an app per file paid it hundreds of times.
 * The key is the schema's JSON with the shared schemas it may reference ($ref), so a cached
 * serializer is only ever reused for the very same schema against the very same references.
 */
const compiled = new Map<string, Serializer>();

/** Fastify's `schemaController.compilersFactory.buildSerializer`, caching across routes and apps. */
export function buildSharedSerializer(externals?: unknown, serializerOpts?: object) {
  const externalSchemas = externals as Record<string, unknown> | undefined;
  const references = createHash('sha256').update(JSON.stringify([externalSchemas ?? {}, serializerOpts ?? {}])).digest('base64url');
  return function sharedSerializer(route: { schema?: unknown }): Serializer {
    const schema = route.schema as { $id?: string };
    const key = `${references} ${JSON.stringify(schema)}`;
    let serializer = compiled.get(key);
    if (serializer === undefined) {
      // As Fastify's own compiler: a schema that is itself one of the shared ones is not also passed as a reference.
      let schemas = externalSchemas;
      if (schema.$id !== undefined && externalSchemas?.[schema.$id] !== undefined) {
        const { [schema.$id]: _itself, ...others } = externalSchemas;
        schemas = others;
      }
      serializer = fastJsonStringify(schema as Parameters<typeof fastJsonStringify>[0], { ...serializerOpts, schema: schemas as never }) as Serializer;
      compiled.set(key, serializer);
    }
    return serializer;
  };
}
