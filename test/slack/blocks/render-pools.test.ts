import { describe, expect, it } from 'vitest';
import type { PoolHealth } from '../../../src/domain/pool/pool-health.js';
import { poolBlocks, renderHome, renderStatus, type StackStatusRow } from '../../../src/slack/blocks/index.js';
import { SERVED_NONPROD, unservedProd } from '../../helpers/pool-health.js';
import { expectNoInjection, expectValidMessage, expectValidView, mrkdwnTexts } from './helpers.js';

const now = new Date('2026-12-04T10:00:00Z');
const prod = unservedProd(now);
const nonprod = SERVED_NONPROD;
const idle: PoolHealth = {
  pool: 'default',
  liveWorkers: 1,
  capacity: 2,
  waiting: 0,
  active: 0,
  oldestWaitingSeconds: 0,
};
const stacks: StackStatusRow[] = [{ name: 'prod/site', status: 'in_sync', lastCheckAt: now }];

const text = (blocks: unknown[]) => mrkdwnTexts(blocks).join('\n');

describe('worker pools in Slack', () => {
  it('says per pool its live workers, capacity, queue and oldest waiting job, unserved pools first', () => {
    const blocks = poolBlocks({ view: [nonprod, idle, prod], now }, 4);
    expect(blocks[0]).toMatchObject({ type: 'header', text: { text: 'Worker pools (1 unserved)' } });
    const lines = text(blocks).split('\n');
    expect(lines[0]).toBe('• *prod* · no live worker · 3 waiting, 0 running · oldest waiting 7 min');
    expect(lines[1]).toBe('   :warning: *No worker for pool prod for 5 min*: start `driftgate worker --pool prod`');
    expect(lines.slice(2)).toEqual([
      '• *default* · 1 live worker (runs 2 at once) · no jobs',
      '• *nonprod* · 2 live workers (runs 6 at once) · 1 waiting, 4 running · oldest waiting 12 s',
    ]);
  });

  it('says when the pools could not be read, and when there are none', () => {
    expect(text(poolBlocks({ view: 'unavailable', now }, 4))).toContain('could not be read');
    expect(text(poolBlocks({ view: [], now }, 4))).toContain('No pools');
  });

  it('keeps hundreds of pools within the blocks given, saying how many more there are', () => {
    const many = Array.from({ length: 400 }, (_, i) => ({ ...nonprod, pool: `pool-${i}` }));
    const blocks = poolBlocks({ view: many, now }, 4);
    expect(blocks.length).toBeLessThanOrEqual(4);
    expect(text(blocks)).toMatch(/… and \d+ more$/);
  });

  it('adds the section to /drift status and the App Home within their limits, and nothing without pools', () => {
    const status = renderStatus(stacks, 0, { view: [prod, nonprod], now });
    expectValidMessage(status);
    expect(text(status.blocks)).toContain('No worker for pool prod for 5 min');
    expect(text(renderStatus(stacks).blocks)).not.toContain('pool');
    expectValidMessage(renderStatus([], 0, { view: [prod], now }));

    const many: StackStatusRow[] = Array.from({ length: 500 }, (_, i) => ({
      name: `env/stack-${i}`,
      status: i % 2 ? 'drifted' : 'in_sync',
      lastCheckAt: now,
    }));
    const home = renderHome({ stacks: many, pending: [], activity: [], now, pools: { view: [prod, nonprod], now } });
    expectValidView(home);
    expect(text(home.blocks)).toContain('No worker for pool prod for 5 min');
    expectValidMessage(renderStatus(many, 0, { view: [prod, nonprod], now }));
  });

  it('escapes a pool name that would be mrkdwn', () => {
    const odd: PoolHealth = { ...prod, pool: '<!channel>' };
    expectNoInjection(mrkdwnTexts(renderStatus(stacks, 0, { view: [odd], now }).blocks));
  });
});
