import { Registry } from 'prom-client';
import { describe, expect, it } from 'vitest';
import { PlainCounter } from '../../../src/http/plain-metrics.js';

describe('PlainCounter', () => {
  it('keeps one series per combination of label values, counted apart', async () => {
    const registry = new Registry();
    const counter = new PlainCounter(registry, 'things_total', 'Things', ['kind', 'status']);
    counter.inc('a', 'ok');
    counter.inc('a', 'ok');
    counter.inc('a', 'failed');
    counter.inc('b', 'ok');
    // A value holding the separator a joined key would use is still its own series.
    counter.inc('a\u0000ok', 'x');
    const text = await registry.metrics();
    expect(text).toContain('things_total{kind="a",status="ok"} 2');
    expect(text).toContain('things_total{kind="a",status="failed"} 1');
    expect(text).toContain('things_total{kind="b",status="ok"} 1');
    expect(text).toContain('things_total{kind="a\u0000ok",status="x"} 1');
  });

  it('reads what waits to be counted before it answers', async () => {
    const registry = new Registry();
    const waiting: string[] = [];
    const counter = new PlainCounter(registry, 'late_total', 'Late', ['kind'], () => {
      for (const kind of waiting.splice(0)) counter.inc(kind);
    });
    waiting.push('x', 'x');
    expect(await registry.metrics()).toContain('late_total{kind="x"} 2');
  });
});
