import { useEffect, useState } from 'preact/hooks';

/** A tiny history router: the server answers index.html at every client route (server/src/http/dashboard.ts). */
const listeners = new Set<() => void>();
const notify = () => listeners.forEach((listener) => listener());
window.addEventListener('popstate', notify);

export interface Location {
  path: string;
  query: URLSearchParams;
}

function current(): Location {
  return { path: window.location.pathname.replace(/(.)\/+$/, '$1'), query: new URLSearchParams(window.location.search) };
}

export function navigate(to: string, options: { replace?: boolean } = {}): void {
  if (to === window.location.pathname + window.location.search) return;
  if (options.replace) window.history.replaceState(null, '', to);
  else window.history.pushState(null, '', to);
  window.scrollTo(0, 0);
  notify();
}

/** Drops the query string (single-use tokens) from the address bar and history, without a re-render. */
export function forgetQuery(): void {
  window.history.replaceState(null, '', window.location.pathname);
}

export function useLocation(): Location {
  const [location, setLocation] = useState(current);
  useEffect(() => {
    const update = () => setLocation(current());
    listeners.add(update);
    return () => void listeners.delete(update);
  }, []);
  return location;
}
