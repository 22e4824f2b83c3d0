import type { Generated } from 'kysely';

/**
 * Table types for Kysely. Portable on purpose: times are RFC 3339 text (sortable as text),
 * booleans are 0/1 integers, so SQLite and PostgreSQL hold the very same values.
 */
export interface UsersTable {
  id: string;
  email: string;
  email_normalized: string;
  name: string;
  password_hash: string;
  /** 'admin' (the operator's staff: admin API, service keys) or 'user'. Not a role in an organization. */
  role: string;
  email_verified: number;
  disabled: number;
  created_at: string;
  updated_at: string;
  /** The organization created with the user (migration 0014): a token acts for it unless told otherwise. */
  personal_org_id: string;
  /** Organizations the user belongs to, capped like every other collection (access/organizations/organization-caps.ts). */
  organization_count: Generated<number>;
  /** Set when the owner deleted the account (migration 0015): it is purged then; signing in before restores it. */
  deletion_due_at: string | null;
  /** A guest (ANONYMOUS_SIGN_IN, migration 0020): no address of its own until an upgrade; purged when unused. */
  is_anonymous: Generated<number>;
}

/**
 * A team that owns agents, chats, webhooks and API keys, with one tier and one request budget
 * (migration 0014). Every user has a personal one.
 */
export interface OrganizationsTable {
  id: string;
  name: string;
  /** 1: the user's personal organization (deleted only with the user, who stays its owner). */
  personal: number;
  tier: string;
  limit_per_minute: number | null;
  limit_per_day: number | null;
  /** Open live streams allowed at once; null: the tier's number. */
  limit_streams: number | null;
  /** What the organization holds of each capped collection (access/organizations/organization-caps.ts). */
  agent_count: Generated<number>;
  chat_count: Generated<number>;
  api_key_count: Generated<number>;
  webhook_count: Generated<number>;
  created_at: string;
  updated_at: string;
}

export interface MembershipsTable {
  org_id: string;
  user_id: string;
  role: 'owner' | 'admin' | 'member' | 'viewer';
  created_at: string;
}

/** An invitation by email; the link's token is stored as its SHA-256 and works once, until expires_at. */
export interface InvitationsTable {
  id: string;
  org_id: string;
  email: string;
  email_normalized: string;
  role: 'owner' | 'admin' | 'member' | 'viewer';
  token_hash: string;
  invited_by: string | null;
  created_at: string;
  expires_at: string;
  accepted_at: string | null;
  accepted_by: string | null;
  revoked_at: string | null;
}

/** Who did what in an organization, from where (actors by id: the record outlives them). */
export interface AuditEventsTable {
  id: string;
  org_id: string;
  actor_user_id: string | null;
  actor_key_id: string | null;
  action: string;
  target_id: string | null;
  ip: string | null;
  user_agent: string | null;
  detail: string; // JSON object
  created_at: string;
}

export interface SessionsTable {
  id: string;
  user_id: string;
  created_at: string;
  last_used_at: string;
  expires_at: string;
  revoked_at: string | null;
  revoked_reason: string | null;
  ip: string | null;
  user_agent: string | null;
  /** How the session was authenticated, space-separated RFC 8176 values: `pwd`, `pwd otp`. */
  amr: Generated<string>;
  /** When a second factor was last proved in this session (login or step-up); null: never. */
  factor_verified_at: string | null;
}

export interface RefreshTokensTable {
  token_hash: string;
  session_id: string;
  created_at: string;
  rotated_at: string | null;
}

export interface SigningKeysTable {
  kid: string;
  algorithm: string;
  public_jwk: string;
  private_key: string;
  created_at: string;
  retired_at: string | null;
}

export interface ApiKeysTable {
  id: string;
  /** The organization the key acts for. */
  org_id: string;
  /** The member who created it: the key's scopes are capped by that member's role. */
  user_id: string;
  name: string;
  secret_hash: string;
  prefix: string;
  last_four: string;
  scopes: string; // space-separated
  created_at: string;
  expires_at: string | null;
  last_used_at: string | null;
  revoked_at: string | null;
  /** The key's own budget (null: only the account's applies to that window). */
  rate_limit_per_minute: number | null;
  rate_limit_per_day: number | null;
  /** Uses left; null: unlimited. */
  remaining: number | null;
  refill_amount: number | null;
  refill_interval: 'day' | 'month' | null;
  /** When the uses were last set back to refill_amount (or the key created). */
  refilled_at: string | null;
  /** The secret before the last roll, working until previous_expires_at. */
  previous_secret_hash: string | null;
  previous_expires_at: string | null;
}

