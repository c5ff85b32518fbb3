import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { request as httpsRequest } from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { execa } from 'execa';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openPostgresStore } from '../../src/adapters/store/postgres/open-postgres-store.js';
import { startServe, type RunningServe } from '../../src/app/serve.js';
import { loadConfig } from '../../src/config/load.js';
import { AGENT_PROTOCOL_HEADER } from '../../src/domain/agent/protocol.js';
import { runCli } from '../helpers/cli.js';
import { type ConfigPatch, configYaml, stackEntry } from '../helpers/config-builder.js';
import { closedPort } from '../helpers/ports.js';
import { usePostgres } from '../helpers/postgres.js';

/**
 * The agent API's front door, on a real serve and a real Postgres: tokens made with the CLI, presented
 * over HTTP (and HTTPS) the way a worker will.
 */
const postgres = usePostgres();
let dir: string;
let url: string;
let env: Record<string, string | undefined>;

async function writeConfig(name: string, agent: ConfigPatch['runners']): Promise<string> {
  const file = join(dir, name);
  await writeFile(
    file,
    configYaml({
      dataDir: join(dir, 'data'),
      log: { level: 'silent' },
      store: { type: 'postgres', url: '${DATABASE_URL}' },
      // Nothing reaches S3 here: the control plane only answers the agent API.
      artifacts: {
        type: 's3',
        bucket: 'plans',
        region: 'eu-west-1',
        endpoint: `http://127.0.0.1:${await closedPort()}`,
      },
      runners: agent,
      defaults: { schedule: '0 0 1 1 *' },
      stacks: [
        stackEntry('prod/site', join(dir, 'site'), { pool: 'prod' }),
        stackEntry('dev/site', join(dir, 'site'), { pool: 'nonprod', workspace: 'dev' }),
      ],
    }),
  );
  return file;
}

async function serve(file: string): Promise<RunningServe> {
  const config = await loadConfig({ file, cwd: dir, env });
  return startServe(config, { env, port: 0, host: '127.0.0.1' });
}

function agentGet(port: number, path: string, headers: Record<string, string>): Promise<Response> {
  return fetch(`http://127.0.0.1:${port}/agent/v1${path}`, { headers });
}

