/** The data hooks against the live server: pages, loading and error state, and sending. */
import { createGatehouse, isGatehouseError } from '@gatehouse/sdk';
import { act, render, screen, waitFor } from '@testing-library/react-native';
import { useEffect } from 'react';
import { Text } from 'react-native';
import { GatehouseProvider, useAgents, useChats, useMessages, type ListState, type MessagesState } from '../src/index.js';
import { returningUser, SERVER } from './helpers.js';

function Capture<T>({ hook, onState }: { hook: () => T; onState: (state: T) => void }) {
  const state = hook();
  useEffect(() => {
    onState(state);
  });
  return <Text testID="probe">probe</Text>;
}

describe('data hooks', () => {
  it('useAgents loads the first page, then older ones on loadMore, newest first', async () => {
    const { storage } = await returningUser();
    const gh = createGatehouse({ baseUrl: SERVER, tokenStore: storage });
    for (const name of ['First', 'Second', 'Third']) await gh.agents.create({ name, model: 'gpt-4o' });
    let agents: ListState<{ name: string }> | undefined;
    render(<GatehouseProvider baseUrl={SERVER} tokenStore={storage}><Capture hook={() => useAgents({ pageSize: 2 })} onState={(s) => (agents = s)} /></GatehouseProvider>);
    expect(screen.getByTestId('probe')).toBeTruthy();
    await waitFor(() => expect(agents?.loading).toBe(false));
    expect(agents!.items.map((a) => a.name)).toEqual(['Third', 'Second']);
    expect(agents!.hasMore).toBe(true);
    // Two calls in the same tick (FlatList's onEndReached can do that) fetch the next page once.
    await act(() => Promise.all([agents!.loadMore(), agents!.loadMore()]).then(() => undefined));
    expect(agents!.items.map((a) => a.name)).toEqual(['Third', 'Second', 'First']);
    expect(agents!.hasMore).toBe(false);
  });

  it('useChats filters by agent; useMessages pages and sends', async () => {
    const { storage } = await returningUser();
    const gh = createGatehouse({ baseUrl: SERVER, tokenStore: storage });
    const [a, b] = [await gh.agents.create({ name: 'A', model: 'm' }), await gh.agents.create({ name: 'B', model: 'm' })];
    const chat = await gh.chats.create({ agent_id: a.id, title: 'With A' });
    await gh.chats.create({ agent_id: b.id, title: 'With B' });
    let chats: ListState<{ title: string | null }> | undefined;
    let messages: MessagesState | undefined;
    render(
      <GatehouseProvider baseUrl={SERVER} tokenStore={storage}>
        <Capture hook={() => useChats({ agentId: a.id })} onState={(s) => (chats = s)} />
        <Capture hook={() => useMessages(chat.id)} onState={(s) => (messages = s)} />
      </GatehouseProvider>,
    );
    await waitFor(() => expect(chats?.loading === false && messages?.loading === false).toBe(true));
    expect(chats!.items.map((c) => c.title)).toEqual(['With A']);
    expect(messages!.items).toEqual([]);
    await act(async () => void (await messages!.send('Hello!')));
    await act(async () => void (await messages!.send('Are you there?')));
    expect(messages!.items.map((m) => [m.role, m.content])).toEqual([['user', 'Are you there?'], ['user', 'Hello!']]);
    // What the server holds is what the list shows after a refresh.
    await act(() => messages!.refresh());
    expect(messages!.items.map((m) => m.content)).toEqual(['Are you there?', 'Hello!']);
  });

  it('reports a failed load as error, and sends nothing it cannot', async () => {
    const { storage } = await returningUser();
    let messages: MessagesState | undefined;
    render(<GatehouseProvider baseUrl={SERVER} tokenStore={storage}><Capture hook={() => useMessages('cht_01m00000000000000000000000')} onState={(s) => (messages = s)} /></GatehouseProvider>);
    await waitFor(() => expect(messages?.loading).toBe(false));
    expect(isGatehouseError(messages!.error, 'not_found')).toBe(true);
    const refused = await messages!.send('into the void').catch((error: unknown) => error);
    expect(isGatehouseError(refused, 'not_found')).toBe(true);
    expect(messages!.items).toEqual([]);
  });
});
