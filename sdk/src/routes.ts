/**
 * Method, path and traits of every operation, keyed by operationId. The mapped type makes a
 * missing operation, or a method/path that does not carry that operation in the generated
 * `paths`, a compile error; test/routes.test.ts checks the same table against openapi.json.
 */
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
  /** The server honours Idempotency-Key here: the SDK sends one, which also makes POST retry-safe. */
  idempotent?: true;
}

export const ROUTES: { readonly [K in OperationId]: Route<K> } = {
  register: { at: ['POST', '/v1/auth/register'], public: true },
  login: { at: ['POST', '/v1/auth/login'], public: true },
  refresh: { at: ['POST', '/v1/auth/refresh'], public: true },
  logout: { at: ['POST', '/v1/auth/logout'] },
  verifyEmail: { at: ['POST', '/v1/auth/email/verify'], public: true },
  forgotPassword: { at: ['POST', '/v1/auth/password/forgot'], public: true },
  resetPassword: { at: ['POST', '/v1/auth/password/reset'], public: true },

  getMe: { at: ['GET', '/v1/users/me'] },
  updateMe: { at: ['PATCH', '/v1/users/me'] },
  deleteMe: { at: ['DELETE', '/v1/users/me'] },
  changePassword: { at: ['POST', '/v1/users/me/password'] },
  resendVerification: { at: ['POST', '/v1/users/me/email/verification'] },
  listSecurityEvents: { at: ['GET', '/v1/users/me/security-events'] },

  listSessions: { at: ['GET', '/v1/sessions'] },
  revokeSession: { at: ['DELETE', '/v1/sessions/{id}'] },

  createApiKey: { at: ['POST', '/v1/api-keys'], idempotent: true },
  listApiKeys: { at: ['GET', '/v1/api-keys'] },
  getApiKey: { at: ['GET', '/v1/api-keys/{id}'] },
  revokeApiKey: { at: ['DELETE', '/v1/api-keys/{id}'] },

  getUsage: { at: ['GET', '/v1/usage'] },

  adminListUsers: { at: ['GET', '/v1/admin/users'] },
  adminUpdateUser: { at: ['PATCH', '/v1/admin/users/{id}'] },

  createAgent: { at: ['POST', '/v1/agents'], idempotent: true },
  listAgents: { at: ['GET', '/v1/agents'] },
  getAgent: { at: ['GET', '/v1/agents/{id}'] },
  updateAgent: { at: ['PATCH', '/v1/agents/{id}'] },
  deleteAgent: { at: ['DELETE', '/v1/agents/{id}'] },

  createChat: { at: ['POST', '/v1/chats'], idempotent: true },
  listChats: { at: ['GET', '/v1/chats'] },
  getChat: { at: ['GET', '/v1/chats/{id}'] },
  deleteChat: { at: ['DELETE', '/v1/chats/{id}'] },
  createMessage: { at: ['POST', '/v1/chats/{id}/messages'], idempotent: true },
  listMessages: { at: ['GET', '/v1/chats/{id}/messages'] },

  createWebhook: { at: ['POST', '/v1/webhooks'], idempotent: true },
  listWebhooks: { at: ['GET', '/v1/webhooks'] },
  getWebhook: { at: ['GET', '/v1/webhooks/{id}'] },
  updateWebhook: { at: ['PATCH', '/v1/webhooks/{id}'] },
  deleteWebhook: { at: ['DELETE', '/v1/webhooks/{id}'] },
  testWebhook: { at: ['POST', '/v1/webhooks/{id}/test'], idempotent: true },
  listWebhookDeliveries: { at: ['GET', '/v1/webhooks/{id}/deliveries'] },

  getJwks: { at: ['GET', '/v1/.well-known/jwks.json'], public: true },
  healthz: { at: ['GET', '/healthz'], public: true },
  readyz: { at: ['GET', '/readyz'], public: true },
  metrics: { at: ['GET', '/metrics'], public: true },
};
