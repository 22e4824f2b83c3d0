/**
 * A chat: its messages newest at the bottom (an inverted list of the newest-first API), and a
 * composer. useMessages follows the chat live, so the agent's replies grow here as they stream.
 */
import { useMessages, type Chat, type Message } from '@gatehouse/react-native';
import { useState } from 'react';
import { FlatList, KeyboardAvoidingView, Platform, Text, TextInput, View } from 'react-native';
import { Button, ErrorLine, Screen, styles } from '../ui';

export function ChatScreen({ chat, onBack }: { chat: Chat; onBack: () => void }) {
  const messages = useMessages(chat.id);
  const [draft, setDraft] = useState('');
  const [sending, setSending] = useState(false);
  const [error, setError] = useState<unknown>(null);

  async function send() {
    const content = draft.trim();
    if (!content) return;
    setSending(true);
    setError(null);
    try {
      await messages.send(content);
      setDraft('');
    } catch (failure) {
      setError(failure); // the draft stays, so nothing the user typed is lost
    } finally {
      setSending(false);
    }
  }

  return (
    <Screen title={chat.title ?? 'Chat'} right={<Button kind="plain" title="Back" onPress={onBack} />}>
      <KeyboardAvoidingView style={{ flex: 1 }} behavior={Platform.OS === 'ios' ? 'padding' : undefined}>
        <FlatList
          inverted
          data={messages.items}
          keyExtractor={(message) => message.id}
          onEndReached={() => void messages.loadMore()}
          renderItem={({ item }) => <MessageRow message={item} />}
        />
        <ErrorLine error={error ?? messages.error} />
        <TextInput accessibilityLabel="Message" style={styles.input} value={draft} onChangeText={setDraft} placeholder="Write a message" multiline />
        <Button title={sending ? 'Sending…' : 'Send'} onPress={send} disabled={sending || draft.trim() === ''} />
      </KeyboardAvoidingView>
    </Screen>
  );
}

/** One message; a reply still streaming shows its text so far and a typing indicator. */
function MessageRow({ message }: { message: Message }) {
  const streaming = message.status === 'streaming';
  return (
    <View style={styles.row}>
      <Text style={styles.muted}>{message.role}</Text>
      {message.content !== '' && <Text style={styles.rowTitle}>{message.content}</Text>}
      {streaming && (
        <Text accessibilityLabel={`${message.role} is writing`} style={styles.typing}>
          …
        </Text>
      )}
    </View>
  );
}