export interface AgentsTable {
  id: string;
  org_id: string;
  name: string;
  description: string;
  instructions: string;
  model: string;
  metadata: string; // JSON object of string pairs
  created_at: string;
  updated_at: string;
}

export interface ChatsTable {
  id: string;
  org_id: string;
  agent_id: string;
  title: string | null;
  created_at: string;
  updated_at: string;
  message_count: Generated<number>;
}

export interface MessagesTable {
  id: string;
  chat_id: string;
  org_id: string;
  role: string;
  content: string;
  created_at: string;
  /** 'completed', or 'streaming' while an agent runtime appends deltas (migration 0011). */
  status: Generated<string>;
  /** The sequence number of the last delta appended (0: none). */
  delta_sequence: Generated<number>;
}

export interface WebhookEndpointsTable {
  id: string;
  org_id: string;
  url: string;
  description: string | null;
  events: string; // space-separated patterns
  secret: string;
  enabled: number;
  disabled_reason: string | null;
  created_at: string;
  updated_at: string;
  /** The secret before the last rotation (migration 0015): deliveries carry its signature too until it expires. */
  previous_secret: string | null;
  previous_secret_expires_at: string | null;
}

export interface EventsTable {
  id: string;
  org_id: string;
  type: string;
  data: string; // JSON
  created_at: string;
  /** The account's event number, given by the live streams' numbering (event-sequencer.ts); null until then. */
  seq: number | null;
  /** The chat the event is about, for its live stream. */
  chat_id: string | null;
}

/** The last event number of each organization (migration 0011). */
export interface EventSequencesTable {
  org_id: string;
  seq: number;
}

export interface DeliveriesTable {
  id: string;
  event_id: string;
  endpoint_id: string;
  org_id: string;
  status: string;
  attempts: number;
  next_attempt_at: string | null;
  locked_until: string | null;
  last_status_code: number | null;
  last_error: string | null;
  created_at: string;
  updated_at: string;
}

export interface DeliveryAttemptsTable {
  id: string;
  delivery_id: string;
  attempted_at: string;
  status_code: number | null;
  error: string | null;
  duration_ms: number;
  /** The first bytes of the receiver's answer (migration 0015); null when there was none. */
  response_excerpt: string | null;
}

export interface IdempotencyKeysTable {
  org_id: string;
  key: string;
  request_hash: string;
  status_code: number | null;
  response_body: string | null;
  /** The Location header of a stored 201, replayed with it. */
  response_location: string | null;
  created_at: string;
}

export interface EmailTokensTable {
  token_hash: string;
  user_id: string;
  purpose: string; // verify_email | reset_password | change_email (`email`: the new address)
  email: string;
  created_at: string;
  expires_at: string;
  used_at: string | null;
}

export interface SecurityEventsTable {
  id: string;
  user_id: string;
  type: string;
  ip: string | null;
  user_agent: string | null;
  detail: string; // JSON object
  created_at: string;
}

export interface TotpFactorsTable {
  user_id: string;
  /** The base32 secret, sealed with GATEHOUSE_SECRET when it is set (kernel/sealed-secrets.ts). */
  secret: string;
  created_at: string;
  /** Null while enrolment waits for its first code. */
  confirmed_at: string | null;
  last_used_step: number | null;
}

export interface RecoveryCodesTable {
  code_hash: string;
  user_id: string;
  created_at: string;
  used_at: string | null;
}

export interface MfaChallengesTable {
  token_hash: string;
  user_id: string;
  /** The methods already proved (`pwd`), space-separated. */
  amr: string;
  created_at: string;
  expires_at: string;
  used_at: string | null;
  /** A provider identity to link once the factor is proved (migration 0016; identities.service.ts), as JSON; null for none. */
  pending_link: string | null;
}

export interface PasskeysTable {
  id: string;
  user_id: string;
  /** base64url of the credential's raw id, as the authenticator names it. */
  credential_id: string;
  /** base64url of the COSE public key. */
  public_key: string;
  /** The signature counter last seen (0 for authenticators that keep none). */
  counter: number | string;
  /** Space-separated AuthenticatorTransport values (`internal hybrid`). */
  transports: string;
  device_type: string;
  backed_up: number;
  name: string;
  created_at: string;
  last_used_at: string | null;
}

export interface WebauthnChallengesTable {
  token_hash: string;
  user_id: string | null;
  purpose: 'register' | 'login';
  challenge: string;
  created_at: string;
  expires_at: string;
  used_at: string | null;
}

