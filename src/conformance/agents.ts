import type { AgentClient } from '../runtime/clients.js';
import type { CreatedAgent } from '../core/identity/identity.schema.js';
import { ApiError } from '../core/shared/api-error.js';
import type { WalletAsset } from '../core/wallet/wallet.schema.js';
import { CheckFailure } from './assert.js';
import type { ConformanceTarget } from './target.js';

/** What an agent starts with. */
export interface AgentSetup {
  balances?: Partial<Record<WalletAsset, string>>;
  phone_country?: string;
  display_name?: string;
}

/** An agent made for a check: the control plane's answer, its name, and a client acting as it. */
export interface ConformanceAgent extends CreatedAgent {
  name: string;
  client: AgentClient;
}

/** A fresh tag, so runs against one long-lived server never collide on agent names. */
function freshTag(): string {
  return Math.random().toString(36).slice(2, 8).padEnd(6, '0');
}

/**
 * Makes agents with unique names (`cf-<tag>-<n>`, valid for DECISIONS.md's name pattern); a name
 * already taken on the target (an earlier run) moves to a new tag.
 * @throws CheckFailure when the control plane refuses to create an agent
 */
export function agentMaker(target: ConformanceTarget): (setup?: AgentSetup) => Promise<ConformanceAgent> {
  let tag = freshTag();
  let counter = 0;
  return async (setup = {}) => {
    for (let attempt = 0; attempt < 5; attempt++) {
      const name = `cf-${tag}-${++counter}`;
      try {
        const created = await target.control.createAgent({ name, ...setup });
        return { ...created, name, client: target.agent(created.api_key) };
      } catch (error) {
        if (error instanceof ApiError && error.code === 'already_exists') {
          tag = freshTag();
          continue;
        }
        if (error instanceof ApiError) throw new CheckFailure(`POST /_sim/agents {name: "${name}"} failed: ${error.status} ${error.code}: ${error.message}`);
        throw error;
      }
    }
    throw new CheckFailure('POST /_sim/agents kept answering already_exists for fresh names');
  };
}
