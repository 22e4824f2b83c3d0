import { join } from 'node:path';

export const DASHBOARD_DIR = join(import.meta.dirname, '..', '..');
export const REPO_DIR = join(DASHBOARD_DIR, '..');
export const DIST_DIR = join(DASHBOARD_DIR, 'dist');
export const SCREENSHOT_DIR = join(DASHBOARD_DIR, 'test-results', 'screenshots');
export const README_IMAGE_DIR = join(REPO_DIR, 'docs', 'images');
