import type { Kysely } from 'kysely';
import type { ClientInfo } from '../../kernel/client-info.js';
import type { Bus } from '../../kernel/bus.js';
import type { Clock } from '../../kernel/clock.js';
import type { DialectName } from '../../kernel/db/database.js';
import type { Database } from '../../kernel/db/schema.js';
import type { AttemptLimiter } from '../../kernel/limits/limiter.js';
import type { Mailer } from '../../kernel/mail/mailer.js';
import type { OnEventsCommitted } from '../../kernel/events/event-signal.js';
import type { MailLinkTo, MailTemplates } from '../../identity/index.js';
import type { OrganizationCache } from './organization-cache.js';

/** Who acts, as the audit log records them. */
export interface Actor {
  userId: string;
  /** The API key used, if one was (these routes take access tokens only, so null there). */
  keyId: string | null;
  client: ClientInfo;
}

export interface OrganizationsDeps {
  db: Kysely<Database>;
  dialect: DialectName;
  bus: Bus;
  clock: Clock;
  /** Tells every instance to drop what it cached of an organization or a membership. */
  cache: Pick<OrganizationCache, 'changed' | 'membershipChanged'>;
  mailer: Mailer;
  /** The link an invitation mail carries: the dashboard's /accept-invitation, or the app's (APP_LINK_URL), as every mailed link. */
  mailLink: MailLinkTo;
  /** The invitation mail, in the product's name. */
  mails: Pick<MailTemplates, 'invitationMail'>;
  attempts: AttemptLimiter;
  onEvent: OnEventsCommitted;
  onError: (error: unknown) => void;
  maxOrganizations?: number;
}
