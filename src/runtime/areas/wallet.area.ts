import { IdentityService } from '../../core/identity/identity.service.js';
import { PaymentRails } from '../../core/ports/payment-rails.js';
import { Scheduler } from '../../core/services/scheduler.js';
import { CardVault } from '../../core/ports/card-vault.js';
import { AesGcmCardVault } from '../../providers/vault/aes-gcm-card-vault.js';
import { CardService } from '../../core/wallet/card.service.js';
import { InvoiceService } from '../../core/wallet/invoice.service.js';
import { Ledger } from '../../core/wallet/ledger.js';
import { WalletConfig, walletConfig } from '../../core/wallet/wallet-config.js';
import { walletHandlers } from '../../core/wallet/wallet.handlers.js';
import { type OpeningBalances, WalletCreationFields } from '../../core/wallet/wallet.schema.js';
import { SETTLE_JOB, WalletService } from '../../core/wallet/wallet.service.js';
import { RailFaults } from '../../core/ports/rail-faults.js';
import { CustodyKeys } from '../../core/ports/custody-keys.js';
import { CustodyService } from '../../core/wallet/custody.service.js';
import { DEPOSIT_JOB, DepositService } from '../../core/wallet/deposit.service.js';
import { custodyKeys } from '../custody-keys.js';
import { SimPaymentRails } from '../../sim/sim-payment-rails.js';
import { hostedPayments } from '../../core/wallet/hosted-payments.js';
import { payPages } from '../edges/pay-pages/pay-pages.js';
import { walletRoutes, walletSimRoutes } from '../../core/wallet/wallet.routes.js';
import { defineArea } from './area-module.js';
import { Clock } from '../../core/ports/clock.js';
import { Store } from '../../core/ports/store.js';
import { ChainNetworks } from '../../core/ports/chain-networks.js';
import { anyRealChain } from '../../core/wallet/chain-config.js';
import { RealChains } from '../../providers/chains/real-chains.js';

/** The real chains of each runtime's container (none while every network is simulated). */
const realChains = new WeakMap<object, RealChains>();

/** Wallet: balances, sends over the fake chain and simulated bank, history, invoices, cards. */
export const walletArea = defineArea({
  name: 'wallet',
  routes: walletRoutes,
  simRoutes: walletSimRoutes,
  creationFields: WalletCreationFields,
  bind({ container, options, mode, seed }) {
    const config = walletConfig(options.wallet);
    container.bind(WalletConfig).toConstantValue(config);
    // Card secrets: the configured key; the seed's in simulation (public, like its issuer key);
    // a live service given none gets a key of its own process (details not shown before a
    // restart cannot be shown after it).
    container
      .bind(CardVault)
      .toConstantValue(
        options.providers?.cardVault ?? (options.cardVaultKey !== undefined ? AesGcmCardVault.fromText(options.cardVaultKey) : mode === 'simulated' ? AesGcmCardVault.fromSeed(seed) : AesGcmCardVault.ephemeral()),
      );
    const realChain = anyRealChain(config.chains);
    // Real chains sign with the mnemonic's keys: one must be given (a seed-derived one is public).
    if (realChain && (options.providers?.custodyKeys !== undefined || (options.wallet?.custodyMnemonic === undefined && options.wallet?.custodyMnemonicFile === undefined))) {
      throw new Error('local and RPC chains need --custody-mnemonic-file (a seed-derived mnemonic is public knowledge)');
    }
    const hdKeys = options.providers?.custodyKeys === undefined ? custodyKeys(options.wallet, seed) : undefined;
    container.bind(CustodyKeys).toConstantValue(options.providers?.custodyKeys ?? hdKeys!);
    container.bind(CustodyService).toSelf();
    let chains: RealChains | undefined;
    if (realChain && hdKeys) {
      chains = new RealChains(config.chains, hdKeys, container.get(Clock).now());
      realChains.set(container, chains);
      container.bind(ChainNetworks).toConstantValue(chains);
    }
    const rails = options.providers?.paymentRails;
    if (rails) container.bind(PaymentRails).toConstantValue(rails);
    else {
      container.bind(SimPaymentRails).toSelf();
      if (chains) {
        const real = chains;
        container.bind(PaymentRails).toDynamicValue((context) => real.paymentRails(context.get(Store), context.get(Clock), context.get(SimPaymentRails)));
      } else container.bind(PaymentRails).toService(SimPaymentRails);
      container.bind(RailFaults).toService(SimPaymentRails);
    }
    container.bind(Ledger).toSelf();
    container.bind(WalletService).toSelf();
    container.bind(InvoiceService).toSelf();
    container.bind(CardService).toSelf();
    container.bind(DepositService).toSelf();
  },
  start({ container, options }) {
    const wallet = container.get(WalletService);
    const custody = container.get(CustodyService);
    container.get(IdentityService).onAgentCreated(async (tx, agent, request) => {
      await wallet.openWallet(tx, agent, wallet.parseOpeningBalances(request.balances as OpeningBalances | undefined));
      await custody.assign(tx, agent.agent_id);
    });
    const deposits = container.get(DepositService);
    container.get(Scheduler).handle(SETTLE_JOB, (data) => wallet.settle(data));
    container.get(Scheduler).handle(DEPOSIT_JOB, (data) => deposits.confirmSimulated(data));
    const chains = realChains.get(container);
    if (chains) {
      const report = options.onNotice ?? ((line: string) => process.stderr.write(`${line}\n`));
      const services = { store: container.get(Store), clock: container.get(Clock), custody, deposits, report };
      void chains.start(services).catch((error: unknown) => report(`chains did not start: ${(error as Error).message}`));
    }
    const faults = container.isBound(RailFaults) ? container.get(RailFaults) : undefined;
    return walletHandlers(wallet, container.get(InvoiceService), container.get(CardService), custody, deposits, faults);
  },
  async stop({ container }) {
    await realChains.get(container)?.stop();
  },
  edges({ container }) {
    const pages = payPages(hostedPayments(container.get(InvoiceService)));
    return [{ kind: 'http', prefix: '/pay', fetch: async (request) => pages.fetch(request) }];
  },
});
