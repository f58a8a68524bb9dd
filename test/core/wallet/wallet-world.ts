/** Shared set-up of the wallet tests: an in-process world with funded agents. */
import { createRuntime, type AgentClient, type OpeningBalances, type Runtime, type RuntimeOptions, type SimClient, type WalletTransaction } from '../../../src/index.js';

export const EVM_ADDRESS = '0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed';
export const OTHER_EVM_ADDRESS = '0xfB6916095ca1df60bB79Ce92cE3Ea74c37c5d359';
export const SOLANA_ADDRESS = 'TokenkegQfeZyiNwAJbNbGKPFXCWuBvf9Ss623VQ5DA';
export const IBAN = 'iban:DE89370400440532013000';
export const ABA = 'aba:021000021:123456789';

export interface WalletAgent {
  agent_id: string;
  handle: string;
  email: string;
  api_key: string;
  client: AgentClient;
}

export interface WalletWorld {
  runtime: Runtime;
  sim: SimClient;
  agent(name: string, balances?: OpeningBalances): Promise<WalletAgent>;
}

/** A simulated runtime reached in-process. */
export async function walletWorld(options: RuntimeOptions = {}): Promise<WalletWorld> {
  const runtime = await createRuntime({ seed: 7, ...options });
  const sim = runtime.simClient();
  return {
    runtime,
    sim,
    agent: async (name, balances) => {
      const created = await sim.createAgent({ name, ...(balances ? { balances } : {}) });
      return { ...created, client: runtime.agent(created.api_key) };
    },
  };
}

/** Every history record of an agent, walking all pages. */
export async function wholeHistory(client: AgentClient, query: { asset?: WalletTransaction['asset']; direction?: 'in' | 'out'; limit?: number } = {}): Promise<WalletTransaction[]> {
  const records: WalletTransaction[] = [];
  let cursor: string | undefined;
  do {
    const page = await client.wallet.listTransactions({ limit: 100, ...query, ...(cursor ? { cursor } : {}) });
    records.push(...page.transactions);
    cursor = page.next_cursor ?? undefined;
  } while (cursor);
  return records;
}

/** Balances as one flat object. */
export async function balancesOf(client: AgentClient): Promise<Record<string, string>> {
  const balance = await client.wallet.getBalance();
  return { ...balance.fiat, ...balance.crypto };
}
