/**
 * "Download your data": reads the account's export (GET /v1/users/me/export) and hands it to the
 * browser as a file (download.ts); its Blob's URL is kept while the page shows it, so "Save it
 * again" works.
 */
import { useEffect, useRef, useState } from 'preact/hooks';
import { gatehouse } from './api.ts';
import { offerDownload } from './download.ts';
import { useAction } from './hooks.ts';

export interface SavedExport {
  filename: string;
  bytes: number;
  /** The Blob's URL, kept while the page shows it so "Save it again" works; revoked after. */
  url: string;
}

export function useAccountExport() {
  const [saved, setSaved] = useState<SavedExport | null>(null);
  const current = useRef<string | null>(null);
  const forget = () => {
    if (current.current) URL.revokeObjectURL(current.current);
    current.current = null;
  };
  useEffect(() => forget, []);
  const action = useAction(async () => {
    const data = await gatehouse.me.export();
    const text = `${JSON.stringify(data, null, 2)}\n`;
    const blob = new Blob([text], { type: 'application/json' });
    forget();
    const url = (current.current = URL.createObjectURL(blob));
    // The server's own name for it (Content-Disposition), with the date it was taken.
    const filename = `gatehouse-export-${data.user.id}-${data.exported_at.slice(0, 10)}.json`;
    offerDownload(url, filename);
    setSaved({ filename, bytes: blob.size, url });
  });
  return { ...action, saved };
}

export function formatBytes(bytes: number): string {
  if (bytes < 1000) return `${bytes} bytes`;
  if (bytes < 1_000_000) return `${(bytes / 1000).toFixed(1)} kB`;
  return `${(bytes / 1_000_000).toFixed(1)} MB`;
}
