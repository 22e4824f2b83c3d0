/** The account's agents; add one, or open one to see its chats. A guest is offered to save its account. */
import { useAgents, useGatehouse, useSession, type Agent } from '@gatehouse/react-native';
import { useState } from 'react';
import { Alert, FlatList, Pressable, Text } from 'react-native';
import { Button, ErrorLine, Field, Screen, styles } from '../ui';

export function AgentsScreen({ onOpen, onUpgrade }: { onOpen: (agent: Agent) => void; onUpgrade: () => void }) {
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

  const guest = user?.is_anonymous === true;
  // A guest has no way back in: logging out leaves its agents and chats behind for good.
  const logOut = () =>
    guest
      ? Alert.alert('Leave the guest account?', 'Its agents and chats cannot be opened again. Save your account to keep them.', [
          { text: 'Cancel', style: 'cancel' },
          { text: 'Log out', style: 'destructive', onPress: () => void signOut() },
        ])
      : void signOut();

  return (
    <Screen title="Agents" right={<Button kind="plain" title="Log out" onPress={logOut} />}>
      {guest ? (
        <>
          <Text style={styles.muted}>You are trying the app as a guest.</Text>
          <Button kind="plain" title="Save your account" onPress={onUpgrade} />
        </>
      ) : (
        <Text style={styles.muted}>Signed in as {user?.email}</Text>
      )}
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
