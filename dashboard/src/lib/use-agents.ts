import { collect } from '@gatehouse/sdk';
import { gatehouse, type Agent } from './api.ts';
import { useResource } from './hooks.ts';

/** Every agent of the account (to pick one, and to name the agent of each chat). */
export function useAgents() {
  const agents = useResource(() => collect((cursor) => gatehouse.agents.list({ limit: 100, ...(cursor ? { cursor } : {}) })));
  const byId = new Map((agents.data ?? []).map((a) => [a.id, a]));
  return {
    list: agents.data ?? ([] as Agent[]),
    loaded: agents.data !== null,
    error: agents.error,
    /** The agent's name, or its id when it is not among them (deleted meanwhile). */
    nameOf: (id: string) => byId.get(id)?.name ?? id,
  };
}
