/**
 * Thrown when the request's signal (its deadline, its caller going away, the runtime closing) cut
 * the hand-off of an SMS or call to a real carrier before the carrier answered. Nothing of the
 * request is written after it; at a deadline the dispatcher answers 504 `upstream_timeout`.
 */
export class HandOffCut extends Error {
  constructor() {
    super("the carrier hand-off was cut by its call's signal");
  }
}

/** What a real carrier answered a hand-off: the id it knows the message or call by, or why not. */
export type HandOffOutcome = { carrier_id: string } | { failure: unknown };

/**
 * Runs a hand-off to a real carrier (`attempt`, which stops on `signal`) and answers its outcome: a
 * carrier that refused or could not be reached is an answer (the message or call is then kept as
 * `failed`), a hand-off the signal cut is not.
 * @throws HandOffCut when `signal` ended the attempt before the carrier answered
 */
export async function handOff(attempt: () => Promise<{ carrier_id: string }>, signal: AbortSignal | undefined): Promise<HandOffOutcome> {
  try {
    return await attempt();
  } catch (failure) {
    if (signal?.aborted) throw new HandOffCut();
    return { failure };
  }
}
