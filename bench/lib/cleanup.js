// Everything a run started or created, to be undone exactly once, newest first: at the end of a
// part (to free the machine for the next one) or on any exit (error, Ctrl-C, --timeout).
const pending = [];

/** Registers `undo`; returns a function that runs it now (and only once). */
export function onCleanup(label, undo) {
  const entry = { label, undo, done: null };
  pending.push(entry);
  return () => runEntry(entry);
}

async function runEntry(entry) {
  entry.done ??= (async () => {
    try {
      const problems = (await entry.undo()) ?? [];
      for (const p of problems) console.error(`bench: cleanup of ${entry.label} left something behind: ${p}`);
    } catch (error) {
      console.error(`bench: cleanup of ${entry.label} failed: ${error.message}`);
    }
  })();
  return entry.done;
}

export async function cleanupAll() {
  for (const entry of [...pending].reverse()) await runEntry(entry);
}
