/** The pools the stacks name, each once, in name order: the queues the control plane fills. */
export function configuredPools(stacks: readonly { pool: string }[]): string[] {
  return [...new Set(stacks.map((s) => s.pool))].sort();
}
