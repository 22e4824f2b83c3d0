// Preloaded into a Gatehouse server by bench/idle-gc.js (`node --expose-gc --import <this>`): a
// full GC on SIGUSR2, the one V8's memory reducer runs in a server idle after start.
process.on('SIGUSR2', () => globalThis.gc());
