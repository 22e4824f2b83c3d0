import { formatDate } from '../../lib/format.ts';
import type { AdminUser } from './plan.ts';

/** A user's standing at a glance: disabled, deletion scheduled (and when), or active; and admin. */
export function AccountStatus({ user }: { user: Pick<AdminUser, 'disabled' | 'deletion_due_at' | 'role'> }) {
  return (
    <span class="status-badges">
      {user.disabled && <span class="badge badge-warn">disabled</span>}
      {user.deletion_due_at && <span class="badge badge-warn badge-wrap">deletion scheduled for {formatDate(user.deletion_due_at)}</span>}
      {!user.disabled && !user.deletion_due_at && <span class="badge badge-ok">active</span>}
      {user.role === 'admin' && <span class="badge badge-info">admin</span>}
    </span>
  );
}
