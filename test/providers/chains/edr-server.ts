/** A Hardhat EDR JSON-RPC node for tests, with a usdc ERC-20 deployed, as an outside chain would be. */
import { createHardhatRuntimeEnvironment } from 'hardhat/hre';
import { createPublicClient, createWalletClient, defineChain, http, keccak256, toHex, type Hex } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { USDC_ABI, USDC_BYTECODE } from '../../../src/providers/chains/evm/usdc-artifact.js';

/** A key of the test's own funder: not a custody key. */
const FUNDER_KEY = keccak256(toHex('agent-services test funder'));

export interface EdrServer {
  url: string;
  usdc: Hex;
  /** Sends from the funder (automined: one block per transaction). */
  sendEth(to: Hex, wei: bigint): Promise<Hex>;
  sendUsdc(to: Hex, units: bigint): Promise<Hex>;
  /** Raw JSON-RPC (evm_snapshot, evm_revert, evm_mine, hardhat_setBalance, ...). */
  rpc(method: string, params?: unknown[]): Promise<unknown>;
  /** Sets `address`'s ETH to 1,000 without a transaction (an operator's hot wallet: gas money). */
  giveGas(address: Hex): Promise<void>;
  usdcBalance(address: Hex): Promise<bigint>;
  ethBalance(address: Hex): Promise<bigint>;
  close(): Promise<void>;
}

/** Starts an automining EDR node on a free port with usdc deployed and minted to the funder. */
export async function startEdrServer(): Promise<EdrServer> {
  const hre = await createHardhatRuntimeEnvironment({});
  const server = await hre.network.createServer({ network: 'default', override: { type: 'edr-simulated', chainId: 31_999, accounts: [{ privateKey: FUNDER_KEY, balance: 10n ** 27n }] } } as never, '127.0.0.1', 0);
  const { port } = await server.listen();
  const url = `http://127.0.0.1:${port}`;
  const chain = defineChain({ id: 31_999, name: 'test', nativeCurrency: { name: 'Ether', symbol: 'ETH', decimals: 18 }, rpcUrls: { default: { http: [url] } } });
  const funder = privateKeyToAccount(FUNDER_KEY);
  const wallet = createWalletClient({ account: funder, chain, transport: http(url) });
  const reader = createPublicClient({ chain, transport: http(url) });
  const deployed = await wallet.deployContract({ abi: USDC_ABI, bytecode: USDC_BYTECODE });
  const usdc = (await reader.waitForTransactionReceipt({ hash: deployed, pollingInterval: 20 })).contractAddress!;
  await reader.waitForTransactionReceipt({ hash: await wallet.writeContract({ address: usdc, abi: USDC_ABI, functionName: 'mint', args: [funder.address, 10n ** 15n] }), pollingInterval: 20 });
  const rpc = async (method: string, params: unknown[] = []) => {
    const response = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }) });
    const body = (await response.json()) as { result?: unknown; error?: { message: string } };
    if (body.error) throw new Error(body.error.message);
    return body.result;
  };
  return {
    url,
    usdc,
    sendEth: (to, wei) => wallet.sendTransaction({ to, value: wei }),
    sendUsdc: (to, units) => wallet.writeContract({ address: usdc, abi: USDC_ABI, functionName: 'transfer', args: [to, units] }),
    rpc,
    giveGas: async (address) => {
      await rpc('hardhat_setBalance', [address, '0x3635c9adc5dea00000']);
    },
    usdcBalance: (address) => reader.readContract({ address: usdc, abi: USDC_ABI, functionName: 'balanceOf', args: [address] }),
    ethBalance: (address) => reader.getBalance({ address }),
    close: () => server.close(),
  };
}
