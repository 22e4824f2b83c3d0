/** One agent's chats; start a new one, or open one. */
import { useChats, useGatehouse, type Agent, type Chat } from '@gatehouse/react-native';
import { useState } from 'react';
import { FlatList, Pressable, Text } from 'react-native';
import { Button, ErrorLine, Screen, styles } from '../ui';

export function ChatsScreen({ agent, onOpen, onBack }: { agent: Agent; onOpen: (chat: Chat) => void; onBack: () => void }) {
  const gh = useGatehouse();
  const chats = useChats({ agentId: agent.id });
  const [error, setError] = useState<unknown>(null);

  async function newChat() {
    setError(null);
    try {
      onOpen(await gh.chats.create({ agent_id: agent.id, title: `Chat with ${agent.name}` }));
    } catch (failure) {
      setError(failure);
    }
  }

  return (
    <Screen title={agent.name} right={<Button kind="plain" title="Back" onPress={onBack} />}>
      <Button title="New chat" onPress={newChat} />
      <ErrorLine error={error ?? chats.error} />
      <FlatList
        data={chats.items}
        keyExtractor={(chat) => chat.id}
        refreshing={chats.loading}
        onRefresh={chats.refresh}
        onEndReached={() => void chats.loadMore()}
        ListEmptyComponent={chats.loading ? null : <Text style={styles.muted}>No chats yet.</Text>}
        renderItem={({ item }) => (
          <Pressable accessibilityRole="button" style={styles.row} onPress={() => onOpen(item)}>
            <Text style={styles.rowTitle}>{item.title ?? 'Untitled chat'}</Text>
            <Text style={styles.muted}>{new Date(item.created_at).toLocaleString()}</Text>
          </Pressable>
        )}
      />
    </Screen>
  );
}
