import { SecurityEventLog } from '../../components/SecurityEventLog.tsx';
import { gatehouse } from '../../lib/api.ts';

/** Settings → Security log: what happened to the account (GET /v1/users/me/security-events), newest first. */
export function SecurityLogPage() {
  return (
    <SecurityEventLog
      id="security-log"
      title="Security log"
      hint="Sign-ins, password, factor and key changes on your account, newest first. Something you do not recognise? Change your password and revoke the sessions you do not know."
      emptyNext="Sign-ins and changes to your account are listed here as they happen."
      load={(query) => gatehouse.me.securityEvents(query)}
    />
  );
}
