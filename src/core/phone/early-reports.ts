import type { StoreTransaction } from '../ports/store.js';

/** Reports that arrived for a carrier id this service did not know yet. */
export const EARLY_REPORTS = 'phone_early_reports';
const PARTITION = 'early';

/** How long an early report waits for its message or call to be recorded (service time). */
export const EARLY_REPORT_TTL_MS = 60 * 60 * 1000;
const SWEEP_PER_WRITE = 4;

/** One status report of a real carrier, as its callback gave it. */
export interface CarrierReport {
  status: string;
  error_code: string | null;
  duration_seconds?: number;
  failure_reason?: string;
}

interface EarlyReports {
  carrier_id: string;
  first_ms: number;
  reports: CarrierReport[];
}

/**
 * Keeps a report whose carrier id has no record yet. A real carrier may call back (`sent`,
 * `ringing`) before the answer to the send has been recorded: the report waits here, in the store,
 * until {@link takeEarlyReports} applies it, or an hour of service time passes (a report for a
 * message that is not ours is dropped then).
 */
export async function holdEarlyReport(tx: StoreTransaction, carrierId: string, report: CarrierReport, nowMs: number): Promise<void> {
  const held = await tx.get<EarlyReports>(EARLY_REPORTS, carrierId);
  if (held) await tx.update<EarlyReports>(EARLY_REPORTS, carrierId, { ...held, reports: [...held.reports, report] });
  else await tx.insert<EarlyReports>(EARLY_REPORTS, carrierId, { carrier_id: carrierId, first_ms: nowMs, reports: [report] }, PARTITION);
  const oldest = (await tx.page<EarlyReports>(EARLY_REPORTS, { partition: PARTITION, order: 'oldest', limit: SWEEP_PER_WRITE })).items;
  for (const { record } of oldest) {
    if (nowMs < record.first_ms + EARLY_REPORT_TTL_MS) break;
    await tx.remove(EARLY_REPORTS, record.carrier_id);
  }
}

/** The reports held for `carrierId`, in arrival order, removed from the store. */
export async function takeEarlyReports(tx: StoreTransaction, carrierId: string): Promise<CarrierReport[]> {
  const held = await tx.get<EarlyReports>(EARLY_REPORTS, carrierId);
  if (!held) return [];
  await tx.remove(EARLY_REPORTS, carrierId);
  return held.reports;
}
