import type { ComponentChildren, JSX } from 'preact';

export interface Column<T> {
  label: string;
  render: (row: T) => ComponentChildren;
  /** A column of buttons: right-aligned, its header visually hidden. */
  actions?: boolean;
}

interface Props<T> {
  caption: string;
  columns: Column<T>[];
  rows: T[];
  rowKey: (row: T) => string;
  /** Shown instead of the table when there are no rows: an <EmptyState> with the next action. */
  empty: JSX.Element;
}

/** A real table on wide screens; on a phone each row becomes a card (CSS reads data-label). */
export function DataTable<T>({ caption, columns, rows, rowKey, empty }: Props<T>) {
  if (rows.length === 0) return empty;
  return (
    <div class="table-wrap">
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
                <td key={c.label} data-label={c.actions ? undefined : c.label} class={c.actions ? 'cell-actions' : undefined}>
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
