import { inject, injectable } from '../shared/di.js';
import { Clock } from '../ports/clock.js';
import { EventLog } from '../ports/event-log.js';
import { Random } from '../ports/random.js';
import { Store } from '../ports/store.js';
import { notFound } from '../shared/api-error.js';
import { decodeCursor, encodeCursor } from '../shared/cursor.js';
import { sha256Hex } from '../shared/json.js';
import { toIso } from '../shared/time.js';
import { IdentityService } from '../identity/identity.service.js';
import { PolicyService } from '../policy/policy.service.js';
import { formatAmount, parseAmount, storedMinor } from './amount.js';
import { cardSecretsFromBytes, expiryDate } from './card-number.js';
import { CardVault, type CardSecret } from '../ports/card-vault.js';
import { WalletConfig } from './wallet-config.js';
import { Ledger, WALLETS } from './ledger.js';
import type { Card, CardCharge, CardList, CardsQuery, ChargeCardBody, CreateCardBody } from './wallet.schema.js';

const CARDS = 'cards';
/** A new card's sealed secrets, by card id, until the dashboard has shown them once. */
const VAULT = 'card_vault';

/** A card's secrets as stored: sealed by the {@link CardVault}, never in clear. */
interface VaultRecord {
  agent_id: string;
  sealed: string;
}

/** A card as stored: never the number, only its SHA-256 and last four digits. */
interface StoredCard extends Card {
  agent_id: string;
  number_sha256: string;
  /** All-time approved spend in usd. */
  spent: string;
  created_at: string;
}

/**
 * Virtual debit cards in usd with an all-time spending limit. The number is generated
 * (Luhn-valid, from the seeded random source) and never returned; charges come from the
 * simulated card network through the control plane.
 */
@injectable()
export class CardService {
  constructor(
    @inject(Store) private readonly store: Store,
    @inject(Clock) private readonly clock: Clock,
    @inject(Random) private readonly random: Random,
    @inject(EventLog) private readonly events: EventLog,
    @inject(IdentityService) private readonly identity: IdentityService,
    @inject(Ledger) private readonly ledger: Ledger,
    @inject(PolicyService) private readonly policies: PolicyService,
    @inject(CardVault) private readonly vault: CardVault,
    @inject(WalletConfig) private readonly config: WalletConfig,
  ) {}

  /** Issues a card. @throws ApiError 400 invalid_amount (limit) */
  async create(agentId: string, body: CreateCardBody): Promise<Card> {
    const limit = parseAmount(body.limit, 'usd', 'limit');
    const agent = await this.identity.agent(agentId);
    const { number, cvv } = cardSecretsFromBytes((n) => this.random.bytes(n));
    const nowMs = this.clock.now();
    const card: StoredCard = {
      card_id: this.random.id('card'),
      last4: number.slice(-4),
      expires_at: expiryDate(nowMs),
      limit: formatAmount(limit, 'usd'),
      currency: 'usd',
      label: body.label ?? '',
      status: 'active',
      agent_id: agentId,
      number_sha256: sha256Hex(number),
      spent: formatAmount(0n, 'usd'),
      created_at: toIso(nowMs),
    };
    const secret: CardSecret = { number, cvv, expires_at: card.expires_at, billing_address: { name: agent.display_name, ...this.config.cardBillingAddress } };
    await this.store.transaction(async (tx) => {
      await tx.insert(CARDS, card.card_id, card, agentId);
      await tx.insert<VaultRecord>(VAULT, card.card_id, { agent_id: agentId, sealed: this.vault.seal(secret, card.card_id) }, agentId);
      await this.events.append(tx, { type: 'card.created', agent_id: agentId, data: { card_id: card.card_id, last4: card.last4, limit: card.limit } });
    });
    return toWire(card);
  }

  /**
   * A new card's full number, CVV, expiry and billing address, the first time they are asked for,
   * then never again (null): the sealed secrets are removed in the same transaction that reads
   * them, so two requests at once cannot both see them. For the operator's dashboard; no API
   * route answers them.
   * @throws Error when the stored secrets do not open with this runtime's vault key
   */
  async revealOnce(cardId: string): Promise<CardSecret | null> {
    const sealed = await this.store.transaction(async (tx) => {
      const record = await tx.get<VaultRecord>(VAULT, cardId);
      if (!record) return null;
      await tx.remove(VAULT, cardId);
      await this.events.append(tx, { type: 'card.details_shown', agent_id: record.agent_id, data: { card_id: cardId } });
      return record.sealed;
    });
    return sealed === null ? null : this.vault.open(sealed, cardId);
  }

