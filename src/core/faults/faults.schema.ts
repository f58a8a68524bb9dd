import { z } from 'zod';
import { dictionary } from '../shared/schemas.js';
import { timestamp } from '../shared/schemas.js';
import { FAULT_EFFECTS, FAULT_TARGETS, TARGET_RULES } from './fault-targets.js';

export { FAULT_EFFECTS, FAULT_TARGETS, type FaultEffect, type FaultTarget } from './fault-targets.js';

/** Longest `delay_seconds`: a year of service time. */
export const MAX_DELAY_SECONDS = 365 * 86_400;

const gotOf = (input: unknown) => (input === undefined ? 'nothing' : JSON.stringify(input));

/** A value `match` compares a field of the operation with. */
export const MatchValue = z.union([z.string().max(500), z.number().finite(), z.boolean()]);
export type MatchValue = z.infer<typeof MatchValue>;

/**
 * Body of `POST /_sim/faults`. `delay_seconds` belongs to `delay` only, `error_code` to `fail`
 * only and takes the form its target uses (an SMTP reply code, a Twilio error code, ...).
 */
export const AddFaultBody = z
  .strictObject({
    target: z.enum(FAULT_TARGETS, { error: (issue) => `expected one of ${FAULT_TARGETS.join(', ')}, got ${gotOf(issue.input)}` }),
    effect: z.enum(FAULT_EFFECTS, { error: (issue) => `expected one of ${FAULT_EFFECTS.join(', ')}, got ${gotOf(issue.input)}` }),
    probability: z
      .number({ error: (issue) => `expected a number from 0 to 1, got ${gotOf(issue.input)}` })
      .min(0, 'expected a number from 0 to 1')
      .max(1, 'expected a number from 0 to 1')
      .optional()
      .describe('chance that a matching operation is hit, drawn from the seeded random port (default 1)'),
    count: z
      .number({ error: (issue) => `expected an integer of at least 1, got ${gotOf(issue.input)}` })
      .int('expected an integer of at least 1')
      .min(1, 'expected an integer of at least 1')
      .max(Number.MAX_SAFE_INTEGER)
      .optional()
      .describe('the fault ends after this many hits (default: never)'),
    match: dictionary(z.string().min(1).max(100), MatchValue, 20).optional().describe('fields the operation must have, e.g. {"to": "+15005550100"}; a list field matches when it contains the value'),
    delay_seconds: z
      .number({ error: (issue) => `expected a number of seconds above 0, got ${gotOf(issue.input)}` })
      .finite()
      .gt(0, 'expected a number of seconds above 0')
      .max(MAX_DELAY_SECONDS, `expected at most ${MAX_DELAY_SECONDS} seconds`)
      .optional()
      .describe('service time a delay adds (effect delay only)'),
    error_code: z
      .string({ error: (issue) => `expected a string, got ${gotOf(issue.input)}` })
      .optional()
      .describe('how a fail fails, in the form of its target'),
  })
  .meta({ allOf: ruleSchemas() })
  .superRefine((body, context) => {
    const rules = TARGET_RULES[body.target];
    if (!rules.effects.includes(body.effect)) {
      context.addIssue({ code: 'custom', path: ['effect'], message: `${body.target} takes ${rules.effects.join(', ')}, got "${body.effect}"` });
      return;
    }
    if (body.effect === 'delay' && body.delay_seconds === undefined) {
      context.addIssue({ code: 'custom', path: ['delay_seconds'], message: 'expected a number of seconds above 0 for effect delay, got nothing' });
    }
    if (body.effect !== 'delay' && body.delay_seconds !== undefined) {
      context.addIssue({ code: 'custom', path: ['delay_seconds'], message: `delay_seconds belongs to effect delay, got effect "${body.effect}"` });
    }
    if (body.error_code !== undefined) {
      if (body.effect !== 'fail') context.addIssue({ code: 'custom', path: ['error_code'], message: `error_code belongs to effect fail, got effect "${body.effect}"` });
      else if (!rules.errorCode) context.addIssue({ code: 'custom', path: ['error_code'], message: `${body.target} takes no error_code` });
      else if (!rules.errorCode.pattern.test(body.error_code)) {
        context.addIssue({ code: 'custom', path: ['error_code'], message: `expected ${rules.errorCode.expected}, got ${JSON.stringify(body.error_code)}` });
      }
    }
  });
export type AddFaultBody = z.input<typeof AddFaultBody>;

/** A fault as the control plane shows it. */
export const Fault = z.object({
  fault_id: z.string(),
  target: z.enum(FAULT_TARGETS),
  effect: z.enum(FAULT_EFFECTS),
  probability: z.number(),
  count: z.number().int().nullable().describe('hits after which the fault ends; null: never'),
  match: z.record(z.string(), MatchValue),
  delay_seconds: z.number().nullable(),
  error_code: z.string().nullable().describe('the code a fail carries (the target default when none was given); null for targets that take none'),
  hits: z.number().int().describe('operations hit so far'),
  active: z.boolean().describe('false once count is used up (or its group was hit): it hits nothing more'),
  group: z.string().nullable().describe('faults created together (the wallet shorthand): a hit on one uses up every fault of the group'),
  created_at: timestamp,
});
export type Fault = z.infer<typeof Fault>;

/** Answer of `GET /_sim/faults`: every fault, oldest first, used-up ones too (active false). */
export const FaultList = z.object({ faults: z.array(Fault) });
export type FaultList = z.infer<typeof FaultList>;

/** Path of `DELETE /_sim/faults/{fault_id}`. */
export const FaultParams = z.strictObject({ fault_id: z.string().min(1).max(100) });

/**
 * The rules the body's refinement checks, as JSON Schema for the OpenAPI document: per target its
 * effects and `error_code` form; `delay_seconds` with and only with `delay`; `error_code` only with
 * `fail`.
 */
function ruleSchemas(): object[] {
  const perTarget = FAULT_TARGETS.map((target) => {
    const rules = TARGET_RULES[target];
    return {
      if: { properties: { target: { const: target } }, required: ['target'] },
      then: {
        properties: {
          effect: { enum: [...rules.effects] },
          ...(rules.errorCode ? { error_code: { type: 'string', pattern: rules.errorCode.pattern.source } } : {}),
        },
        ...(rules.errorCode ? {} : { not: { required: ['error_code'] } }),
      },
    };
  });
  return [
    ...perTarget,
    { if: { properties: { effect: { const: 'delay' } }, required: ['effect'] }, then: { required: ['delay_seconds'] }, else: { not: { required: ['delay_seconds'] } } },
    { if: { properties: { effect: { const: 'fail' } }, required: ['effect'] }, else: { not: { required: ['error_code'] } } },
  ];
}
