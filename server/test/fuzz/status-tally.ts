/**
 * Which statuses each operation answered during a fuzz run. Printed at the end, and checked:
 * a fuzzer whose credentials or fixtures broke would see only 401/404 and pass vacuously.
 */
export class StatusTally {
  private readonly seen = new Map<string, Map<number, number>>();

  note(operation: string, status: number): void {
    const counts = this.seen.get(operation) ?? new Map<number, number>();
    counts.set(status, (counts.get(status) ?? 0) + 1);
    this.seen.set(operation, counts);
  }

  statuses(operation: string): number[] {
    return [...(this.seen.get(operation)?.keys() ?? [])].sort();
  }

  report(): string {
    return [...this.seen].map(([op, counts]) => `  ${op.padEnd(44)} ${[...counts].sort(([a], [b]) => a - b).map(([s, n]) => `${s}×${n}`).join(' ')}`).join('\n');
  }
}
