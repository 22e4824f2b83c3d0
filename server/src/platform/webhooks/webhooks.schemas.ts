import { Type, type Static } from 'typebox';
import { PageLimit, StringEnum, Timestamp } from '../../http/schemas.js';
import { DELIVERY_STATUSES } from './deliveries.repository.js';
import { EVENT_TYPES } from '../../kernel/events/event-types.js';
import { EXCERPT_BYTES } from './response-excerpt.js';

export const WEBHOOK_LIMITS = { url: 2048, description: 500, events: 20 } as const;

/** Every accepted subscription: each type, `*`, and `group.*` at each dot (what isEventPattern accepts). */
export const EVENT_PATTERNS: string[] = [
  '*',
  ...new Set(EVENT_TYPES.flatMap((t) => t.split('.').slice(0, -1).map((_, i, parts) => `${parts.slice(0, i + 1).join('.')}.*`))),
  ...EVENT_TYPES,
];

const EventPattern = Type.Enum(EVENT_PATTERNS, { description: 'An event type, `group.*` or `*`' });
const Events = Type.Array(EventPattern, { minItems: 1, maxItems: WEBHOOK_LIMITS.events, uniqueItems: true });
const Url = Type.String({ minLength: 1, maxLength: WEBHOOK_LIMITS.url, description: 'https (or http) URL on a public address', example: 'https://example.com/hooks/gatehouse' });
const Description = Type.String({ maxLength: WEBHOOK_LIMITS.description, pattern: '^[^\\p{Cc}]*$' });

const endpointProperties = {
  id: Type.String({ example: 'whk_01jd4z3k8x2v6n9q7w5e3r1t0y' }),
  url: Type.String(),
  description: Type.Union([Type.String(), Type.Null()]),
  events: Type.Array(Type.String()),
  enabled: Type.Boolean(),
  disabled_reason: Type.Union([Type.String(), Type.Null()], { description: 'Why delivery stopped, e.g. the receiver answered 410 Gone' }),
  previous_secret_expires_at: Type.Union([Timestamp, Type.Null()], { description: 'After a secret rotation with an overlap: until when deliveries are signed with the previous secret too (null: no overlap running)' }),
  created_at: Timestamp,
  updated_at: Timestamp,
};

export const WebhookEndpoint = Type.Object(endpointProperties, { $id: 'WebhookEndpoint', additionalProperties: false });

export const CreatedWebhookEndpoint = Type.Object(
  { ...endpointProperties, secret: Type.Union([Type.String(), Type.Null()], { description: 'whsec_… signing secret (Standard Webhooks). Shown once, never again: store it now. Null in an Idempotency-Key replay (secrets are not kept).' }) },
  { $id: 'CreatedWebhookEndpoint', additionalProperties: false },
);

const DeliveryAttempt = Type.Object(
  {
    attempted_at: Timestamp,
    status_code: Type.Union([Type.Integer(), Type.Null()]),
    error: Type.Union([Type.String(), Type.Null()], { description: 'Network error, timeout or refusal when there was no status' }),
    duration_ms: Type.Integer({ description: 'Until the receiver answered its status (or the attempt failed)' }),
    response_excerpt: Type.Union([Type.String(), Type.Null()], {
      description: `The first ${EXCERPT_BYTES} bytes of the receiver's answer as text (control characters replaced, … when cut); null when it did not answer, and for a reader who is not an admin with webhooks:write`,
    }),
  },
  { additionalProperties: false },
);

export const WebhookDelivery = Type.Object(
  {
    id: Type.String({ example: 'dlv_01jd4z3k8x2v6n9q7w5e3r1t0y' }),
    endpoint_id: Type.String(),
    event_id: Type.String({ description: 'Also the webhook-id header: deduplicate on it' }),
    event_type: Type.String(),
    status: StringEnum(DELIVERY_STATUSES),
    attempt_count: Type.Integer(),
    last_status_code: Type.Union([Type.Integer(), Type.Null()]),
    last_error: Type.Union([Type.String(), Type.Null()]),
    next_attempt_at: Type.Union([Timestamp, Type.Null()], { description: 'When the next attempt is due; null once delivered or failed' }),
    attempts: Type.Array(DeliveryAttempt, { description: 'Every attempt so far, oldest first' }),
    created_at: Timestamp,
    updated_at: Timestamp,
  },
  { $id: 'WebhookDelivery', additionalProperties: false },
);

export const CreateWebhookBody = Type.Object(
  { url: Url, events: Events, description: Type.Optional(Description) },
  { additionalProperties: false },
);
export type CreateWebhookBody = Static<typeof CreateWebhookBody>;

export const UpdateWebhookBody = Type.Object(
  {
    url: Type.Optional(Url),
    events: Type.Optional(Events),
    description: Type.Optional(Type.Union([Description, Type.Null()])),
    enabled: Type.Optional(Type.Boolean({ description: 'true re-enables an endpoint disabled by a 410' })),
  },
  { additionalProperties: false, minProperties: 1, description: 'Fields to change' },
);
export type UpdateWebhookBody = Static<typeof UpdateWebhookBody>;

export const DeliveryListQuery = Type.Object(
  {
    limit: PageLimit,
    cursor: Type.Optional(Type.String({ maxLength: 200 })),
    status: Type.Optional(StringEnum(DELIVERY_STATUSES)),
  },
  { additionalProperties: false },
);

/** Longest overlap of a secret rotation: a week, time enough to roll the new secret out to every receiver. */
export const MAX_ROTATION_OVERLAP_SECONDS = 7 * 24 * 3600;
export const DEFAULT_ROTATION_OVERLAP_SECONDS = 24 * 3600;

export const RotateWebhookSecretBody = Type.Object(
  {
    overlap_seconds: Type.Optional(Type.Integer({
      minimum: 0, maximum: MAX_ROTATION_OVERLAP_SECONDS, default: DEFAULT_ROTATION_OVERLAP_SECONDS,
      description: 'How long deliveries stay signed with the previous secret too (default one day; 0: it stops at once; at most 7 days)',
    })),
  },
  { additionalProperties: false },
);
export type RotateWebhookSecretBody = Static<typeof RotateWebhookSecretBody>;

/** At most this many deliveries are set back to pending by one call (oldest first; call again for the rest). */
export const MAX_REDELIVER_PER_CALL = 10_000;

export const RedeliverFailedBody = Type.Object(
  {
    since: Type.String({
      format: 'date-time', maxLength: 40,
      description: 'RFC 3339 time: failed deliveries created at or after it are sent again. Not in the future, not older than the events kept (30 days).',
      example: '2025-01-31T09:00:00Z',
    }),
  },
  { additionalProperties: false },
);
export type RedeliverFailedBody = Static<typeof RedeliverFailedBody>;

export const RedeliveredCount = Type.Object(
  { redelivered: Type.Integer({ minimum: 0, maximum: MAX_REDELIVER_PER_CALL, description: `How many failed deliveries are pending again (at most ${MAX_REDELIVER_PER_CALL} a call: if it says that many, call again for the rest)` }) },
  { additionalProperties: false },
);
