import { readFileSync } from 'node:fs';
import type { WalletOptions } from '../core/wallet/wallet-config.js';
import { HdCustodyKeys, mnemonicFromSeed } from '../providers/custody/hd-custody-keys.js';

/**
 * The custody keys of a runtime: from `wallet.custodyMnemonic`, else from the file
 * `wallet.custodyMnemonicFile`, else (simulated chains only) from the seed.
 * @throws Error naming the file, never its words, when it cannot be read or holds no valid mnemonic
 */
export function custodyKeys(options: WalletOptions | undefined, seed: number | string): HdCustodyKeys {
  if (options?.custodyMnemonic !== undefined) return new HdCustodyKeys(options.custodyMnemonic);
  const file = options?.custodyMnemonicFile;
  if (file === undefined) return new HdCustodyKeys(mnemonicFromSeed(seed));
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (error) {
    throw new Error(`--custody-mnemonic-file ${file}: ${(error as NodeJS.ErrnoException).code ?? 'cannot be read'}`);
  }
  try {
    return new HdCustodyKeys(text);
  } catch (error) {
    throw new Error(`--custody-mnemonic-file ${file}: ${(error as Error).message}`);
  }
}
