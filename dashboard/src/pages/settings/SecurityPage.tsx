import { ActionForm } from '../../components/ActionForm.tsx';
import { useLayoutEffect, useRef, useState } from 'preact/hooks';
import { CopyButton } from '../../components/CopyButton.tsx';
import { ErrorAlert } from '../../components/ErrorAlert.tsx';
import { Field } from '../../components/Field.tsx';
import { Icon } from '../../components/Icon.tsx';
import { Notice } from '../../components/Notice.tsx';
import { SubmitButton } from '../../components/SubmitButton.tsx';
import { gatehouse } from '../../lib/api.ts';
import { downloadText } from '../../lib/download.ts';
import { formatDateTime } from '../../lib/format.ts';
import { useAction, useResource } from '../../lib/hooks.ts';
import { LinkedProvidersCard } from './LinkedProvidersCard.tsx';
import { PasskeysCard } from './PasskeysCard.tsx';

type Enrolment = Awaited<ReturnType<typeof gatehouse.me.mfa.enrolTotp>>;

/** Settings → Security: two-step verification with an authenticator app, recovery codes, passkeys. */
export function SecurityPage() {
  const status = useResource(() => gatehouse.me.mfa.get());
  const [enrolment, setEnrolment] = useState<Enrolment | null>(null);
  const [codes, setCodes] = useState<string[] | null>(null);
  const [notice, setNotice] = useState<string | null>(null);
  const [password, setPassword] = useState('');
  const start = useAction(async () => {
    setNotice(null);
    setEnrolment(await gatehouse.me.mfa.enrolTotp({ password }));
    setPassword('');
  });
  const regenerate = useAction(async () => {
    setCodes((await gatehouse.me.mfa.regenerateRecoveryCodes()).recovery_codes);
    await status.reload();
  });

  if (codes) {
    return (
      <RecoveryCodes
        codes={codes}
        onDone={() => {
          setCodes(null);
          void status.reload();
        }}
      />
    );
  }
  if (enrolment) {
    return (
      <ConfirmEnrolment
        enrolment={enrolment}
        onConfirmed={(recovery) => {
          setEnrolment(null);
          setNotice('Two-step verification is on. Logging in now asks for a code from your authenticator app.');
          setCodes(recovery);
        }}
        onCancel={() => setEnrolment(null)}
      />
    );
  }
  const totp = status.data?.totp;
  const enabled = totp?.status === 'enabled';
  return (
    <>
      {notice && <Notice>{notice}</Notice>}
      <section class="card" aria-labelledby="totp-title" aria-busy={status.loading ? 'true' : undefined}>
        <h2 id="totp-title">Two-step verification</h2>
        <ErrorAlert error={status.error ?? start.error} />
        {status.data && !enabled && (
          <>
            <p>
              After your password, logging in will also ask for a code from an authenticator app on your phone (1Password, Google Authenticator, Authy…).
            </p>
            <ActionForm class="form" onSubmit={() => start.run()}>
              <Field label="Your password" name="password" type="password" autocomplete="current-password" required value={password} onValue={setPassword} error={start.error?.fields.password} />
              <div class="actions">
                <SubmitButton busy={start.busy} busyLabel="Starting…">
                  Set up an authenticator app
                </SubmitButton>
              </div>
            </ActionForm>
          </>
        )}
        {status.data && enabled && (
          <>
            <p>
              <strong>On</strong> since {formatDateTime(totp!.enabled_at!)}. {status.data.recovery_codes_remaining} of 10 recovery codes left.
            </p>
            <ErrorAlert error={regenerate.error} onStepUp={() => void regenerate.run()} />
            <div class="actions">
              <button type="button" class="button button-secondary" onClick={() => void regenerate.run()} aria-disabled={regenerate.busy ? 'true' : undefined}>
                New recovery codes
              </button>
            </div>
          </>
        )}
      </section>
      <PasskeysCard />
      <LinkedProvidersCard />
      {status.data && enabled && (
        <TurnOff
          onDone={() => {
            setNotice('Two-step verification is off.');
            void status.reload();
          }}
        />
      )}
    </>
  );
}

