/**
 * The desktop dashboard uses its width: at 1280 and 1440 px wide, a table keeps each
 * single token (an IP address, an id, a number, a date) on one line and never splits a word across
 * lines (a table too wide for its card scrolls inside it instead), and the header stays one row.
 *
 * Measured in the page: each line box of a cell's visible text is a rect of a Range over it
 * (`getClientRects()`), rects whose middles fall within the same band being one line.
 */
import { createGatehouse, memoryTokenStore, type Gatehouse } from '@gatehouse/sdk';
import type { Page } from 'playwright-core';
import { expect } from 'vitest';

export const WIDE_VIEWPORTS = [
  { width: 1280, height: 800 },
  { width: 1440, height: 900 },
] as const;

/** A date (or date and time) column: several words, but one line on a desktop all the same. */
export const ONE_LINE_COLUMNS = ['When', 'Signed in', 'Last active', 'Created', 'Last used', 'Expires', 'Joined', 'Sent', 'Added', 'Linked', 'IP address'];

/** A real IPv6 address and a browser's whole user agent: what a session or security event carries from a phone. */
export const IPV6 = '2001:db8:85a3:4d2:1f:8a2e:370:7334';
export const LONG_USER_AGENT = 'Mozilla/5.0 (X11; Ubuntu; Linux x86_64; rv:128.0) Gecko/20100101 Firefox/128.0';

/** The SDK sending each request as from `ip` (X-Forwarded-For; the server needs TRUST_PROXY=true) with `userAgent`. */
export function clientFrom(baseUrl: string, { ip, userAgent }: { ip: string; userAgent: string }): Gatehouse {
  return createGatehouse({
    baseUrl,
    tokenStore: memoryTokenStore(),
    fetch: (input, init) => {
      const headers = new Headers(init?.headers);
      headers.set('x-forwarded-for', ip);
      headers.set('user-agent', userAgent);
      return globalThis.fetch(input, { ...init, headers });
    },
  });
}

export interface WideLayoutReport {
  width: number;
  tables: number;
  cells: number;
  /** Cells of one token (no space) or of a date column. */
  oneLineCells: number;
  /** Those that took more than one line: `label "text" N lines`. */
  wrappedTokens: string[];
  /** Words drawn on two lines or more (a break after a hyphen is no split): `label "word" N lines`. */
  splitWords: string[];
  /** How far the page is wider than the window (it must not be: a wide table scrolls in its card). */
  pageOverflow: number;
  topbarHeight: number;
  /** The header's items (brand, each main link, the organization switcher, the email, Log out): `name@top`. */
  topbarItems: string[];
  /** Rows the header's items take (items whose boxes overlap vertically share one). */
  topbarRows: number;
}

