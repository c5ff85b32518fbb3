import { describe, expect, it } from 'vitest';
import { parseDriftCommand } from '../../../../src/slack/listeners/commands/parse.js';

const stacks = ['prod/networking', 'prod/database', 'staging/networking', 'dev/app'];

describe('parseDriftCommand', () => {
  it.each([
    ['', { kind: 'status' }],
    ['status', { kind: 'status' }],
    ['  HELP ', { kind: 'help' }],
    ['events', { kind: 'events' }],
    ['check all', { kind: 'check', stacks, byPattern: true }],
    ['check prod/*', { kind: 'check', stacks: ['prod/networking', 'prod/database'], byPattern: true }],
    [
      'check */networking dev/app',
      { kind: 'check', stacks: ['prod/networking', 'staging/networking', 'dev/app'], byPattern: true },
    ],
    ['check prod/database dev/app', { kind: 'check', stacks: ['prod/database', 'dev/app'] }],
    ['show prod/database', { kind: 'show', stack: 'prod/database' }],
    [
      'silence prod/database 2h planned migration',
      { kind: 'silence', stack: 'prod/database', durationMs: 7_200_000, reason: 'planned migration' },
    ],
    ['silence dev/app 1d', { kind: 'silence', stack: 'dev/app', durationMs: 86_400_000 }],
    ['unsilence dev/app', { kind: 'unsilence', stack: 'dev/app' }],
    ['unlock prod/networking', { kind: 'unlock', stack: 'prod/networking' }],
  ])('%j', (text, expected) => {
    expect(parseDriftCommand(text, stacks)).toEqual(expected);
  });

  it.each([
    ['chek prod/database', /unknown subcommand `chek`/, 'check'],
    ['show prod/databse', /no stack named `prod\/databse`/, 'prod/database'],
    ['check prd/*', /^no stack matches `prd\/\*` \(the stacks are under `dev\/`, `prod\/`/, 'prod/*'],
    ['silence prod/database soon', /not a duration/, undefined],
    ['show', /usage: \/drift show <stack>/, undefined],
    ['check', /usage: \/drift check/, undefined],
  ])('%j is refused with a helpful error', (text, message, closest) => {
    const result = parseDriftCommand(text, stacks);
    expect(result.kind).toBe('error');
    if (result.kind !== 'error') return;
    expect(result.message).toMatch(message);
    if (closest) expect(result.suggestions[0]).toBe(closest);
  });
});
