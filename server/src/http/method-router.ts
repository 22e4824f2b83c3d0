import type { FastifyInstance } from 'fastify';
import FindMyWay, { type HTTPMethod } from 'find-my-way';

/**
 * Fastify answers an unknown method on a known path with 404; the API answers 405 with Allow.
 * This mirror of the route table tells the not-found handler which methods a path has.
 */
export function trackAllowedMethods(app: FastifyInstance): (url: string) => string[] {
  const router = FindMyWay({ ignoreTrailingSlash: false });
  const methods = new Set<string>();
  app.addHook('onRoute', (route) => {
    for (const method of [route.method].flat()) {
      if (method === 'HEAD') continue;
      try {
        router.on(method as HTTPMethod, route.url, () => {});
        methods.add(method);
      } catch {
        /* duplicate registrations (HEAD twins, wildcard overlaps) are harmless here */
      }
    }
  });
  return (url) => {
    const path = url.split('?')[0] ?? url;
    return [...methods].filter((m) => router.find(m as HTTPMethod, path) !== null);
  };
}