/** Measures the page as laid out now (the viewport already set). */
export function measureWideLayout(page: Page): Promise<WideLayoutReport> {
  return page.evaluate((oneLineColumns) => {
    const visible = (el: Element) => {
      if (el.closest('.visually-hidden')) return false;
      const r = el.getBoundingClientRect();
      return r.width > 1 && r.height > 1;
    };
    /** Line boxes among rects: a rect whose middle lies below the current line's bottom starts a new one. */
    const countLines = (rects: DOMRect[]) => {
      const sorted = rects.filter((r) => r.width > 0.5 && r.height > 0).sort((a, b) => a.top - b.top);
      let lines = 0;
      let bottom = -Infinity;
      for (const r of sorted) {
        if ((r.top + r.bottom) / 2 > bottom) {
          lines++;
          bottom = r.bottom;
        } else bottom = Math.max(bottom, r.bottom);
      }
      return lines;
    };
    const textNodes = (cell: Element) => {
      const nodes: Text[] = [];
      const walker = document.createTreeWalker(cell, NodeFilter.SHOW_TEXT);
      for (let n = walker.nextNode(); n; n = walker.nextNode()) {
        const parent = n.parentElement;
        if (n.textContent?.trim() && parent && visible(parent)) nodes.push(n as Text);
      }
      return nodes;
    };
    const rectsOf = (node: Text, start = 0, end = node.length) => {
      const range = document.createRange();
      range.setStart(node, start);
      range.setEnd(node, end);
      return [...range.getClientRects()];
    };

    const report = { width: window.innerWidth, tables: 0, cells: 0, oneLineCells: 0, wrappedTokens: [] as string[], splitWords: [] as string[] };
    for (const table of document.querySelectorAll('main table')) {
      if (!visible(table)) continue;
      report.tables++;
      const headers = [...table.querySelectorAll('thead th')].map((th) => th.textContent?.trim() ?? '');
      for (const cell of table.querySelectorAll('tbody td, tbody th')) {
        const nodes = textNodes(cell);
        if (nodes.length === 0) continue;
        report.cells++;
        const label = cell.getAttribute('data-label') ?? headers[(cell as HTMLTableCellElement).cellIndex] ?? '?';
        const text = nodes.map((n) => n.textContent!.trim()).join(' ');
        if (!/\s/.test(text) || oneLineColumns.includes(label)) {
          report.oneLineCells++;
          const lines = countLines(nodes.flatMap((n) => rectsOf(n)));
          if (lines > 1) report.wrappedTokens.push(`${label} "${text}" ${lines} lines`);
        }
        for (const node of nodes) {
          // A word: between spaces; a hyphenated one may break after its hyphen ("Featherstonehaugh-" "Cholmondeley").
          for (const word of node.textContent!.matchAll(/[^\s-]+-*|-+/g)) {
            const lines = countLines(rectsOf(node, word.index, word.index + word[0].length));
            if (lines > 1) report.splitWords.push(`${label} "${word[0]}" ${lines} lines`);
          }
        }
      }
    }

    const topbar = document.querySelector('.topbar')!;
    const items = [...topbar.querySelectorAll(':scope > .brand, .mainnav li, :scope > .org-switcher, .account > *')].filter(visible);
    const boxes = items.map((el) => ({ name: (el.textContent?.trim() || el.tagName).slice(0, 24), rect: el.getBoundingClientRect() }));
    return {
      ...report,
      pageOverflow: document.documentElement.scrollWidth - window.innerWidth,
      topbarHeight: Math.round(topbar.getBoundingClientRect().height),
      topbarItems: boxes.map((b) => `${b.name}@${Math.round(b.rect.top)}`),
      topbarRows: countLines(boxes.map((b) => b.rect)),
    };
  }, ONE_LINE_COLUMNS);
}

/**
 * At 1280 and then 1440 px wide: the page's tables (at least one unless `tables: false`) keep one-token
 * and date cells on one line and split no word; the page is no wider than the window; the header is one
 * row. Prints what it measured; fails softly (the journey goes on). The viewport goes back to `restore`.
 */
export async function expectWideLayout(page: Page, name: string, restore: { width: number; height: number }, { tables = true } = {}): Promise<void> {
  for (const viewport of WIDE_VIEWPORTS) {
    await page.setViewportSize(viewport);
    await page.evaluate(() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r))));
    const m = await measureWideLayout(page);
    const at = `${name} at ${m.width} px`;
    console.log(
      `[wide layout] ${at}: ${m.tables} table(s), ${m.cells} cells, ${m.oneLineCells} one-line cells, ${m.wrappedTokens.length} wrapped, ${m.splitWords.length} split words, ` +
        `page overflow ${m.pageOverflow} px, topbar ${m.topbarHeight} px in ${m.topbarRows} row(s)` +
        (m.wrappedTokens.length ? `\n  wrapped: ${m.wrappedTokens.join('; ')}` : '') +
        (m.splitWords.length ? `\n  split: ${m.splitWords.join('; ')}` : '') +
        (m.topbarRows > 1 ? `\n  topbar items: ${m.topbarItems.join(', ')}` : ''),
    );
    if (tables) expect.soft(m.tables, `${at}: a table to check`).toBeGreaterThan(0);
    expect.soft(m.wrappedTokens, `${at}: one-token and date cells on one line`).toEqual([]);
    expect.soft(m.splitWords, `${at}: no word split across lines`).toEqual([]);
    expect.soft(m.pageOverflow, `${at}: the page no wider than the window`).toBeLessThanOrEqual(0);
    expect.soft(m.topbarRows, `${at}: the header on one row (${m.topbarItems.join(', ')})`).toBe(1);
  }
  await page.setViewportSize(restore);
}
