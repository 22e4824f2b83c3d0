/**
 * @gatehouse/sdk: a typed client for the Gatehouse API. Uses only fetch and AbortController (and
 * XMLHttpRequest for live streams on React Native), so the same build runs in browsers, React
 * Native / Expo, Node 20+, Deno and Bun.
 */
export { createGatehouse, type Gatehouse, type GatehouseOptions } from './client.js';
export { createAuthorizationClient, type AuthorizationClient, type AuthorizationClientOptions, type AuthorizationStart, type DeviceAuthorization, type OauthTokens } from './authorization-client.js';
export type { CallInput, CreateOptions, RequestOptions } from './core.js';
export { GatehouseError, isGatehouseError, mfaChallengeOf, type ClientErrorCode, type FieldError, type MfaChallenge } from './errors.js';
export type { FetchLike } from './http.js';
export type { components, OperationId, operations, Page, paths, QueryParams, RequestBody, Schemas, Success } from './operations.js';
export type * from './models.js';
export { collect, paginate } from './pagination.js';
export { createPkcePair, createSignInNonce, pkceChallenge, type PkcePair, type RandomBytes, type SignInNonce } from './pkce.js';
export { providerCallbackOf, type ProviderSignInOptions, type ProviderSignInStart } from './provider-sign-in.js';
export type { EventsStreamOptions } from './resources/events.js';
export type { RemoveMemberOptions } from './resources/organizations.js';
export { ROUTES, type Route } from './routes.js';
export type { EventStream, StreamEvent, StreamOptions, TransportChoice } from './streams/event-stream.js';
export { memoryTokenStore, parseStoredSession, webStorageTokenStore, type StoredSession, type TokenStore, type WebStorageLike } from './token-store.js';
