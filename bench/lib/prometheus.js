// Reads Prometheus' text exposition format (what /metrics serves) into plain numbers.

/**
 * `{ 'name': value, 'name{label="x"}': value }` for every sample line; comments skipped. Label
 * sets are kept verbatim, so `nodejs_heap_space_size_used_bytes{space="old"}` is one key.
 */
export function parsePrometheus(text) {
  const samples = {};
  for (const line of text.split('\n')) {
    if (!line || line.startsWith('#')) continue;
    const match = /^([a-zA-Z_:][a-zA-Z0-9_:]*(?:\{[^}]*\})?)\s+(\S+)/.exec(line);
    if (match) samples[match[1]] = Number(match[2]);
  }
  return samples;
}
