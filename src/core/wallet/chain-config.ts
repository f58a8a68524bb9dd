import { isEvmAddress, isSolanaAddress } from './addresses.js';
import { NETWORKS, type Network } from './assets.js';

/** How one network runs: the simulated chain, a real chain inside the process, or a JSON-RPC endpoint. */
export type ChainSetting = { mode: 'sim'; confirmations: number } | { mode: 'local'; confirmations: number; usdc: string | null } | { mode: 'rpc'; url: string; confirmations: number; usdc: string | null };

/** Chain options of `createRuntime({ wallet: { chains, usdc, confirmations } })`, as the CLI flags give them. */
export interface ChainOptions {
  /** `sim` (default), `local`, or an http(s) JSON-RPC URL, per network (`--chain NETWORK=MODE`). */
  chains?: Partial<Record<Network, string>>;
  /** The usdc ERC-20 contract (EVM) or SPL mint (solana) per network (`--usdc NETWORK=ADDRESS`); `local` deploys its own. */
  usdc?: Partial<Record<Network, string>>;
  /** Confirmation depth per network (`--confirmations NETWORK=N`): counts the transaction's own block. */
  confirmations?: Partial<Record<Network, number>>;
}

/** Default confirmation depth of RPC networks (DECISIONS.md); `local` defaults to 1. */
export const DEFAULT_CONFIRMATIONS: Readonly<Record<Network, number>> = { ethereum: 12, base: 10, solana: 32 };

/** Block time of each real network's `local` mode, in service milliseconds (DECISIONS.md). */
export const LOCAL_BLOCK_MS: Readonly<Record<Network, number>> = { ethereum: 12_000, base: 2_000, solana: 400 };

/**
 * Resolves the per-network chain settings. `sim` stays the default of every network.
 * @throws RangeError naming the flag on a bad mode, address or depth
 */
export function resolveChains(options: ChainOptions = {}): Record<Network, ChainSetting> {
  for (const key of [...Object.keys(options.chains ?? {}), ...Object.keys(options.usdc ?? {}), ...Object.keys(options.confirmations ?? {})]) {
    if (!(NETWORKS as readonly string[]).includes(key)) throw new RangeError(`unknown network "${key}": expected ${NETWORKS.join(', ')}`);
  }
  const resolved = {} as Record<Network, ChainSetting>;
  for (const network of NETWORKS) {
    const text = options.chains?.[network] ?? 'sim';
    const usdc = options.usdc?.[network] ?? null;
    if (usdc !== null && !(network === 'solana' ? isSolanaAddress(usdc) : isEvmAddress(usdc))) throw new RangeError(`--usdc ${network}: "${usdc}" is not an address of that network`);
    const depth = options.confirmations?.[network];
    if (depth !== undefined && (!Number.isSafeInteger(depth) || depth < 1 || depth > 1000)) throw new RangeError(`--confirmations ${network}: expected an integer from 1 to 1000, got ${depth}`);
    if (text === 'sim') {
      resolved[network] = { mode: 'sim', confirmations: depth ?? DEFAULT_CONFIRMATIONS[network] };
    } else if (text === 'local') {
      resolved[network] = { mode: 'local', confirmations: depth ?? 1, usdc };
    } else if (/^https?:\/\/\S+$/.test(text)) {
      resolved[network] = { mode: 'rpc', url: text, confirmations: depth ?? DEFAULT_CONFIRMATIONS[network], usdc };
    } else {
      throw new RangeError(`--chain ${network}: expected sim, local or an http(s) JSON-RPC URL, got "${text}"`);
    }
  }
  return resolved;
}

/** Whether any network runs on a real chain (local or RPC). */
export function anyRealChain(chains: Record<Network, ChainSetting>): boolean {
  return NETWORKS.some((network) => chains[network].mode !== 'sim');
}

/** Parses repeated `NETWORK=VALUE` flags into a per-network map. @throws RangeError naming the flag */
export function networkFlags(flag: string, values: readonly string[] | undefined): Partial<Record<Network, string>> | undefined {
  if (!values || values.length === 0) return undefined;
  const map: Partial<Record<Network, string>> = {};
  for (const value of values) {
    const eq = value.indexOf('=');
    const network = value.slice(0, eq);
    if (eq <= 0 || eq === value.length - 1 || !(NETWORKS as readonly string[]).includes(network)) {
      throw new RangeError(`${flag} must be NETWORK=VALUE with NETWORK one of ${NETWORKS.join(', ')}, got "${value}"`);
    }
    map[network as Network] = value.slice(eq + 1);
  }
  return map;
}
