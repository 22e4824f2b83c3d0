// Types for reference-docs.mjs, which test/docs.test.ts imports.
export const CLI_PAGE: string;
export const BEGIN: string;
export const END: string;
export function renderCliHelp(help: Record<string, string>): string;
export function withGeneratedPart(page: string, help: Record<string, string>): string;
