/** Keys {@link KeyAgents} keeps at most: the process's memory stays flat however many keys call. */
const MAX_KEYS = 4096;

/**
 * The agent each API key named when it was last read, kept by the dispatcher to ask a keyed
 * request's Idempotency-Key claim together with its key's read (a key never changes agent). A
 * guess, never an answer: the read made alongside still decides who calls, and a key revoked
 * since is refused by it.
 */
export class KeyAgents {
  private readonly agents = new Map<string, string>();

  /** The agent `bearer` named last time, if it was seen. */
  agentOf(bearer: string): string | undefined {
    return this.agents.get(bearer);
  }

  /** Notes the agent a read of `bearer` answered. */
  remember(bearer: string, agentId: string): void {
    if (this.agents.get(bearer) === agentId) return;
    if (this.agents.size >= MAX_KEYS) this.agents.clear();
    this.agents.set(bearer, agentId);
  }
}
