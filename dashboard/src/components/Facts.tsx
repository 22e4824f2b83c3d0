import type { ComponentChildren } from 'preact';

export type Fact = [term: string, value: ComponentChildren];

/**
 * Term / value pairs as a description list: a grid of facts about one thing (an API key, a
 * webhook endpoint), or, `compact`, label: value lines inside a table cell.
 */
export function Facts({ items, compact = false }: { items: Fact[]; compact?: boolean }) {
  return (
    <dl class={compact ? 'inline-facts' : 'facts'}>
      {items.map(([term, value]) => (
        <div key={term}>
          <dt>{term}</dt>
          <dd>{value}</dd>
        </div>
      ))}
    </dl>
  );
}
