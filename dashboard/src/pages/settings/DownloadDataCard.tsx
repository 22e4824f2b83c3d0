import { ErrorAlert } from '../../components/ErrorAlert.tsx';
import { Icon } from '../../components/Icon.tsx';
import { Notice } from '../../components/Notice.tsx';
import { formatBytes, useAccountExport } from '../../lib/account-export.ts';

/**
 * The export's button and what became of it: saved (with a link to save it again), or the
 * server's refusal (10 exports an hour).
 */
export function ExportButton({ label = 'Download your data', secondary = false }: { label?: string; secondary?: boolean }) {
  const { run, busy, error, saved } = useAccountExport();
  return (
    <>
      {saved && (
        <Notice>
          Saved as <span class="long-text">{saved.filename}</span> ({formatBytes(saved.bytes)}).{' '}
          <a href={saved.url} download={saved.filename}>
            Save it again
          </a>
        </Notice>
      )}
      <ErrorAlert error={error} />
      <p class="actions">
        <button type="button" class={secondary ? 'button button-secondary' : 'button'} aria-disabled={busy ? 'true' : undefined} onClick={() => void run()}>
          <Icon name="download" />
          {busy ? 'Preparing your data…' : label}
        </button>
      </p>
    </>
  );
}

/** Settings → Account: everything the account holds, as one JSON file. */
export function DownloadDataCard() {
  return (
    <section class="card" aria-labelledby="export-title">
      <h2 id="export-title">Download your data</h2>
      <p>
        One JSON file with your profile, organizations and roles, the agents, chats and messages, webhook endpoints and API keys of your personal organization (never their secrets), your
        sessions, passkeys, linked accounts and the security log. A team's data belongs to the team.
      </p>
      <ExportButton />
    </section>
  );
}
