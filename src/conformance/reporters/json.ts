import type { RunReport } from '../runner.js';

/** `--reporter json`: exactly `{summary: {passed, failed, skipped}, checks: [{area, name, status, message?, seed?}]}`. */
export function jsonReport(report: RunReport): string {
  const checks = report.results.map((result) => ({
    area: result.area,
    name: result.name,
    status: result.status,
    ...(result.message === undefined ? {} : { message: result.message }),
    ...(result.seed === undefined ? {} : { seed: result.seed }),
  }));
  return `${JSON.stringify({ summary: report.summary, checks }, null, 2)}\n`;
}
