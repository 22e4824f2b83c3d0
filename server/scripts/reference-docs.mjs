#!/usr/bin/env node
/**
 * `npm run docs:reference -w server`: rewrites the generated part of docs/reference/cli.md, the
 * text `npx gatehouse <command> --help` prints for every command, from the compiled CLI (dist/,
 * built first). test/docs.test.ts compares the committed page with the same rendering and fails
 * when a command's help changed without the page.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { buildServer, DIST, SERVER_DIR } from './build.mjs';

export const CLI_PAGE = join(SERVER_DIR, '..', 'docs', 'reference', 'cli.md');
export const BEGIN = '<!-- generated from server/src/cli.ts (HELP) by `npm run docs:reference -w server`: do not edit below -->';
export const END = '<!-- end of generated part -->';

/** The generated part: each command's help, the list first. */
export function renderCliHelp(help) {
  const sections = Object.entries(help).map(([command, text]) =>
    `### ${command === 'main' ? '`npx gatehouse --help`' : `\`npx gatehouse ${command} --help\``}\n\n\`\`\`text\n${text}\n\`\`\``);
  return `${BEGIN}\n\n${sections.join('\n\n')}\n\n${END}`;
}

/** The page with its generated part replaced (appended when the page has none yet). */
export function withGeneratedPart(page, help) {
  const start = page.indexOf(BEGIN);
  const end = page.indexOf(END);
  const generated = renderCliHelp(help);
  if (start === -1 || end === -1) return `${page.trimEnd()}\n\n## Every command's help\n\n${generated}\n`;
  return page.slice(0, start) + generated + page.slice(end + END.length);
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  await buildServer();
  const { HELP } = await import(pathToFileURL(join(DIST, 'cli.js')).href);
  writeFileSync(CLI_PAGE, withGeneratedPart(readFileSync(CLI_PAGE, 'utf8'), HELP));
  console.log(`wrote ${CLI_PAGE}`);
}
