import { useEffect, useRef, useState } from 'preact/hooks';
import { gatehouse, type StreamEvent } from './api.ts';
import { describeError, type ErrorView } from './errors.ts';

/** `following`: open (the SDK reconnects and resumes by itself); `deleted`: the chat is gone, nothing more comes; `failed`: see `error`. */
export type ChatStreamStatus = 'following' | 'deleted' | 'failed';

interface Run {
  attempt: number;
  /** Where the stream starts: after this event (0: the chat's first event), or null for live only. */
  after: number | null;
}

/**
 * Follows `gh.chats.stream(chatId)` while the page is open and hands each event to `onEvent`.
 * Unmounting (or opening it again) aborts the stream, which closes its connection.
 */
export function useChatStream(chatId: string, onEvent: (event: StreamEvent) => void) {
  const [run, setRun] = useState<Run>({ attempt: 0, after: null });
  const [status, setStatus] = useState<ChatStreamStatus>('following');
  const [error, setError] = useState<ErrorView | null>(null);
  // Whether a connection was ever established for this chat: from then on no event is missed.
  const [opened, setOpened] = useState(false);
  const handler = useRef(onEvent);
  handler.current = onEvent;
  const lastSequence = useRef<number | null>(null);

  useEffect(() => setOpened(false), [chatId]);

  useEffect(() => {
    const controller = new AbortController();
    setStatus('following');
    setError(null);
    void (async () => {
      try {
        const stream = gatehouse.chats.stream(chatId, { signal: controller.signal, lastEventId: run.after, onOpen: () => setOpened(true) });
        for await (const event of stream) {
          if (controller.signal.aborted) break;
          lastSequence.current = event.sequence;
          handler.current(event);
        }
        // The loop ends by itself only when the chat is deleted (or its agent is).
        if (!controller.signal.aborted) setStatus('deleted');
      } catch (e) {
        if (controller.signal.aborted) return;
        setStatus('failed');
        setError(describeError(e));
      }
    })();
    return () => controller.abort();
  }, [chatId, run]);

  return {
    status,
    error,
    opened,
    /** Whether a stream from the chat's first event has been opened. */
    replayed: run.after === 0,
    /** Opens the stream again from the chat's first event: the server replays them all, then goes live. */
    replay: () => setRun((r) => ({ attempt: r.attempt + 1, after: 0 })),
    /** Opens the stream again after the last event handed out (after a failure). */
    resume: () => setRun((r) => ({ attempt: r.attempt + 1, after: lastSequence.current ?? 0 })),
  };
}
