import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { ConfigError } from '../../config.js';
import { MAIL_VARIABLES, type MailName, type MailOverride, type MailOverrides } from './mail-templates.js';

const PARTS = { '.subject.txt': 'subject', '.txt': 'text', '.html': 'html' } as const;
/** A template larger than this is surely not one (a mail is a few kilobytes). */
const MAX_TEMPLATE_BYTES = 256 * 1024;

const isMailName = (name: string): name is MailName => Object.hasOwn(MAIL_VARIABLES, name);

/** `<mail>.subject.txt` → ['<mail>', 'subject']; the longest suffix first, so `.subject.txt` is not read as `.txt`. */
function partOf(file: string): [string, keyof MailOverride] | undefined {
  for (const [suffix, part] of Object.entries(PARTS) as [keyof typeof PARTS, keyof MailOverride][]) {
    if (file.endsWith(suffix)) return [file.slice(0, -suffix.length), part];
  }
  return undefined;
}

/**
 * Reads MAIL_TEMPLATES_DIR once, at start: every file must be a known mail's part
 * (`<mail>.subject.txt`, `<mail>.txt`, `<mail>.html`; names and variables in MAIL_VARIABLES) and
 * use only that mail's variables (`{{ name }}`); anything else stops the start, naming the file,
 * rather than sending a broken mail later. Nothing is read per mail.
 */
export function loadMailOverrides(dir: string): MailOverrides {
  const fail = (problem: string) => new ConfigError('MAIL_TEMPLATES_DIR', problem);
  let files: string[];
  try {
    files = readdirSync(dir).filter((file) => !file.startsWith('.'));
  } catch (error) {
    throw fail(`cannot be read: ${(error as Error).message}`);
  }
  const overrides: MailOverrides = new Map();
  for (const file of files.sort()) {
    const parsed = partOf(file);
    if (!parsed || !isMailName(parsed[0])) {
      throw fail(`has ${file}, which is no mail's part: name files <mail>.subject.txt, <mail>.txt or <mail>.html, for a mail of ${Object.keys(MAIL_VARIABLES).join(', ')}`);
    }
    const [mail, part] = parsed;
    const path = join(dir, file);
    if (!statSync(path).isFile() || statSync(path).size > MAX_TEMPLATE_BYTES) throw fail(`has ${file}, which is not a file of at most ${MAX_TEMPLATE_BYTES} bytes`);
    let template: string;
    try {
      template = readFileSync(path, 'utf8');
    } catch (error) {
      throw fail(`has ${file}, which cannot be read: ${(error as Error).message}`);
    }
    const allowed: readonly string[] = MAIL_VARIABLES[mail];
    for (const [, name] of template.matchAll(/\{\{\s*([^}\s]*)\s*\}\}/g)) {
      if (!allowed.includes(name!)) throw fail(`has ${file}, which uses {{${name}}}: the ${mail} mail's variables are ${allowed.join(', ')}`);
    }
    if (part === 'subject' && template.trim() === '') throw fail(`has ${file}, which is empty: a mail needs a subject`);
    overrides.set(mail, { ...overrides.get(mail), [part]: part === 'subject' ? template.trim() : template });
  }
  return overrides;
}
