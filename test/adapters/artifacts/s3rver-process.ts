import { spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { createInterface } from 'node:readline';

const projectRoot = resolve(import.meta.dirname, '../../..');

/**
 * s3rver in a child process started with --openssl-legacy-provider. s3rver builds ListObjectsV2
 * continuation tokens with DES, which OpenSSL 3 refuses by default, so the in-process server of
 * test/helpers/s3rver.ts answers 500 to any truncated listing. Only the pagination test needs this.
 */
export async function startPagingS3(bucket: string): Promise<{ endpoint: string; close(): Promise<void> }> {
  const directory = await mkdtemp(join(tmpdir(), 'driftgate-s3rver-paging-'));
  const script = `
    import S3rver from 's3rver';
    const server = new S3rver({ address: '127.0.0.1', port: 0, silent: true, directory: ${JSON.stringify(directory)},
      configureBuckets: [{ name: ${JSON.stringify(bucket)} }] });
    const address = await server.run();
    console.log(address.port);
    process.stdin.on('end', () => server.close().then(() => process.exit(0)));
    process.stdin.resume();`;
  const child = spawn(process.execPath, ['--openssl-legacy-provider', '--input-type=module', '-e', script], {
    cwd: projectRoot,
    stdio: ['pipe', 'pipe', 'inherit'],
  });
  const first = await createInterface({ input: child.stdout })[Symbol.asyncIterator]().next();
  const port = Number(first.value);
  if (!Number.isInteger(port) || port <= 0) {
    child.kill();
    throw new Error(`s3rver child did not report a port: ${String(first.value)}`);
  }
  return {
    endpoint: `http://127.0.0.1:${port}`,
    async close() {
      const exited = new Promise((done) => child.once('exit', done));
      child.stdin.end();
      await exited;
      await rm(directory, { recursive: true, force: true });
    },
  };
}
