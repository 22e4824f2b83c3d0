/**
 * Follows one chat's live stream (`client.chats.stream`) while `enabled`, handing every event to
 * `onEvent`. The SDK's stream reconnects and resumes by itself; this hook closes it when the
 * component unmounts, the chat changes or `enabled` turns false, and reopens it (resuming after
 * the last event seen, so nothing is lost or repeated) when the app comes back to the foreground,
 * instead of waiting out a reconnect backoff that grew while the phone slept.
 */
import type { EventStream, StreamEvent } from '@gatehouse/sdk';
import { useEffect, useRef, useState } from 'react';
import { useGatehouseContext } from './provider.js';

/**
 * Returns whether the stream is being followed: false before, after it ended, and after an error
 * reconnecting cannot cure. `onOpen` runs each time a connection is established (from then on no
 * event is missed): the moment to read what the stream will keep current.
 */
export function useChatStream(chatId: string, enabled: boolean, onEvent: (event: StreamEvent) => void, onOpen?: () => void): boolean {
  const { client, controller } = useGatehouseContext();
  const [following, setFollowing] = useState(false);
  const onEventRef = useRef(onEvent);
  onEventRef.current = onEvent;
  const onOpenRef = useRef(onOpen);
  onOpenRef.current = onOpen;

  useEffect(() => {
    if (!enabled) return;
    let current: EventStream | null = null;
    let lastEventId: string | null = null;
    let chatDeleted = false;

    const follow = () => {
      const stream = client.chats.stream(chatId, { lastEventId, onOpen: () => onOpenRef.current?.() });
      current = stream;
      setFollowing(true);
      void (async () => {
        try {
          for await (const event of stream) {
            if (current !== stream) break;
            if (event.type === 'chat.deleted') chatDeleted = true;
            onEventRef.current(event);
          }
        } catch {
          // Thrown only when reconnecting cannot help (404, 403, a 401 after the refresh…): the
          // stream stays off until the app next comes to the foreground.
        } finally {
          if (current === stream) {
            current = null;
            lastEventId = stream.lastEventId ?? lastEventId;
            setFollowing(false);
          }
        }
      })();
    };
    const stop = () => {
      const stream = current;
      current = null;
      if (!stream) return;
      lastEventId = stream.lastEventId ?? lastEventId;
      stream.close();
    };

    follow();
    const offForeground = controller.onForeground(() => {
      if (chatDeleted) return;
      stop();
      follow();
    });
    return () => {
      offForeground();
      stop();
      setFollowing(false);
    };
  }, [client, controller, chatId, enabled]);

  return enabled && following;
}
