/**
 * Method, path and traits of every operation, keyed by operationId, generated from the OpenAPI
 * document with the types. The mapped type makes a missing operation, or a method/path that does
 * not carry that operation in the generated `paths`, a compile error; test/routes.test.ts checks
 * the same table against openapi.json.
 */
import { GENERATED_ROUTES } from './generated/routes.js';
import type { OperationId, operations, paths } from './operations.js';

type Method = 'get' | 'post' | 'patch' | 'delete' | 'put';

/** The [METHOD, path] pairs whose operation in `paths` is exactly operation K. */
type LocationOf<K extends OperationId> = {
  [P in keyof paths]: {
    [M in Method]: paths[P][M] extends operations[K] ? (operations[K] extends paths[P][M] ? readonly [Uppercase<M>, P] : never) : never;
  }[Method];
}[keyof paths];

export interface Route<K extends OperationId = OperationId> {
  at: LocationOf<K>;
  /** Public operations get no Authorization header (and so never trigger a token refresh). */
  public?: true;
  /**
   * The credential is optional (the document's security lists `{}` and bearerAuth): the stored
   * session's access token goes when there is one, else nothing (never the API key). verifyEmail:
   * a change of email's link is confirmed only by the account's owner signed in.
   */
  optionalSession?: true;
  /** The server honours Idempotency-Key here: the SDK sends one, which also makes POST retry-safe. */
  idempotent?: true;
  /** Needs an access token from a login: API keys are refused (403 session_required). */
  sessionOnly?: true;
}

/** Generated from the document (src/generated/routes.ts); typed here, so a table that does not match the generated types fails to compile. */
export const ROUTES: { readonly [K in OperationId]: Route<K> } = GENERATED_ROUTES;
