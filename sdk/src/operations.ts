/**
 * Type-level view of the generated OpenAPI types, keyed by operationId. Every request body,
 * query and response type in the SDK comes from here, so a server change that the SDK does not
 * follow is a compile error once `npm run sdk:generate` has run.
 */
import type { components, operations, paths } from './generated/openapi.js';

export type { components, operations, paths };
export type Schemas = components['schemas'];
export type OperationId = keyof operations;

type Json<T> = T extends { content: { 'application/json': infer Body } } ? Body : never;

/** The JSON request body of an operation (`never` when it takes none). */
export type RequestBody<K extends OperationId> = Json<NonNullable<operations[K]['requestBody']>>;

/**
 * Query parameters, all optional: the server fills defaults (e.g. `limit` = 20) even where the
 * document marks a defaulted parameter as required.
 */
export type QueryParams<K extends OperationId> = Partial<NonNullable<operations[K]['parameters']['query']>>;

type SuccessStatus = 200 | 201 | 202 | 204;
type Responses<K extends OperationId> = operations[K]['responses'];
type SuccessBody<R> = R extends { content: infer C } ? (C extends { 'application/json': infer Body } ? Body : C extends { 'text/plain': infer Text } ? Text : undefined) : undefined;

/** What a successful call resolves to: the 2xx JSON body, or `undefined` for 204. */
export type Success<K extends OperationId> = {
  [S in keyof Responses<K>]: S extends SuccessStatus ? SuccessBody<Responses<K>[S]> : never;
}[keyof Responses<K>];

/** `{ data, next_cursor }` pages of the list operations. */
export interface Page<T> {
  data: T[];
  next_cursor: string | null;
}
