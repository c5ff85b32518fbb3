import { Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { humanLine } from '../../src/logging/human-line.js';
import { createLogger } from '../../src/logging/logger.js';

describe('humanLine', () => {
  it.each([
    [
      '{"level":30,"time":"2026-12-03T20:53:10.106Z","pid":1,"hostname":"vm","stack":"prod/db","ms":328,"msg":"plan finished"}',
      'info: plan finished  stack=prod/db ms=328\n',
    ],
    ['{"level":40,"msg":"run interrupted","error":"two words"}', 'warn: run interrupted  error="two words"\n'],
    [
      '{"level":50,"msg":"retention failed","err":{"type":"Error","message":"disk full","stack":"Error: disk full\\n at x"}}',
      'error: retention failed  err="disk full"\n',
    ],
    ['{"level":30,"msg":"removed","removed":["r_1","r_2"]}', 'info: removed  removed=["r_1","r_2"]\n'],
    ['not json\n', 'not json\n'],
  ])('%s', (line, want) => {
    expect(humanLine(line)).toBe(want);
  });

  it('masks secrets before the line is made human', () => {
    const lines: string[] = [];
    const stream = new Writable({
      write(chunk: Buffer, _enc, done) {
        lines.push(chunk.toString('utf8'));
        done();
      },
    });
    const logger = createLogger({
      level: 'info',
      format: 'human',
      destination: stream,
      redact: (text) => text.replaceAll('hunter2-secret-value', '(sensitive)'),
    });
    logger.warn({ stack: 'prod/db', stderr: 'password hunter2-secret-value refused' }, 'init failed');
    expect(lines).toEqual(['warn: init failed  stack=prod/db stderr="password (sensitive) refused"\n']);
  });
});
