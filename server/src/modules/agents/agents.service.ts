import type { Kysely, Selectable } from 'kysely';
import { AppError } from '../../http/error-catalogue.js';
import { toPage } from '../../http/pagination.js';
import { isoTime, type Clock } from '../../infra/clock.js';
import type { AgentsTable, Database } from '../../infra/db/schema.js';
import { newId } from '../../infra/ids.js';
import { recordEvent } from '../events/event-outbox.js';
import { cleanName } from '../users/users.service.js';
import { AGENT_LIMITS, type CreateAgentBody, type UpdateAgentBody } from './agents.schemas.js';

export type AgentRow = Selectable<AgentsTable>;

export function presentAgent(row: AgentRow) {
  return {
    id: row.id, name: row.name, description: row.description, instructions: row.instructions, model: row.model,
    metadata: JSON.parse(row.metadata) as Record<string, string>, created_at: row.created_at, updated_at: row.updated_at,
  };
}

/** Agents belong to one account; every query is scoped by user_id, so another account sees 404. */
export function createAgentsService(deps: { db: Kysely<Database>; clock: Clock; onEvent: () => void }) {
  const { db, clock } = deps;
  const notFound = () => new AppError('not_found', 'No agent with this id.');
  const find = (q: Kysely<Database>, userId: string, id: string) =>
    q.selectFrom('agents').selectAll().where('user_id', '=', userId).where('id', '=', id).executeTakeFirst();

  return {
    async create(userId: string, body: CreateAgentBody): Promise<AgentRow> {
      const now = isoTime(clock.now());
      const row: AgentRow = {
        id: newId('agent'), user_id: userId, name: cleanName(body.name), description: body.description ?? '', instructions: body.instructions ?? '',
        model: body.model, metadata: JSON.stringify(body.metadata ?? {}), created_at: now, updated_at: now,
      };
      await db.transaction().execute(async (trx) => {
        const { n } = await trx.selectFrom('agents').select((eb) => eb.fn.countAll().as('n')).where('user_id', '=', userId).executeTakeFirstOrThrow();
        if (Number(n) >= AGENT_LIMITS.perAccount) {
          throw new AppError('limit_reached', `An account can hold at most ${AGENT_LIMITS.perAccount} agents.`, { limit: AGENT_LIMITS.perAccount });
        }
        await trx.insertInto('agents').values(row).execute();
        await recordEvent(trx, clock, { userId, type: 'agent.created', data: presentAgent(row) });
      });
      deps.onEvent();
      return row;
    },

    async get(userId: string, id: string): Promise<AgentRow> {
      const row = await find(db, userId, id);
      if (!row) throw notFound();
      return row;
    },

    async list(userId: string, limit: number, cursor?: string) {
      let q = db.selectFrom('agents').selectAll().where('user_id', '=', userId);
      if (cursor) q = q.where('id', '<', cursor);
      return toPage(await q.orderBy('id', 'desc').limit(limit + 1).execute(), limit);
    },

    async update(userId: string, id: string, body: UpdateAgentBody): Promise<AgentRow> {
      const updated = await db.transaction().execute(async (trx) => {
        const row = await find(trx, userId, id);
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
        await trx.updateTable('agents').set(next).where('id', '=', id).where('user_id', '=', userId).execute();
        await recordEvent(trx, clock, { userId, type: 'agent.updated', data: presentAgent(next) });
        return next;
      });
      deps.onEvent();
      return updated;
    },

    /** Its chats and messages go with it (ON DELETE CASCADE). */
    async delete(userId: string, id: string): Promise<void> {
      await db.transaction().execute(async (trx) => {
        const result = await trx.deleteFrom('agents').where('user_id', '=', userId).where('id', '=', id).executeTakeFirst();
        if (Number(result.numDeletedRows) === 0) throw notFound();
        await recordEvent(trx, clock, { userId, type: 'agent.deleted', data: { id } });
      });
      deps.onEvent();
    },
  };
}
export type AgentsService = ReturnType<typeof createAgentsService>;
