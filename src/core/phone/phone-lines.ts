import { TEST_NUMBERS } from './test-numbers.js';
import { PhoneConfig } from './phone-config.js';
import { inject, injectable } from '../shared/di.js';
import { Random } from '../ports/random.js';
import { Store, type StoreTransaction, type StoreView } from '../ports/store.js';
import { ApiError, notFound } from '../shared/api-error.js';
import { digitSource, drawPhoneNumber, parseE164 } from './numbers.js';
import { LINES, NUMBERS, type PhoneLine } from './phone.records.js';
import type { PhoneNumberInfo } from './phone.schema.js';

/** The country of numbers when creation names none. */
export const DEFAULT_PHONE_COUNTRY = 'US';

/**
 * The agents' numbers: one drawn from the seeded random port at creation, unique in the world,
 * and the lookups that route messages to the agent a number belongs to.
 */
@injectable()
export class PhoneLines {
  constructor(
    @inject(Store) private readonly store: Store,
    @inject(Random) private readonly random: Random,
    @inject(PhoneConfig) private readonly config: PhoneConfig,
  ) {}

  /** Draws and records a number for a new agent inside its creation transaction. */
  async assign(tx: StoreTransaction, agentId: string, country: string = DEFAULT_PHONE_COUNTRY): Promise<PhoneLine> {
    const pool = this.config.numberPool;
    if (pool) return this.record(tx, agentId, await this.fromPool(tx, pool));
    let number: string;
    try {
      number = await drawPhoneNumber(
        country,
        digitSource((n) => this.random.bytes(n)),
        async (candidate) => (await tx.get(NUMBERS, candidate)) !== undefined,
      );
    } catch (error) {
      // Only a failed draw is the caller's country; a store failure (a lost race) goes on as it is.
      if (!(error instanceof RangeError)) throw error;
      throw new ApiError('invalid_request', `phone_country: no number could be drawn for ${country}`, 'phone_country');
    }
    return this.record(tx, agentId, { number, country });
  }

  /**
   * The first number of the configured pool no agent holds, with its country.
   * @throws ApiError 409 conflict when every number of the pool is taken
   */
  private async fromPool(tx: StoreTransaction, pool: readonly string[]): Promise<{ number: string; country: string }> {
    for (const number of pool) {
      if ((await tx.get(NUMBERS, number)) === undefined) return { number, country: parseE164(number)?.country ?? DEFAULT_PHONE_COUNTRY };
    }
    throw new ApiError('conflict', `every number of the configured pool (${pool.length}) is taken; add numbers to phone.number_pool`);
  }

  private async record(tx: StoreTransaction, agentId: string, { number, country }: { number: string; country: string }): Promise<PhoneLine> {
    const line: PhoneLine = { agent_id: agentId, phone_number: number, country };
    await tx.insert(NUMBERS, number, { agent_id: agentId });
    await tx.insert(LINES, agentId, line);
    return line;
  }

  /** The agent's line. @throws ApiError 404 not_found (an agent made before the phone area existed) */
  async line(view: StoreView, agentId: string): Promise<PhoneLine> {
    const line = await view.get<PhoneLine>(LINES, agentId);
    if (!line) throw notFound('phone number');
    return line;
  }

  /** `GET /v1/phone`. */
  async info(agentId: string): Promise<PhoneNumberInfo> {
    const line = await this.line(this.store.view, agentId);
    return { phone_number: line.phone_number, country: line.country, capabilities: { sms: true, voice: true, mms: false } };
  }

  /** The agent a number belongs to, if any. */
  async ownerOf(view: StoreView, number: string): Promise<string | undefined> {
    return (await view.get<{ agent_id: string }>(NUMBERS, number))?.agent_id;
  }

  /**
   * A recipient number in canonical E.164, not the caller's own, nor Twilio's invalid test number.
   * @throws ApiError 400 invalid_recipient (param `to`)
   */
  async recipient(view: StoreView, agentId: string, to: string): Promise<string> {
    const parsed = parseE164(to);
    if (!parsed) throw new ApiError('invalid_recipient', `to: expected an E.164 number such as +14155552671, got "${to.slice(0, 64)}"`, 'to');
    if (parsed.number === (await this.line(view, agentId)).phone_number) throw new ApiError('invalid_recipient', 'to: that is your own number', 'to');
    if (parsed.number === TEST_NUMBERS.invalid) throw new ApiError('invalid_recipient', `to: ${parsed.number} is not a valid phone number (Twilio test number)`, 'to');
    return parsed.number;
  }
}