/** An account's sign-in at an OpenID Connect / OAuth 2 provider: (provider, subject) is unique. */
export interface IdentitiesTable {
  id: string;
  user_id: string;
  /** The `id` of an OIDC_PROVIDERS entry. */
  provider: string;
  /** The provider's stable id for the person (`sub`). */
  subject: string;
  /** The address the provider last reported, for display. */
  email: string | null;
  created_at: string;
  last_used_at: string | null;
}

/** A sign-in under way at a provider, found by the hash of its `state`; taken once. */
export interface OidcFlowsTable {
  state_hash: string;
  provider: string;
  nonce: string;
  /** Gatehouse's own PKCE verifier towards the provider. */
  provider_verifier: string;
  /** Where the app wants the one-time code (checked against PUBLIC_URL/oidc-callback, OIDC_REDIRECT_URIS and APP_LINK_URL). */
  redirect_uri: string;
  /** The app's PKCE challenge (S256): only its verifier redeems the code. */
  code_challenge: string;
  /** The app's own `state`, handed back with the code. */
  client_state: string | null;
  created_at: string;
  expires_at: string;
}

/** What the provider proved, waiting for the app to redeem it with its PKCE verifier; taken once. */
/** The OAuth engine's state, by model and the SHA-256 of the id (migration 0019). */
export interface OauthRecordsTable {
  model: string;
  id_hash: string;
  payload: string;
  grant_id: string | null;
  user_code_hash: string | null;
  uid_hash: string | null;
  account_id: string | null;
  expires_at: string | null;
  consumed_at: string | null;
}

/** The apps that may ask for a grant (migration 0019). */
export interface OauthClientsTable {
  client_id: string;
  org_id: string | null;
  name: string;
  metadata: string;
  secret_sealed: string | null;
  scopes: string;
  created_by: string | null;
  created_at: string;
}

/** A person's grant to an app, for one organization (migration 0019). */
export interface OauthGrantsTable {
  grant_id: string;
  user_id: string;
  org_id: string;
  client_id: string;
  scopes: string;
  resource: string;
  created_at: string;
  last_used_at: string | null;
  revoked_at: string | null;
}

/** A passwordless sign-in under way (migration 0020): the mailed code and link, as SHA-256. */
export interface SignInCodesTable {
  id: string;
  email: string;
  email_normalized: string;
  code_hash: string;
  token_hash: string;
  /** Whether proving the code may make an account for an address that has none. */
  create_account: number;
  failed_attempts: Generated<number>;
  created_at: string;
  expires_at: string;
  used_at: string | null;
}

export interface OidcCodesTable {
  code_hash: string;
  provider: string;
  subject: string;
  email: string | null;
  email_verified: number;
  name: string | null;
  code_challenge: string;
  created_at: string;
  expires_at: string;
}

/**
 * Requests per account and API key, per UTC hour and day, by outcome (migration 0012;
 * access/usage/usage-counter.ts). bigint on PostgreSQL, which pg returns as text: read with Number().
 */
export interface UsageCountsTable {
  org_id: string;
  /** '' is the account's total (every key and session). */
  key_id: string;
  granularity: 'hour' | 'day';
  /** The bucket's start, `isoTime` text. */
  bucket_start: string;
  ok: number;
  rate_limited: number;
  unauthorized: number;
  forbidden: number;
}

export interface Database {
  users: UsersTable;
  organizations: OrganizationsTable;
  memberships: MembershipsTable;
  invitations: InvitationsTable;
  audit_events: AuditEventsTable;
  sessions: SessionsTable;
  refresh_tokens: RefreshTokensTable;
  signing_keys: SigningKeysTable;
  api_keys: ApiKeysTable;
  agents: AgentsTable;
  chats: ChatsTable;
  messages: MessagesTable;
  webhook_endpoints: WebhookEndpointsTable;
  events: EventsTable;
  event_sequences: EventSequencesTable;
  deliveries: DeliveriesTable;
  delivery_attempts: DeliveryAttemptsTable;
  idempotency_keys: IdempotencyKeysTable;
  email_tokens: EmailTokensTable;
  security_events: SecurityEventsTable;
  totp_factors: TotpFactorsTable;
  recovery_codes: RecoveryCodesTable;
  mfa_challenges: MfaChallengesTable;
  passkeys: PasskeysTable;
  webauthn_challenges: WebauthnChallengesTable;
  identities: IdentitiesTable;
  oidc_flows: OidcFlowsTable;
  oidc_codes: OidcCodesTable;
  sign_in_codes: SignInCodesTable;
  usage_counts: UsageCountsTable;
  oauth_records: OauthRecordsTable;
  oauth_clients: OauthClientsTable;
  oauth_grants: OauthGrantsTable;
}
