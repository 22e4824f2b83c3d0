import { Type, type Static } from 'typebox';
import { PageLimit, StringEnum, Timestamp } from '../../http/schemas.js';

export const CHAT_LIMITS = { title: 200, content: 32_768, deltaSequence: 1_000_000 } as const;

export const Chat = Type.Object(
  { id: Type.String(), agent_id: Type.String(), title: Type.Union([Type.String(), Type.Null()]), created_at: Timestamp, updated_at: Timestamp },
  { $id: 'Chat', additionalProperties: false },
);

export const MESSAGE_STATUSES = ['streaming', 'completed'] as const;
export type MessageStatus = (typeof MESSAGE_STATUSES)[number];

export const Message = Type.Object(
  {
    id: Type.String(),
    chat_id: Type.String(),
    role: StringEnum(['user', 'assistant']),
    content: Type.String({ description: 'The whole text; while the message streams, the text so far' }),
    status: StringEnum(MESSAGE_STATUSES, { description: "'streaming' while an agent runtime appends deltas, then 'completed'" }),
    delta_sequence: Type.Integer({ description: 'The sequence number of the last delta in `content` (0: none): a client that read the message applies the deltas after it' }),
    created_at: Timestamp,
  },
  { $id: 'Message', additionalProperties: false },
);

const Title = Type.String({ minLength: 1, maxLength: CHAT_LIMITS.title, pattern: '^[^\\p{Cc}]*$' });
// NUL is refused (PostgreSQL text cannot hold it); everything else round-trips byte for byte.
const Text = (minLength: number) => Type.String({ minLength, maxLength: CHAT_LIMITS.content, pattern: '^[^\\u0000]*$' });

export const CreateChatBody = Type.Object(
  {
    agent_id: Type.String({ maxLength: 64 }),
    title: Type.Optional(Title),
  },
  { additionalProperties: false },
);
export type CreateChatBody = Static<typeof CreateChatBody>;

export const UpdateChatBody = Type.Object(
  { title: Type.Union([Title, Type.Null()], { description: 'null removes the title' }) },
  { additionalProperties: false },
);
export type UpdateChatBody = Static<typeof UpdateChatBody>;

export const CreateMessageBody = Type.Object(
  {
    role: StringEnum(['user', 'assistant'], { description: "assistant replies are posted by the agent's runtime" }),
    content: Type.Optional(Text(0)),
    status: Type.Optional(StringEnum(MESSAGE_STATUSES, {
      description: "'streaming' starts an assistant reply that deltas extend (content may then be empty or absent); default 'completed', which needs content",
    })),
  },
  { additionalProperties: false },
);
export type CreateMessageBody = Static<typeof CreateMessageBody>;

export const MessageDeltaBody = Type.Object(
  {
    sequence: Type.Integer({ minimum: 1, maximum: CHAT_LIMITS.deltaSequence, description: "1 for a message's first delta, then 2, 3…; a sequence already applied is answered again and changes nothing" }),
    content: Text(1),
  },
  { additionalProperties: false },
);
export type MessageDeltaBody = Static<typeof MessageDeltaBody>;

export const ChatListQuery = Type.Object(
  {
    limit: PageLimit,
    cursor: Type.Optional(Type.String({ maxLength: 200 })),
    agent_id: Type.Optional(Type.String({ maxLength: 64 })),
  },
  { additionalProperties: false },
);
