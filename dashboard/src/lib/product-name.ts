/**
 * What the service is called (the server's PRODUCT_NAME): the server writes it into the page it
 * serves (`<meta name="application-name">`, server/src/http/dashboard.ts), so one build serves
 * every product. The Vite dev server's page has none: Gatehouse.
 */
export const PRODUCT_NAME = document.querySelector<HTMLMetaElement>('meta[name="application-name"]')?.content || 'Gatehouse';
