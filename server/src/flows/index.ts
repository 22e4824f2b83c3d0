/**
 * flows: what crosses every context for one account: its export, its deletion and the purge
 * after the grace. Others import only this file.
 */

export { createAccountDeletion } from './account-deletion.js';
export type { AccountDeletion } from './account-deletion.js';
export { createAccountExport } from './account-export.js';
export type { AccountExport } from './account-export.js';
export { AccountExport as AccountExportSchema } from './account-export.schemas.js';
export { accountFlowRoutes } from './account.routes.js';
export { createAccountPurge } from './deletion-purge.js';
export type { AccountPurge } from './deletion-purge.js';
