import type { ComponentChildren, JSX } from 'preact';
import { useEffect, useRef, useState } from 'preact/hooks';

export interface Column<T> {
  label: string;
  render: (row: T) => ComponentChildren;
  /** A column of buttons: right-aligned, its header visually hidden. */
  actions?: boolean;
  /**
   * Free text (a name, a description, a device, details): on a desktop it wraps at spaces. Every
   * other cell (an id, an address, a date, a count, a role) keeps to one line there (styles.css).
   */
  wrap?: boolean;
}

interface Props<T> {
  caption: string;
  columns: Column<T>[];
  rows: T[];
  rowKey: (row: T) => string;
  /** Shown instead of the table when there are no rows: an <EmptyState> with the next action. */
  empty: JSX.Element;
}

/**
 * A real table on wide screens, scrolling sideways inside its card when its one-line cells need more
 * room than there is; on a phone each row becomes a card (CSS reads data-label).
 */
export function DataTable<T>({ caption, columns, rows, rowKey, empty }: Props<T>) {
  const scrolls = useScrollsSideways(rows.length > 0);
  if (rows.length === 0) return empty;
  return (
    // Scrolling sideways, it is a region the keyboard can reach and scroll (even with nothing focusable inside).
    <div class="table-wrap" ref={scrolls.ref} {...(scrolls.now ? { tabIndex: 0, role: 'region', 'aria-label': caption } : {})}>
      <table class="data-table">
        <caption class="visually-hidden">{caption}</caption>
        <thead>
          <tr>
            {columns.map((c) => (
              <th key={c.label} scope="col" class={c.actions ? 'cell-actions' : undefined}>
                {c.actions ? <span class="visually-hidden">{c.label}</span> : c.label}
              </th>
            ))}
          </tr>
        </thead>
        <tbody>
          {rows.map((row) => (
            <tr key={rowKey(row)}>
              {columns.map((c) => (
                <td key={c.label} data-label={c.actions ? undefined : c.label} class={c.actions ? 'cell-actions' : c.wrap ? 'cell-wrap' : undefined}>
                  {c.render(row)}
                </td>
              ))}
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

/** Whether the element (once `shown`) is narrower than its content, so that it scrolls sideways; followed as sizes change. */
function useScrollsSideways(shown: boolean) {
  const ref = useRef<HTMLDivElement>(null);
  const [now, setNow] = useState(false);
  useEffect(() => {
    const el = ref.current;
    if (!el) return setNow(false);
    const check = () => setNow(el.scrollWidth > el.clientWidth + 1);
    check();
    if (typeof ResizeObserver === 'undefined') return;
    const observer = new ResizeObserver(check);
    observer.observe(el);
    if (el.firstElementChild) observer.observe(el.firstElementChild);
    return () => observer.disconnect();
  }, [shown]);
  return { ref, now };
}