const bearer = (token: string) => ({ authorization: `Bearer ${token}`, [AGENT_PROTOCOL_HEADER]: '1' });

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'driftgate-agent-api-'));
  await mkdir(join(dir, 'site'));
  await writeFile(join(dir, 'site', 'main.tf'), 'resource "terraform_data" "site" {}\n');
  url = await postgres.createDatabase();
  env = { DATABASE_URL: url, PATH: process.env.PATH };
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('pool tokens and the agent API', () => {
  it('admits a live token as its pool only, refuses a revoked one by its id, and records create, use and revoke', async () => {
    const file = await writeConfig('driftgate.yml', { type: 'workers', agent: { port: 0, host: '127.0.0.1' } });
    const created = await runCli(['pool', 'token', 'create', 'prod', '--name', 'runner-a', '--config', file], {
      cwd: dir,
      env,
    });
    expect(created.stderr).toBe('');
    expect(created.code).toBe(0);
    const token = created.stdout.split('\n')[0]!;
    expect(token).toMatch(/^dgpt_[0-9a-f]{16}_[A-Za-z0-9_-]{43}$/);
    const id = token.slice(5, 21);
    expect(created.stdout).toContain(`driftgate pool token revoke prod ${id}`);

    // Only the hash is kept: the secret half appears nowhere in the database.
    const db = new pg.Client({ connectionString: url });
    await db.connect();
    const dump = JSON.stringify((await db.query('SELECT * FROM pool_tokens')).rows);
    await db.end();
    expect(dump).toContain(id);
    expect(dump).not.toContain(token.slice(22));

    const running = await serve(file);
    try {
      const port = running.agent!.port;
      const who = await agentGet(port, '/whoami', bearer(token));
      expect(who.status).toBe(200);
      expect(await who.json()).toEqual({ pool: 'prod', tokenId: id, protocol: 1 });

      // A token whose id is real but whose secret is not: unknown, like a made-up one.
      const forged = `${token.slice(0, 22)}${'A'.repeat(43)}`;
      for (const [headers, status, reason] of [
        [bearer(forged), 401, 'unknown'],
        [bearer(`dgpt_0123456789abcdef_${'B'.repeat(43)}`), 401, 'unknown'],
        [bearer('ghp_notours'), 401, 'malformed'],
        [{ [AGENT_PROTOCOL_HEADER]: '1' }, 401, undefined],
      ] as const) {
        const refused = await agentGet(port, '/whoami', headers);
        expect(refused.status).toBe(status);
        expect(((await refused.json()) as { reason?: string }).reason).toBe(reason);
      }
      const older = await agentGet(port, '/whoami', { authorization: `Bearer ${token}`, [AGENT_PROTOCOL_HEADER]: '0' });
      expect(older.status).toBe(426);
      expect(((await older.json()) as { error: string }).error).toContain(
        "agent protocol 0 is not this control plane's (1)",
      );
      expect((await agentGet(port, '/nothing', bearer(token))).status).toBe(404);
      expect(
        (await fetch(`http://127.0.0.1:${port}/agent/v1/whoami`, { method: 'POST', headers: bearer(token) })).status,
      ).toBe(405);

      const listed = await runCli(['pool', 'token', 'list', '--json', '--config', file], { cwd: dir, env });
      const [entry] = JSON.parse(listed.stdout).tokens;
      expect(entry).toMatchObject({ id, pool: 'prod', name: 'runner-a', createdBy: expect.stringMatching(/^cli:/) });
      expect(entry.lastUsedAt).toEqual(expect.any(String));
      expect(entry.revokedAt).toBeUndefined();

      // Revoked by another pool's name: nothing happens.
      const wrongPool = await runCli(['pool', 'token', 'revoke', 'nonprod', id, '--config', file], { cwd: dir, env });
      expect(wrongPool.code).toBe(1);
      expect(wrongPool.stderr).toContain(`pool nonprod has no token ${id}`);
      expect((await agentGet(port, '/whoami', bearer(token))).status).toBe(200);

      const revoked = await runCli(['pool', 'token', 'revoke', 'prod', id, '--config', file], { cwd: dir, env });
      expect(revoked.code).toBe(0);
      const after = await agentGet(port, '/whoami', bearer(token));
      expect(after.status).toBe(401);
      expect(await after.json()).toMatchObject({ reason: 'revoked', tokenId: id });
    } finally {
      await running.stop();
    }
    const store = await openPostgresStore({ url });
    const audit = (await store.listAudit({ limit: 10 })).map((a) => [a.action, a.detail?.tokenId]);
    await store.close();
    expect(audit).toEqual(
      expect.arrayContaining([
        ['pool_token_created', id],
        ['pool_token_revoked', id],
      ]),
    );
  });

  it('makes tokens only for pools of the config, and only with workers', async () => {
    const file = await writeConfig('pools.yml', { type: 'workers' });
    const typo = await runCli(['pool', 'token', 'create', 'prdo', '--config', file], { cwd: dir, env });
    expect(typo.code).toBe(1);
    expect(typo.stderr).toContain('pool "prdo" has no stacks in this config (its pools: nonprod, prod)');
    const usage = await runCli(['pool', 'tokens', 'create', 'prod', '--config', file], { cwd: dir, env });
    expect(usage.code).toBe(1);
    expect(usage.stderr).toContain('pool token create|list|revoke');
    const local = join(dir, 'local.yml');
    await writeFile(local, configYaml({ dataDir: join(dir, 'data'), stacks: [stackEntry('a', join(dir, 'site'))] }));
    const noWorkers = await runCli(['pool', 'token', 'list', '--config', local], { cwd: dir, env });
    expect(noWorkers.code).toBe(1);
    expect(noWorkers.stderr).toContain('runners.type: pool tokens are for the workers of runners: {type: workers}');
  });

  it('speaks HTTPS only with runners.agent.tls, and names a key file it cannot read', async () => {
    await execa('openssl', [
      'req',
      '-x509',
      '-newkey',
      'ec',
      '-pkeyopt',
      'ec_paramgen_curve:prime256v1',
      '-nodes',
      '-days',
      '1',
      '-subj',
      '/CN=127.0.0.1',
      '-addext',
      'subjectAltName=IP:127.0.0.1',
      '-keyout',
      join(dir, 'agent.key'),
      '-out',
      join(dir, 'agent.crt'),
    ]);
    const file = await writeConfig('tls.yml', {
      type: 'workers',
      agent: { port: 0, host: '127.0.0.1', tls: { certFile: 'agent.crt', keyFile: 'agent.key' } },
    });
    const created = await runCli(['pool', 'token', 'create', 'nonprod', '--config', file], { cwd: dir, env });
    const token = created.stdout.split('\n')[0]!;
    const running = await serve(file);
    try {
      const port = running.agent!.port;
      const ca = await readFile(join(dir, 'agent.crt'));
      const body = await new Promise<string>((resolve, reject) => {
        const req = httpsRequest(
          { host: '127.0.0.1', port, path: '/agent/v1/whoami', ca, headers: bearer(token) },
          (res) => {
            let text = '';
            res.on('data', (c) => (text += c));
            res.on('end', () => resolve(text));
          },
        );
        req.on('error', reject);
        req.end();
      });
      expect(JSON.parse(body)).toMatchObject({ pool: 'nonprod' });
      // Plain HTTP on the TLS port gets no answer a worker could take for the API's.
      await expect(agentGet(port, '/whoami', bearer(token))).rejects.toThrow();
    } finally {
      await running.stop();
    }
    const missing = await writeConfig('tls-missing.yml', {
      type: 'workers',
      agent: { port: 0, tls: { certFile: 'agent.crt', keyFile: 'nope.key' } },
    });
    await expect(serve(missing)).rejects.toThrow(/runners\.agent\.tls\.keyFile: cannot read .*nope\.key/);
  });
});
