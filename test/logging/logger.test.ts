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
    secrets.add(masking('pa55-w0rd-1'));
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
    secrets.add(masking(secret));
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
});

describe('createSecretRegistry', () => {
  it('applies every redactor added', () => {
    const secrets = createSecretRegistry();
    secrets.add(masking('alpha-secret'));
    secrets.add(masking('beta-secret'));
    expect(secrets.redact('alpha-secret and beta-secret')).toBe('(sensitive) and (sensitive)');
  });

  it('keeps only the most recent redactors, and re-adding one makes it recent again', () => {
    const secrets = createSecretRegistry({ max: 2 });
    const a = masking('aaaa');
    secrets.add(a);
    secrets.add(masking('bbbb'));
    secrets.add(a);
    secrets.add(masking('cccc'));
    expect(secrets.size).toBe(2);
    expect(secrets.redact('aaaa bbbb cccc')).toBe('(sensitive) bbbb (sensitive)');
  });
});
