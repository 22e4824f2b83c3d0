import { Type, type Static } from 'typebox';
import { Timestamp } from '../../http/schemas.js';
import { NameField } from '../../identity/index.js';

export const AGENT_LIMITS = { description: 2_000, instructions: 32_768, metadataPairs: 16, metadataKey: 40, metadataValue: 500 } as const;

// Key bounds go in propertyNames: a Record's key schema becomes a pattern and loses its length.
const Metadata = Type.Record(Type.String(), Type.String({ maxLength: AGENT_LIMITS.metadataValue }), {
  maxProperties: AGENT_LIMITS.metadataPairs,
  propertyNames: { type: 'string', minLength: 1, maxLength: AGENT_LIMITS.metadataKey, pattern: '^[A-Za-z0-9_.:-]+$' },
  description: `Up to ${AGENT_LIMITS.metadataPairs} string pairs for your own use; keys [A-Za-z0-9_.:-]{1,40}, values ≤ ${AGENT_LIMITS.metadataValue} chars`,
});
const Model = Type.String({ minLength: 1, maxLength: 100, pattern: '^[A-Za-z0-9][A-Za-z0-9._:/@+-]*$', example: 'gpt-4o' });
const Description = Type.String({ maxLength: AGENT_LIMITS.description });
const Instructions = Type.String({ maxLength: AGENT_LIMITS.instructions });

export const Agent = Type.Object(
  {
    id: Type.String({ example: 'agt_01jd4z3k8x2v6n9q7w5e3r1t0y' }),
    name: Type.String(),
    description: Type.String(),
    instructions: Type.String(),
    model: Type.String(),
    metadata: Type.Record(Type.String(), Type.String()),
    created_at: Timestamp,
    updated_at: Timestamp,
  },
  { $id: 'Agent', additionalProperties: false },
);

export const CreateAgentBody = Type.Object(
  { name: NameField, model: Model, description: Type.Optional(Description), instructions: Type.Optional(Instructions), metadata: Type.Optional(Metadata) },
  { additionalProperties: false },
);
export type CreateAgentBody = Static<typeof CreateAgentBody>;

export const UpdateAgentBody = Type.Object(
  {
    name: Type.Optional(NameField),
    model: Type.Optional(Model),
    description: Type.Optional(Description),
    instructions: Type.Optional(Instructions),
    metadata: Type.Optional(Metadata),
  },
  { additionalProperties: false, minProperties: 1, description: 'Fields to change; metadata is replaced as a whole' },
);
export type UpdateAgentBody = Static<typeof UpdateAgentBody>;
