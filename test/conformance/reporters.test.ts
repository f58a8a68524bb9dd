/** The four reporters over one fixed report: shapes a CI system or a script can rely on. */
import { describe, expect, it } from 'vitest';
import { XMLParser } from 'fast-xml-parser';
import { jsonReport, junitReport, specReport, tapReport, type RunReport } from '../../src/conformance/index.js';

const REPORT: RunReport = {
  seed: 42,
  runs: 5,
  summary: { passed: 1, failed: 1, skipped: 1 },
  results: [
    { area: 'wallet', name: 'money is conserved', status: 'failed', message: 'property failed: <402> & "400"\nseed: 42, path: 0:1\nshrunk calls: wallet.send(A→B, 1 usd)', seed: 42, durationMs: 12 },
    { area: 'wallet', name: 'a fault # fails a send', status: 'skipped', message: 'needs the fault language', durationMs: 1 },
    { area: 'email', name: 'mail arrives', status: 'passed', durationMs: 3 },
  ],
};

describe('conformance reporters', () => {
  it('json is exactly {summary, checks: [{area, name, status, message?, seed?}]}', () => {
    const parsed = JSON.parse(jsonReport(REPORT));
    expect(parsed).toEqual({
      summary: { passed: 1, failed: 1, skipped: 1 },
      checks: [
        { area: 'wallet', name: 'money is conserved', status: 'failed', message: REPORT.results[0]!.message, seed: 42 },
        { area: 'wallet', name: 'a fault # fails a send', status: 'skipped', message: 'needs the fault language' },
        { area: 'email', name: 'mail arrives', status: 'passed' },
      ],
    });
  });

  it('tap numbers every check, marks skips with # SKIP and failures with a YAML block', () => {
    const lines = tapReport(REPORT).split('\n');
    expect(lines.slice(0, 3)).toEqual(['TAP version 13', '1..3', 'not ok 1 - wallet: money is conserved']);
    expect(lines).toContain('ok 2 - wallet: a fault \\# fails a send # SKIP needs the fault language');
    expect(lines).toContain('ok 3 - email: mail arrives');
    expect(lines).toContain('    shrunk calls: wallet.send(A→B, 1 usd)');
    expect(lines).toContain('# fail 1');
  });

  it('junit is well-formed XML with one testsuite per area and escaped messages', () => {
    const xml = junitReport(REPORT);
    const parsed = new XMLParser({ ignoreAttributes: false }).parse(xml) as { testsuites: { '@_failures': string; testsuite: Array<{ '@_name': string; testcase: unknown }> } };
    expect(parsed.testsuites['@_failures']).toBe('1');
    expect(parsed.testsuites.testsuite.map((suite) => suite['@_name'])).toEqual(['wallet', 'email']);
    expect(xml).toContain('&lt;402&gt; &amp; &quot;400&quot;');
    expect(xml).toContain('<skipped message="needs the fault language"/>');
  });

  it('spec groups checks by area and ends with a summary table per area and the seed', () => {
    const text = specReport(REPORT);
    expect(text).toMatch(/\nwallet\n {2}✗ money is conserved/);
    expect(text).toMatch(/- a fault # fails a send \(skipped: needs the fault language\)/);
    expect(text).toMatch(/ {2}wallet\s+0\s+1\s+1\n/);
    expect(text).toMatch(/ {2}email\s+1\s+0\s+0\n/);
    expect(text).toMatch(/ {2}total\s+1\s+1\s+1\n/);
    expect(text).toContain('seed 42, 5 runs per property');
  });
});
