import { useState } from 'preact/hooks';
import { Icon } from '../../components/Icon.tsx';
import { DeleteAccountDialog } from './DeleteAccountDialog.tsx';
import { DownloadDataCard } from './DownloadDataCard.tsx';

/** Settings → Account: the account's data as a file, and deleting the account (with a grace period). */
export function AccountPage() {
  const [deleting, setDeleting] = useState(false);
  return (
    <>
      <DownloadDataCard />
      <section class="card card-danger" aria-labelledby="delete-title">
        <h2 id="delete-title">Delete the account</h2>
        <p>
          Signs you out everywhere and revokes your API keys at once. The account, your personal organization and every organization you are the only member of are deleted after a grace
          period (30 days unless the service is set up otherwise): until then, signing in again restores the account. Revoked keys stay revoked.
        </p>
        <p class="actions">
          <button type="button" class="button button-danger" onClick={() => setDeleting(true)}>
            <Icon name="trash" />
            Delete my account…
          </button>
        </p>
      </section>
      <DeleteAccountDialog open={deleting} onCancel={() => setDeleting(false)} />
    </>
  );
}
