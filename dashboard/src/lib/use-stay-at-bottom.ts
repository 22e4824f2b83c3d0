import { useEffect, useLayoutEffect, useRef } from 'preact/hooks';

const SLACK_PX = 48;

const atBottomNow = () => window.innerHeight + window.scrollY >= document.documentElement.scrollHeight - SLACK_PX;

/**
 * Keeps the newest message in view as messages arrive and replies grow, as long as the reader is
 * at the bottom of the page; a reader who scrolled up to read is left where they are.
 */
export function useStayAtBottom(change: unknown): void {
  const atBottom = useRef(true);
  useEffect(() => {
    const onScroll = () => void (atBottom.current = atBottomNow());
    window.addEventListener('scroll', onScroll, { passive: true });
    return () => window.removeEventListener('scroll', onScroll);
  }, []);
  useLayoutEffect(() => {
    if (atBottom.current) window.scrollTo(0, document.documentElement.scrollHeight);
  }, [change]);
}
