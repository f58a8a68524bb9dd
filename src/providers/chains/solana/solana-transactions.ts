import {
  address,
  appendTransactionMessageInstructions,
  createKeyPairSignerFromPrivateKeyBytes,
  createTransactionMessage,
  getBase64EncodedWireTransaction,
  getSignatureFromTransaction,
  lamports,
  pipe,
  setTransactionMessageFeePayerSigner,
  setTransactionMessageLifetimeUsingBlockhash,
  signTransactionMessageWithSigners,
  type Address,
  type Blockhash,
  type Instruction,
  type KeyPairSigner,
} from '@solana/kit';
import { getTransferSolInstruction } from '@solana-program/system';
import { findAssociatedTokenPda, getCreateAssociatedTokenIdempotentInstruction, getTransferCheckedInstruction, TOKEN_PROGRAM_ADDRESS } from '@solana-program/token';

// Transactions of solana built with @solana/kit and the SPL programs' instruction builders: the
// same bytes for the local chain and for a cluster reached over RPC.

/** A signer from a 32-byte ed25519 seed. */
export function signerOf(seed: Uint8Array): Promise<KeyPairSigner> {
  return createKeyPairSignerFromPrivateKeyBytes(seed);
}

/** The associated usdc token account of an owner. */
export async function usdcAccountOf(owner: string, mint: string): Promise<Address> {
  const [ata] = await findAssociatedTokenPda({ owner: address(owner), mint: address(mint), tokenProgram: TOKEN_PROGRAM_ADDRESS });
  return ata;
}

/**
 * Instructions of a transfer from `from` to `to`: SOL, or usdc into `to`'s associated account
 * (created when missing, its rent paid by `payer`: the sender, or the hot wallet for a sweep).
 */
export async function transferInstructions(from: KeyPairSigner, asset: 'sol' | 'usdc', amount: bigint, to: string, mint: string, payer: KeyPairSigner = from): Promise<Instruction[]> {
  if (asset === 'sol') return [getTransferSolInstruction({ source: from, destination: address(to), amount: lamports(amount) })];
  const destination = await usdcAccountOf(to, mint);
  return [
    getCreateAssociatedTokenIdempotentInstruction({ payer, ata: destination, owner: address(to), mint: address(mint) }),
    getTransferCheckedInstruction({ source: await usdcAccountOf(from.address, mint), mint: address(mint), destination, authority: from, amount, decimals: 6 }),
  ];
}

/** Signs instructions paid by `payer` with a blockhash; answers the base64 wire bytes and the signature. */
export async function signWire(payer: KeyPairSigner, instructions: Instruction[], lifetime: { blockhash: string; lastValidBlockHeight: bigint }): Promise<{ wire: string; signature: string }> {
  const message = pipe(
    createTransactionMessage({ version: 0 }),
    (m) => setTransactionMessageFeePayerSigner(payer, m),
    (m) => setTransactionMessageLifetimeUsingBlockhash({ blockhash: lifetime.blockhash as Blockhash, lastValidBlockHeight: lifetime.lastValidBlockHeight }, m),
    (m) => appendTransactionMessageInstructions(instructions, m),
  );
  const transaction = await signTransactionMessageWithSigners(message);
  return { wire: getBase64EncodedWireTransaction(transaction), signature: getSignatureFromTransaction(transaction) };
}
