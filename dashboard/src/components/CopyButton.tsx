import { useState } from 'preact/hooks';
import { Icon } from './Icon.tsx';

async function copyText(text: string, fallbackInput: HTMLInputElement | null): Promise<boolean> {
  try {
    await navigator.clipboard.writeText(text);
    return true;
  } catch {
    // No clipboard API (plain http on a non-local host) or permission refused: select and copy.
    if (!fallbackInput) return false;
    fallbackInput.focus();
    fallbackInput.select();
    return document.execCommand?.('copy') ?? false;
  }
}

/** Copies `text`; the result is announced ("Copied" or what to do instead). */
export function CopyButton({ text, inputId, label = 'Copy' }: { text: string; inputId?: string; label?: string }) {
  const [status, setStatus] = useState('');
  const onClick = async () => {
    const input = inputId ? (document.getElementById(inputId) as HTMLInputElement | null) : null;
    const ok = await copyText(text, input);
    setStatus(ok ? 'Copied to the clipboard.' : 'Copy did not work here: select the text and copy it yourself.');
  };
  return (
    <>
      <button type="button" class="button button-secondary" onClick={onClick}>
        <Icon name="copy" />
        {label}
      </button>
      <span class="copy-status" role="status">
        {status}
      </span>
    </>
  );
}
