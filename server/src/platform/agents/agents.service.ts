import type { Kysely, Selectable } from 'kysely';
import { AppError } from '../../kernel/errors.js';
import { toPage } from '../../kernel/pagination.js';
import { isoTime, type Clock } from '../../kernel/clock.js';
import type { AgentsTable, Database } from '../../kernel/db/schema.js';
import { newId } from '../../kernel/ids.js';
import { lockOrganization, releaseCapacity, takeCapacity, type Caps } from '../../access/index.js';
import type { DialectName } from '../../kernel/db/database.js';
import { eachParam, preparedQuery } from '../../kernel/db/prepared-queries.js';
import { recordEvent } from '../../kernel/events/event-outbox.js';
import { redactChatEvents } from '../../kernel/events/event-redaction.js';
import type { OnEventsCommitted } from '../../kernel/events/event-signal.js';
import { cleanName } from '../../kernel/names.js';
import { type CreateAgentBody, type UpdateAgentBody } from './agents.schemas.js';

export type AgentRow = Selectable<AgentsTable>;
const AGENT_COLUMNS = ['id', 'org_id', 'name', 'description', 'instructions', 'model', 'metadata', 'created_at', 'updated_at'] as const satisfies readonly (keyof AgentRow)[];

export function presentAgent(row: AgentRow) {
  return {
    id: row.id, name: row.name, description: row.description, instructions: row.instructions, model: row.model,
    metadata: JSON.parse(row.metadata) as Record<string, string>, created_at: row.created_at, updated_at: row.updated_at,
  };
}

const findAgent = preparedQuery((q, $: { orgId: string; id: string }) => q.selectFrom('agents').selectAll().where('org_id', '=', $.orgId).where('id', '=', $.id));
const newestAgents = preparedQuery((q, $: { orgId: string; limit: number }) => q.selectFrom('agents').selectAll().where('org_id', '=', $.orgId).orderBy('id', 'desc').limit($.limit));
const agentsBefore = preparedQuery((q, $: { orgId: string; cursor: string; limit: number }) =>
  q.selectFrom('agents').selectAll().where('org_id', '=', $.orgId).where('id', '<', $.cursor).orderBy('id', 'desc').limit($.limit));
const insertAgent = preparedQuery((q, $: AgentRow) => q.insertInto('agents').values(eachParam($, AGENT_COLUMNS)));

/** Agents belong to one organization; every query is scoped by org_id, so another organization sees 404. */
export function createAgentsService(deps: { db: Kysely<Database>; dialect: DialectName; clock: Clock; caps: Pick<Caps, 'agentsPerOrganization'>; onEvent: OnEventsCommitted }) {
  const { db, dialect, clock } = deps;
  const notFound = () => new AppError('not_found', 'No agent with this id.');
  const find = (q: Kysely<Database>, orgId: string, id: string) => findAgent.first({ orgId, id }, q);

  return {
    async create(orgId: string, body: CreateAgentBody): Promise<AgentRow> {
      const now = isoTime(clock.now());
      const row: AgentRow = {
        id: newId('agent'), org_id: orgId, name: cleanName(body.name), description: body.description ?? '', instructions: body.instructions ?? '',
        model: body.model, metadata: JSON.stringify(body.metadata ?? {}), created_at: now, updated_at: now,
      };
      const recorded = await db.transaction().execute(async (trx) => {
        await takeCapacity(trx, orgId, 'agent_count', deps.caps.agentsPerOrganization, 'agents');
        await insertAgent.run(row, trx);
        return recordEvent(trx, clock, { orgId, type: 'agent.created', data: presentAgent(row) });
      });
      deps.onEvent(recorded);
      return row;
    },

    async get(orgId: string, id: string): Promise<AgentRow> {
      const row = await find(db, orgId, id);
      if (!row) throw notFound();
      return row;
    },

    async list(orgId: string, limit: number, cursor?: string) {
      const rows = cursor ? await agentsBefore.all({ orgId, cursor, limit: limit + 1 }, db) : await newestAgents.all({ orgId, limit: limit + 1 }, db);
      return toPage(rows, limit);
    },

    async update(orgId: string, id: string, body: UpdateAgentBody): Promise<AgentRow> {
      const { next: updated, recorded } = await db.transaction().execute(async (trx) => {
        const row = await find(trx, orgId, id);
        if (!row) throw notFound();
        const next: AgentRow = {
          ...row,
          ...(body.name !== undefined ? { name: cleanName(body.name) } : {}),
          ...(body.model !== undefined ? { model: body.model } : {}),
          ...(body.description !== undefined ? { description: body.description } : {}),
          ...(body.instructions !== undefined ? { instructions: body.instructions } : {}),
          ...(body.metadata !== undefined ? { metadata: JSON.stringify(body.metadata) } : {}),
          updated_at: isoTime(clock.now()),
        };
        await trx.updateTable('agents').set(next).where('id', '=', id).where('org_id', '=', orgId).execute();
        return { next, recorded: await recordEvent(trx, clock, { orgId, type: 'agent.updated', data: presentAgent(next) }) };
      });
      deps.onEvent(recorded);
      return updated;
    },

    /** Its chats go first, counted back into the organization's chat cap; their messages go with them (ON DELETE CASCADE). */
    async delete(orgId: string, id: string): Promise<void> {
      const recorded = await db.transaction().execute(async (trx) => {
        await lockOrganization(trx, dialect, orgId); // the organization first, as every cap change does
        await redactChatEvents(trx, orgId, { agentId: id }); // before the chats that name them go
        const chats = await trx.deleteFrom('chats').where('org_id', '=', orgId).where('agent_id', '=', id).executeTakeFirst();
        const result = await trx.deleteFrom('agents').where('org_id', '=', orgId).where('id', '=', id).executeTakeFirst();
        if (Number(result.numDeletedRows) === 0) throw notFound();
        await releaseCapacity(trx, orgId, 'agent_count');
        await releaseCapacity(trx, orgId, 'chat_count', Number(chats.numDeletedRows));
        return recordEvent(trx, clock, { orgId, type: 'agent.deleted', data: { id } });
      });
      deps.onEvent(recorded);
    },
  };
}
export type AgentsService = ReturnType<typeof createAgentsService>;
