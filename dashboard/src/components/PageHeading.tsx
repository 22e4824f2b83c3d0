import type { ComponentChildren } from 'preact';
import { usePageFocus } from '../lib/hooks.ts';

/** The page's h1: names the document and takes focus on navigation, so screen readers announce it. */
export function PageHeading({ title, children }: { title: string; children?: ComponentChildren }) {
  const ref = usePageFocus(title);
  return (
    <div class="page-heading">
      <h1 ref={ref} tabIndex={-1}>
        {title}
      </h1>
      {children && <p class="lede">{children}</p>}
    </div>
  );
}
