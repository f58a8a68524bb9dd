import { ApiError } from '../shared/api-error.js';
import { toMinorUnits } from './amount.js';
import { DECIMALS, NETWORKS, NETWORK_ASSETS, isFiat, type Asset, type Network } from './assets.js';
import type { RailName } from '../ports/payment-rails.js';
import type { Recipient } from './recipients.js';

/** How money leaves the service: a chain or a bank rail (book transfers stay inside). */
export type Rail = RailName;

/**
 * The fee schedule as decimal strings in the sent asset. Defaults (DECISIONS.md): ethereum usdc
 * 0.50 / eth 0.0002; base usdc 0.01 / eth 0.000005; solana usdc 0.001 / sol 0.000005; iban 0.20;
 * aba 0.25; book transfers 0.
 */
export interface FeeSchedule {
  ethereum: { usdc: string; eth: string };
  base: { usdc: string; eth: string };
  solana: { usdc: string; sol: string };
  /** Per IBAN transfer, in the sent currency (usd or eur). */
  iban: string;
  /** Per ABA transfer, in usd. */
  aba: string;
}

/** Partial fee overrides of `createRuntime({ wallet: { fees } })`. */
export interface FeeOverrides {
  ethereum?: Partial<FeeSchedule['ethereum']>;
  base?: Partial<FeeSchedule['base']>;
  solana?: Partial<FeeSchedule['solana']>;
  iban?: string;
  aba?: string;
}

/** The default simulated fee schedule of DECISIONS.md. */
export const DEFAULT_FEES: FeeSchedule = {
  ethereum: { usdc: '0.50', eth: '0.0002' },
  base: { usdc: '0.01', eth: '0.000005' },
  solana: { usdc: '0.001', sol: '0.000005' },
  iban: '0.20',
  aba: '0.25',
};

/** A resolved fee schedule in minor units: fee of sending `asset` over `rail`. */
export type FeeTable = Readonly<Record<Rail, Partial<Record<Asset, bigint>>>>;

function feeMinor(text: string, asset: Asset, where: string): bigint {
  const minor = toMinorUnits(text, DECIMALS[asset]);
  if (typeof minor === 'string') throw new RangeError(`wallet.fees.${where}: "${text}" ${minor}`);
  return minor;
}

/**
 * Resolves fee overrides over the defaults into minor units.
 * @throws RangeError when a fee is not a non-negative decimal with at most the asset's places
 */
export function resolveFees(overrides: FeeOverrides = {}): FeeTable {
  const schedule: FeeSchedule = {
    ethereum: { ...DEFAULT_FEES.ethereum, ...overrides.ethereum },
    base: { ...DEFAULT_FEES.base, ...overrides.base },
    solana: { ...DEFAULT_FEES.solana, ...overrides.solana },
    iban: overrides.iban ?? DEFAULT_FEES.iban,
    aba: overrides.aba ?? DEFAULT_FEES.aba,
  };
  const table: Record<Rail, Partial<Record<Asset, bigint>>> = { ethereum: {}, base: {}, solana: {}, iban: {}, aba: {} };
  for (const network of NETWORKS) {
    for (const asset of NETWORK_ASSETS[network]) {
      const text = (schedule[network] as Record<string, string>)[asset]!;
      table[network][asset] = feeMinor(text, asset, `${network}.${asset}`);
    }
  }
  table.iban = { usd: feeMinor(schedule.iban, 'usd', 'iban'), eur: feeMinor(schedule.iban, 'eur', 'iban') };
  table.aba = { usd: feeMinor(schedule.aba, 'usd', 'aba') };
  return table;
}

/** Which networks an address form can be reached on. */
function networksFor(recipient: Recipient): readonly Network[] {
  if (recipient.kind === 'evm') return ['base', 'ethereum'];
  if (recipient.kind === 'solana') return ['solana'];
  return [];
}

/** Which assets a recipient form accepts (DECISIONS.md); undefined: any asset (book transfer). */
function assetsFor(recipient: Recipient): readonly Asset[] | undefined {
  switch (recipient.kind) {
    case 'evm':
      return ['usdc', 'eth'];
    case 'solana':
      return ['usdc', 'sol'];
    case 'iban':
      return ['usd', 'eur'];
    case 'aba':
      return ['usd'];
    default:
      return undefined;
  }
}

/** How a validated send travels. */
export type SendPlan = { rail: 'book'; fee: 0n } | { rail: Network; fee: bigint } | { rail: 'iban' | 'aba'; fee: bigint };

/**
 * Decides how a send travels and what it costs, checking that the asset fits the recipient form
 * and the network fits both; with no `network`, the lowest-fee network that carries the asset and
 * fits the address (ties: base, solana, ethereum).
 * @throws ApiError 400 invalid_recipient (param `to`), 400 unsupported_network (param `network`)
 */
export function planSend(recipient: Recipient, asset: Asset, network: Network | undefined, fees: FeeTable): SendPlan {
  const accepted = assetsFor(recipient);
  if (accepted && !accepted.includes(asset)) {
    throw new ApiError('invalid_recipient', `to: a ${describe(recipient)} cannot receive ${asset}`, 'to');
  }
  if (network !== undefined) {
    if (isFiat(asset)) throw new ApiError('unsupported_network', `network: ${asset} is fiat and travels on no network`, 'network');
    if (!NETWORK_ASSETS[network].includes(asset)) throw new ApiError('unsupported_network', `network: ${network} does not carry ${asset}`, 'network');
  }
  if (recipient.kind === 'handle' || recipient.kind === 'email') return { rail: 'book', fee: 0n };
  if (recipient.kind === 'iban' || recipient.kind === 'aba') return { rail: recipient.kind, fee: fees[recipient.kind][asset]! };
  const fitting = networksFor(recipient).filter((candidate) => NETWORK_ASSETS[candidate].includes(asset));
  if (network !== undefined) {
    if (!fitting.includes(network)) throw new ApiError('unsupported_network', `network: a ${describe(recipient)} is not on ${network}`, 'network');
    return { rail: network, fee: fees[network][asset]! };
  }
  const order: readonly Network[] = ['base', 'solana', 'ethereum'];
  const best = [...fitting].sort((a, b) => {
    const byFee = fees[a][asset]! - fees[b][asset]!;
    return byFee !== 0n ? (byFee < 0n ? -1 : 1) : order.indexOf(a) - order.indexOf(b);
  })[0]!;
  return { rail: best, fee: fees[best][asset]! };
}

function describe(recipient: Recipient): string {
  switch (recipient.kind) {
    case 'evm':
      return 'EVM address';
    case 'solana':
      return 'Solana address';
    case 'iban':
      return 'IBAN bank account';
    case 'aba':
      return 'ABA (US) bank account';
    default:
      return 'handle';
  }
}
