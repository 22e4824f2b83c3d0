import type { ComponentChildren, JSX } from 'preact';
import { navigate } from '../lib/router.ts';

type Props = Omit<JSX.HTMLAttributes<HTMLAnchorElement>, 'href'> & { href: string; children: ComponentChildren };

/** An ordinary link that the router follows without a page load (modified clicks open as usual). */
export function Link({ href, children, ...rest }: Props) {
  const onClick = (event: MouseEvent) => {
    if (event.defaultPrevented || event.button !== 0 || event.metaKey || event.ctrlKey || event.shiftKey || event.altKey) return;
    event.preventDefault();
    navigate(href);
  };
  return (
    <a href={href} onClick={onClick} {...rest}>
      {children}
    </a>
  );
}
