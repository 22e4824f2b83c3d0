export default async function globalTeardown() {
  await globalThis.__gatehouseServer?.stop();
  await globalThis.__gatehouseIssuer?.close();
}
