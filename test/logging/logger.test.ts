import { Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { createLogger, redactLine } from '../../src/logging/logger.js';
import { createSecretRegistry, type TextRedactor } from '../../src/logging/secret-registry.js';

/** Collects what the logger writes, line by line. */
function capture() {
  const lines: string[] = [];
  const stream = new Writable({
    write(chunk: Buffer, _enc, done) {
      lines.push(...chunk.toString('utf8').split('\n').filter(Boolean));
      done();
    },
  });
  return { stream, lines };
}

/** Masks fixed secrets, like a plan's Redactor. */
const masking = (...secrets: string[]): TextRedactor => ({
  redact: (text) => secrets.reduce((out, s) => out.split(s).join('(sensitive)'), text),
});

describe('createLogger', () => {
  it('masks a secret added to the registry after the logger was created', () => {
    const secrets = createSecretRegistry();
    const { stream, lines } = capture();
    const logger = createLogger({ level: 'info', destination: stream, redact: (line) => secrets.redact(line) });

    logger.info({ stderr: 'password = pa55-w0rd-1' }, 'before: pa55-w0rd-1');
    secrets.add('prod/db', masking('pa55-w0rd-1'));
    logger.info({ stderr: 'password = pa55-w0rd-1' }, 'after: pa55-w0rd-1');
    logger.child({ stack: 'prod/db' }).warn({ err: new Error('auth failed for pa55-w0rd-1') }, 'terraform failed');

    expect(lines).toHaveLength(3);
    expect(lines[0]).toContain('pa55-w0rd-1');
    for (const line of lines.slice(1)) expect(line).not.toContain('pa55-w0rd-1');
    const after = JSON.parse(lines[1]!);
    expect(after).toMatchObject({ level: 30, msg: 'after: (sensitive)', stderr: 'password = (sensitive)' });
    const child = JSON.parse(lines[2]!);
    expect(child).toMatchObject({
      stack: 'prod/db',
      msg: 'terraform failed',
      err: { message: 'auth failed for (sensitive)' },
    });
    expect(child.err.stack).not.toContain('pa55-w0rd-1');
  });

  it('masks secrets that JSON escaping would otherwise hide from the redactor', () => {
    const secret = 'line1\n"quoted"\\tail';
    const secrets = createSecretRegistry();
    secrets.add('prod/db', masking(secret));
    const { stream, lines } = capture();
    createLogger({ level: 'info', destination: stream, redact: secrets.redact }).info(
      { output: `value=${secret}` },
      'x',
    );
    const record = JSON.parse(lines[0]!);
    expect(record.output).toBe('value=(sensitive)');
    expect(lines[0]).not.toContain(JSON.stringify(secret).slice(1, -1));
  });

  it('honours the level', () => {
    const { stream, lines } = capture();
    const logger = createLogger({ level: 'warn', destination: stream, redact: (l) => l });
    logger.info('hidden');
    logger.warn('shown');
    expect(lines.map((l) => JSON.parse(l).msg)).toEqual(['shown']);
  });

  it('passes non-JSON lines through the redactor whole', () => {
    expect(redactLine('plain s3cret\n', (t) => t.replace('s3cret', '***'))).toBe('plain ***\n');
    expect(redactLine('{"msg":"s3cret"}\n', (t) => t.replace('s3cret', '***'))).toBe('{"msg":"***"}\n');
  });

  it("never masks inside keys: a secret named like one of pino's or driftgate's keys leaves them whole", () => {
    const secrets = createSecretRegistry();
    secrets.add('prod/db', masking('level', 'stack', 'msg'));
    const { stream, lines } = capture();
    createLogger({ level: 'info', destination: stream, redact: secrets.redact }).info(
      { stack: 'prod/db', detail: 'level stack' },
      'msg',
    );
    const record = JSON.parse(lines[0]!);
    expect(Object.keys(record)).toEqual(expect.arrayContaining(['level', 'stack', 'msg', 'detail']));
    expect(record.level).toBe(30);
    expect(record.detail).toBe('(sensitive) (sensitive)');
  });

  it("masks a line naming a stack with that stack's secrets, a line naming none with every stack's", () => {
    const secrets = createSecretRegistry();
    secrets.add('a', masking('secret-of-a-1234'));
    const { stream, lines } = capture();
    const logger = createLogger({ level: 'info', destination: stream, redact: secrets.redact });
    logger.info({ stack: 'a', out: 'x secret-of-a-1234' }, 'one');
    logger.info({ out: 'x secret-of-a-1234' }, 'two');
    logger.info({ stack: 'b', out: 'x secret-of-a-1234' }, 'three');
    expect(lines.map((l) => JSON.parse(l).out)).toEqual(['x (sensitive)', 'x (sensitive)', 'x secret-of-a-1234']);
  });
});

describe('createSecretRegistry', () => {
  it("masks a stack's config secrets before any plan, and only in that stack's texts", () => {
    const secrets = createSecretRegistry({ base: new Map([['a', masking('config-secret-a')]]) });
    expect(secrets.redact('config-secret-a', 'a')).toBe('(sensitive)');
    expect(secrets.redact('config-secret-a', 'b')).toBe('config-secret-a');
    expect(secrets.redact('config-secret-a')).toBe('(sensitive)');
  });

  it('applies every redactor added', () => {
    const secrets = createSecretRegistry();
    secrets.add('prod/db', masking('alpha-secret'));
    secrets.add('prod/db', masking('beta-secret'));
    expect(secrets.redact('alpha-secret and beta-secret')).toBe('(sensitive) and (sensitive)');
  });

  it('keeps only the most recent redactors, and re-adding one makes it recent again', () => {
    const secrets = createSecretRegistry({ max: 2 });
    const a = masking('aaaa');
    secrets.add('prod/db', a);
    secrets.add('prod/db', masking('bbbb'));
    secrets.add('prod/db', a);
    secrets.add('prod/db', masking('cccc'));
    expect(secrets.size).toBe(2);
    expect(secrets.redact('aaaa bbbb cccc')).toBe('(sensitive) bbbb (sensitive)');
  });
});
