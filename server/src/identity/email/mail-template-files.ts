import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { ConfigError } from '../../config.js';
import { MAIL_VARIABLES, PLACEHOLDER, type MailName, type MailOverride, type MailOverrides } from './mail-templates.js';

const PARTS = { '.subject.txt': 'subject', '.txt': 'text', '.html': 'html' } as const;
/** A template larger than this is surely not one (a mail is a few kilobytes). */
const MAX_TEMPLATE_BYTES = 256 * 1024;

const fail = (problem: string) => new ConfigError('MAIL_TEMPLATES_DIR', problem);
const isMailName = (name: string): name is MailName => Object.hasOwn(MAIL_VARIABLES, name);

/** `<mail>.subject.txt` → ['<mail>', 'subject']; the longest suffix first, so `.subject.txt` is not read as `.txt`. */
function partOf(file: string): [MailName, keyof MailOverride] {
  for (const [suffix, part] of Object.entries(PARTS) as [keyof typeof PARTS, keyof MailOverride][]) {
    const mail = file.endsWith(suffix) ? file.slice(0, -suffix.length) : undefined;
    if (mail !== undefined && isMailName(mail)) return [mail, part];
  }
  throw fail(`has ${file}, which is no mail's part: name files <mail>.subject.txt, <mail>.txt or <mail>.html, for a mail of ${Object.keys(MAIL_VARIABLES).join(', ')}`);
}

/** The file's text; anything in the way (not a file, too large, a dangling link, no permission) names the file. */
function readTemplate(dir: string, file: string): string {
  const path = join(dir, file);
  try {
    const stat = statSync(path);
    if (stat.isFile() && stat.size <= MAX_TEMPLATE_BYTES) return readFileSync(path, 'utf8');
  } catch (error) {
    throw fail(`has ${file}, which cannot be read: ${(error as Error).message}`);
  }
  throw fail(`has ${file}, which is not a file of at most ${MAX_TEMPLATE_BYTES} bytes`);
}

/** Every `{{ … }}` must name one of the mail's variables: a typo would otherwise go out as an empty gap. */
function checkVariables(file: string, mail: MailName, template: string): void {
  const allowed: readonly string[] = MAIL_VARIABLES[mail];
  for (const [whole, name] of template.matchAll(PLACEHOLDER)) {
    if (!allowed.includes(name!.trim())) throw fail(`has ${file}, which uses ${whole.replace(/\s+/g, ' ')}: the ${mail} mail's variables are ${allowed.join(', ')}`);
  }
}

/**
 * Reads MAIL_TEMPLATES_DIR once, at start: every file must be a known mail's part
 * (`<mail>.subject.txt`, `<mail>.txt`, `<mail>.html`; names and variables in MAIL_VARIABLES) and
 * use only that mail's variables (`{{ name }}`); anything else stops the start, naming the file,
 * rather than sending a broken mail later. Nothing is read per mail. Hidden files (`.gitkeep`,
 * `.DS_Store`) are passed over.
 */
export function loadMailOverrides(dir: string): MailOverrides {
  let files: string[];
  try {
    files = readdirSync(dir).filter((file) => !file.startsWith('.'));
  } catch (error) {
    throw fail(`cannot be read: ${(error as Error).message}`);
  }
  const overrides: MailOverrides = new Map();
  for (const file of files.sort()) {
    const [mail, part] = partOf(file);
    const template = readTemplate(dir, file);
    checkVariables(file, mail, template);
    if (part === 'subject' && template.trim() === '') throw fail(`has ${file}, which is empty: a mail needs a subject`);
    overrides.set(mail, { ...overrides.get(mail), [part]: template });
  }
  return overrides;
}
