/** The account's agents; add one, or open one to see its chats. */
import { useAgents, useGatehouse, useSession, type Agent } from '@gatehouse/react-native';
import { useState } from 'react';
import { FlatList, Pressable, Text } from 'react-native';
import { Button, ErrorLine, Field, Screen, styles } from '../ui';

export function AgentsScreen({ onOpen }: { onOpen: (agent: Agent) => void }) {
  const gh = useGatehouse();
  const { user, signOut } = useSession();
  const agents = useAgents();
  const [name, setName] = useState('');
  const [error, setError] = useState<unknown>(null);
  const [adding, setAdding] = useState(false);

  async function addAgent() {
    setAdding(true); // a double tap adds one agent
    setError(null);
    try {
      await gh.agents.create({ name: name.trim(), model: 'gpt-4o' });
      setName('');
      await agents.refresh();
    } catch (failure) {
      setError(failure);
    } finally {
      setAdding(false);
    }
  }

  return (
    <Screen title="Agents" right={<Button kind="plain" title="Log out" onPress={() => void signOut()} />}>
      <Text style={styles.muted}>Signed in as {user?.email}</Text>
      <Field label="New agent" value={name} onChangeText={setName} autoCapitalize="sentences" placeholder="Support bot" />
      <Button title="Add agent" onPress={addAgent} disabled={adding || name.trim() === ''} />
      <ErrorLine error={error ?? agents.error} />
      <FlatList
        data={agents.items}
        keyExtractor={(agent) => agent.id}
        refreshing={agents.loading}
        onRefresh={agents.refresh}
        onEndReached={() => void agents.loadMore()}
        ListEmptyComponent={agents.loading ? null : <Text style={styles.muted}>No agents yet.</Text>}
        renderItem={({ item }) => (
          <Pressable accessibilityRole="button" style={styles.row} onPress={() => onOpen(item)}>
            <Text style={styles.rowTitle}>{item.name}</Text>
            <Text style={styles.muted}>{item.model}</Text>
          </Pressable>
        )}
      />
    </Screen>
  );
}
