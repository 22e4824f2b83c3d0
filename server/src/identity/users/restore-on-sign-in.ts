import type { ClientInfo } from '../../kernel/client-info.js';
import type { UserRow } from './users.repository.js';

/**
 * Every way of signing in calls this before it issues a session: an account scheduled for
 * deletion is restored by signing in, and one past its grace is refused as gone. The deletion
 * flow (flows/account-deletion.ts) implements it; identity only knows its shape.
 */
export type RestoreOnSignIn = (user: Pick<UserRow, 'id' | 'email' | 'name' | 'deletion_due_at'>, client: ClientInfo) => Promise<void>;