function ConfirmEnrolment({ enrolment, onConfirmed, onCancel }: { enrolment: Enrolment; onConfirmed: (codes: string[]) => void; onCancel: () => void }) {
  const [code, setCode] = useState('');
  const { run, busy, error } = useAction(async () => onConfirmed((await gatehouse.me.mfa.confirmTotp({ code: code.trim() })).recovery_codes));
  const heading = useRef<HTMLHeadingElement>(null);
  useLayoutEffect(() => heading.current?.focus(), []);
  return (
    <section class="card" aria-labelledby="enrol-title">
      <h2 id="enrol-title" ref={heading} tabIndex={-1}>
        Scan this code with your authenticator app
      </h2>
      <img class="qr" src={`data:image/svg+xml;utf8,${encodeURIComponent(enrolment.qr_svg)}`} alt="QR code for your authenticator app; the same key is written below" />
      <p>
        Cannot scan it? Enter this key by hand: <code class="totp-secret">{enrolment.secret}</code>
      </p>
      <ErrorAlert error={error} />
      <ActionForm class="form" onSubmit={() => run()}>
        <Field label="The 6-digit code the app shows" name="code" inputMode="numeric" autocomplete="one-time-code" required value={code} onValue={setCode} error={error?.fields.code} />
        <div class="actions">
          <SubmitButton busy={busy} busyLabel="Checking…">
            Turn on
          </SubmitButton>
          <button type="button" class="button button-secondary" onClick={onCancel}>
            Cancel
          </button>
        </div>
      </ActionForm>
    </section>
  );
}

const RECOVERY_CODES_FILENAME = 'gatehouse-recovery-codes.txt';

/** The downloaded file: what the codes are for and where they came from, then one code a line. */
function recoveryCodesFile(codes: string[]): string {
  return `Recovery codes for ${location.host}, made ${new Date().toISOString().slice(0, 10)}.\nEach one signs you in once in place of your authenticator app.\n\n${codes.join('\n')}\n`;
}

function RecoveryCodes({ codes, onDone }: { codes: string[]; onDone: () => void }) {
  const heading = useRef<HTMLHeadingElement>(null);
  useLayoutEffect(() => heading.current?.focus(), []);
  return (
    <section class="secret-once" aria-labelledby="recovery-title">
      <h2 id="recovery-title" ref={heading} tabIndex={-1}>
        Your recovery codes
      </h2>
      <p>If you lose your phone, each of these lets you log in once. Store them somewhere safe: this is the only time they are shown.</p>
      <ol class="recovery-codes" aria-label="Recovery codes">
        {codes.map((c) => (
          <li key={c}>
            <code>{c}</code>
          </li>
        ))}
      </ol>
      <div class="actions">
        <CopyButton text={codes.join('\n')} label="Copy the codes" />
        <button type="button" class="button button-secondary" onClick={() => downloadText(recoveryCodesFile(codes), RECOVERY_CODES_FILENAME)}>
          <Icon name="download" />
          Download
        </button>
      </div>
      <button type="button" class="button button-primary" onClick={onDone}>
        I have stored them
      </button>
    </section>
  );
}

function TurnOff({ onDone }: { onDone: () => void }) {
  const [code, setCode] = useState('');
  const { run, busy, error } = useAction(async () => {
    const value = code.trim();
    await gatehouse.me.mfa.disableTotp(/^\d{6}$/.test(value) ? { code: value } : { recovery_code: value });
    setCode('');
    onDone();
  });
  return (
    <section class="card" aria-labelledby="totp-off-title">
      <h2 id="totp-off-title">Turn two-step verification off</h2>
      <ErrorAlert error={error} />
      <ActionForm class="form" onSubmit={() => run()}>
        <Field label="Code from your authenticator app" name="disable_code" inputMode="numeric" autocomplete="one-time-code" required value={code} onValue={setCode} error={error?.fields.code ?? error?.fields.recovery_code} hint="Or one of your recovery codes." />
        <div class="actions">
          <SubmitButton busy={busy} busyLabel="Turning off…" variant="danger">
            Turn off
          </SubmitButton>
        </div>
      </ActionForm>
    </section>
  );
}