  /** The calling agent's cards, newest first. @throws ApiError 400 invalid_request (cursor) */
  async list(agentId: string, query: CardsQuery): Promise<CardList> {
    const before = query.cursor === undefined ? undefined : decodeCursor('wallet.cards', query.cursor);
    const page = await this.store.view.page<StoredCard>(CARDS, { partition: agentId, limit: query.limit, ...(before === undefined ? {} : { before }) });
    const last = page.items[page.items.length - 1];
    return { cards: page.items.map((item) => toWire(item.record)), next_cursor: page.hasMore && last ? encodeCursor('wallet.cards', last.position) : null };
  }

  /** One card of the calling agent. @throws ApiError 404 not_found */
  async get(agentId: string, cardId: string): Promise<Card> {
    const card = await this.store.view.get<StoredCard>(CARDS, cardId);
    if (!card || card.agent_id !== agentId) throw notFound('card');
    return toWire(card);
  }

  /**
   * A merchant charges the card: declined (`policy`) when it is above the per-transaction usd
   * limit of the owner's policy (which appends `policy.violated`), declined (`spending_limit`) when the card's total spend would
   * exceed its limit, declined (`insufficient_funds`) when the usd balance is short, otherwise an
   * `out` record in usd to the merchant.
   * @throws ApiError 400 invalid_amount (amount), 404 not_found
   */
  async charge(cardId: string, body: ChargeCardBody): Promise<CardCharge> {
    const amount = parseAmount(body.amount, 'usd', 'amount');
    const known = await this.store.view.get<StoredCard>(CARDS, cardId);
    if (!known) throw notFound('card');
    const transactionId = this.random.id('transaction');
    return this.store.transaction(async (tx): Promise<CardCharge> => {
      // A card's owner never changes: its wallet is locked before the card's spend and the balance are read.
      await tx.lock(WALLETS, [known.agent_id]);
      const card = await tx.get<StoredCard>(CARDS, cardId);
      if (!card) throw notFound('card');
      const spent = storedMinor(card.spent);
      const balance = storedMinor((await this.ledger.wallet(tx, card.agent_id)).balances.usd);
      // The owner's policy is asked first: a guardrail holds whatever the card and balance allow.
      const decline = (await this.policies.declinesCharge(tx, card.agent_id, amount, 'sim.chargeCard'))
        ? 'policy'
        : spent + amount > storedMinor(card.limit)
          ? 'spending_limit'
          : balance < amount
            ? 'insufficient_funds'
            : undefined;
      const data = { card_id: cardId, amount: formatAmount(amount, 'usd'), merchant: body.merchant };
      if (decline) {
        await this.events.append(tx, { type: 'card.charge.declined', agent_id: card.agent_id, data: { ...data, decline_reason: decline } });
        return { approved: false, decline_reason: decline };
      }
      const agent = await this.identity.agent(card.agent_id, tx);
      await this.ledger.adjust(tx, card.agent_id, 'usd', -amount);
      await this.ledger.addTotals(tx, 'usd', { sent_out: amount });
      await tx.update(CARDS, cardId, { ...card, spent: formatAmount(spent + amount, 'usd') });
      await this.ledger.record(tx, {
        id: transactionId,
        direction: 'out',
        amount: formatAmount(amount, 'usd'),
        asset: 'usd',
        to: body.merchant,
        from: agent.handle,
        memo: `card ending ${card.last4}`,
        status: 'confirmed',
        network: null,
        fee: { amount: formatAmount(0n, 'usd'), asset: 'usd' },
        created_at: toIso(this.clock.now()),
        agent_id: card.agent_id,
        kind: 'card',
        rail: null,
        reference: null,
      });
      await this.events.append(tx, { type: 'card.charge.approved', agent_id: card.agent_id, data: { ...data, transaction_id: transactionId } });
      await this.identity.recordActivity(tx, card.agent_id, 'payments_confirmed');
      return { approved: true, transaction_id: transactionId };
    });
  }
}

function toWire(card: StoredCard): Card {
  return { card_id: card.card_id, last4: card.last4, expires_at: card.expires_at, limit: card.limit, currency: card.currency, label: card.label, status: card.status };
}
