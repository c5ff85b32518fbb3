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

  const ESC = '\u001b';
  it.each([
    [
      'a stack name that clears the screen and recolours the line',
      { level: 30, msg: 'plan finished', stack: `prod/db${ESC}[2J${ESC}[31m` },
      'info: plan finished  stack=prod/db\n',
    ],
    [
      "terraform's coloured stderr, its newline kept escaped in the value",
      { level: 50, msg: 'plan failed', stderr: `${ESC}[31m${ESC}[1mError:${ESC}[0m bad\nline 2` },
      'error: plan failed  stderr="Error: bad\\nline 2"\n',
    ],
    [
      'a message, a key, an error and a nested value, with OSC, 8-bit CSI, a bell and a carriage return',
      {
        level: 40,
        msg: `change ${ESC}]0;pwned${ESC}\\taken\r`,
        [`k${ESC}[8m`]: 'v',
        err: { message: `boom\u009b2Jx\u0007` },
        nested: [{ name: `a${ESC}[5mb` }],
      },
      'warn: change taken  k=v err="boomx" nested=[{"name":"ab"}]\n',
    ],
  ])('strips escape sequences and control characters: %s', (_what, record, want) => {
    const line = humanLine(JSON.stringify(record));
    expect(line).toBe(want);
  });

  it('strips them from a line that is not a pino record too, keeping its newline', () => {
    expect(humanLine(`not ${ESC}[31mjson${ESC}[0m\n`)).toBe('not json\n');
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
