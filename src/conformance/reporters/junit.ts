import { AREAS } from '../types.js';
import type { RunReport } from '../runner.js';

/** Escapes text for an XML attribute or element. */
function xml(text: string): string {
  return text
    .replace(/[\x00-\x08\x0b\x0c\x0e-\x1f\ufffe\uffff]/g, '')
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/"/g, '&quot;');
}

const seconds = (ms: number) => (ms / 1000).toFixed(3);

/** `--reporter junit`: JUnit XML, one `<testsuite>` per area, failures and skips with their messages. */
export function junitReport(report: RunReport): string {
  const out = ['<?xml version="1.0" encoding="UTF-8"?>'];
  const total = report.results.reduce((sum, result) => sum + result.durationMs, 0);
  const { passed, failed, skipped } = report.summary;
  out.push(`<testsuites name="agent-services conformance" tests="${passed + failed + skipped}" failures="${failed}" skipped="${skipped}" errors="0" time="${seconds(total)}">`);
  for (const area of AREAS) {
    const results = report.results.filter((result) => result.area === area);
    if (results.length === 0) continue;
    const count = (status: string) => results.filter((result) => result.status === status).length;
    const time = results.reduce((sum, result) => sum + result.durationMs, 0);
    out.push(`  <testsuite name="${area}" tests="${results.length}" failures="${count('failed')}" skipped="${count('skipped')}" errors="0" time="${seconds(time)}">`);
    out.push(`    <properties><property name="seed" value="${report.seed}"/><property name="runs" value="${report.runs}"/></properties>`);
    for (const result of results) {
      const open = `    <testcase classname="conformance.${area}" name="${xml(result.name)}" time="${seconds(result.durationMs)}"`;
      if (result.status === 'passed') out.push(`${open}/>`);
      else if (result.status === 'skipped') out.push(`${open}>`, `      <skipped message="${xml(result.message ?? '')}"/>`, '    </testcase>');
      else {
        const message = result.message ?? '';
        out.push(`${open}>`, `      <failure message="${xml(message.split('\n')[0] ?? '')}" type="${result.seed === undefined ? 'CheckFailure' : 'PropertyFailure'}">${xml(message)}</failure>`, '    </testcase>');
      }
    }
    out.push('  </testsuite>');
  }
  out.push('</testsuites>');
  return `${out.join('\n')}\n`;
}
