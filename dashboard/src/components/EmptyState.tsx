import type { ComponentChildren } from 'preact';
import { Icon, type IconName } from './Icon.tsx';

/** What a list shows while it has nothing: what is missing, and the next thing to do. */
export function EmptyState({ icon = 'inbox', title, children }: { icon?: IconName; title: string; children?: ComponentChildren }) {
  return (
    <div class="empty-state">
      <Icon name={icon} class="empty-state-icon" />
      <div>
        <p class="empty-state-title">{title}</p>
        {children && <p class="empty-state-next">{children}</p>}
      </div>
    </div>
  );
}
