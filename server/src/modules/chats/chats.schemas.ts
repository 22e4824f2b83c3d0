import { Type, type Static } from 'typebox';
import { PageLimit, StringEnum, Timestamp } from '../../http/schemas.js';

export const CHAT_LIMITS = { title: 200, content: 32_768 } as const;

export const Chat = Type.Object(
  { id: Type.String(), agent_id: Type.String(), title: Type.Union([Type.String(), Type.Null()]), created_at: Timestamp, updated_at: Timestamp },
  { $id: 'Chat', additionalProperties: false },
);

export const Message = Type.Object(
  {
    id: Type.String(),
    chat_id: Type.String(),
    role: StringEnum(['user', 'assistant']),
    content: Type.String(),
    created_at: Timestamp,
  },
  { $id: 'Message', additionalProperties: false },
);

export const CreateChatBody = Type.Object(
  {
    agent_id: Type.String({ maxLength: 64 }),
    title: Type.Optional(Type.String({ minLength: 1, maxLength: CHAT_LIMITS.title, pattern: '^[^\\p{Cc}]*$' })),
  },
  { additionalProperties: false },
);
export type CreateChatBody = Static<typeof CreateChatBody>;

export const CreateMessageBody = Type.Object(
  {
    role: StringEnum(['user', 'assistant'], { description: "assistant replies are posted by the agent's runtime" }),
    // NUL is refused (PostgreSQL text cannot hold it); everything else round-trips byte for byte.
    content: Type.String({ minLength: 1, maxLength: CHAT_LIMITS.content, pattern: '^[^\\u0000]*$' }),
  },
  { additionalProperties: false },
);
export type CreateMessageBody = Static<typeof CreateMessageBody>;

export const ChatListQuery = Type.Object(
  {
    limit: PageLimit,
    cursor: Type.Optional(Type.String({ maxLength: 200 })),
    agent_id: Type.Optional(Type.String({ maxLength: 64 })),
  },
  { additionalProperties: false },
);
