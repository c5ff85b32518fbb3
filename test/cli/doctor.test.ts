import { cp, readFile, writeFile } from 'node:fs/promises';
import { SendMessageCommand, SQSClient } from '@aws-sdk/client-sqs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse, stringify } from 'yaml';
import { makeTestRepo, type TestRepo } from '../adapters/git/git-repo.js';
import { rsaKeyPair } from '../adapters/github/app-fixture.js';
import { runCli } from '../helpers/cli.js';
import { EXAMPLES, exampleStackFiles } from '../helpers/example-stacks.js';
import { closedPort } from '../helpers/ports.js';
import { usePostgres } from '../helpers/postgres.js';
import { startGitHubEmulator, type GitHubEmulator } from '../helpers/github-emulator/index.js';
import { startLocalS3, type LocalS3 } from '../helpers/s3rver.js';
import { startSlackEmulator, type SlackEmulator } from '../helpers/slack-emulator.js';
import { startSqsEmulator } from '../helpers/sqs-emulator.js';
import { startCloudTrailEmulator } from '../helpers/cloudtrail-emulator.js';
import { makeTerraformEnv, type TestTerraformEnv } from '../helpers/terraform-env.js';

const ROUTING_KEY = 'R0UT1NGKEYR0UT1NGKEYR0UT1NGKEY12';
const WEBHOOK_SECRET = 'whsec-0123456789abcdef0123456789abcdef';
const SIGNING_SECRET = 'signing-secret-0123456789abcdef';
const APP_TOKEN = 'xapp-1-emulated-app-token';
const EVENTS_SECRET = 'events-secret-0123456789abcdef0123';

const postgres = usePostgres();
let tf: TestTerraformEnv;
let dir: string;
let s3: LocalS3;
let slack: SlackEmulator;
let repo: TestRepo;
let github: GitHubEmulator;
let bundled: Record<string, unknown>;

beforeAll(async () => {
  tf = await makeTerraformEnv('driftgate-doctor-');
  dir = join(tf.dir, 'examples');
  await cp(EXAMPLES, dir, { recursive: true });
  bundled = parse(await readFile(join(dir, 'driftgate.yml'), 'utf8'));
  s3 = await startLocalS3(['driftgate-artifacts']);
  slack = await startSlackEmulator({
    channels: ['C0ALERTS', 'C0PROD', 'C0QUIET'],
    members: { C0ALERTS: ['U0BOT', 'U0ADA'], C0PROD: ['U0BOT'], C0QUIET: ['U0ADA'] },
    usergroups: [{ id: 'S0SRE', handle: 'sre-leads', users: ['U0ADA'] }],
    appToken: APP_TOKEN,
  });
  // The examples' stacks in a repository, as source.git with discover reads them: its branch head.
  repo = await makeTestRepo();
  await repo.commit({ 'README.md': '# infrastructure\n', ...(await exampleStackFiles()) }, 'Seed');
  github = await startGitHubEmulator({ repoDir: join(repo.dir, 'origin.git'), owner: 'acme', repo: 'infrastructure' });
});
afterAll(async () => {
  await github?.close();
  await repo?.cleanup();
  await slack?.close();
  await s3?.close();
  await tf?.cleanup();
});

/** The bundled examples' config with every part of a deployment pointed at the local emulators. */
function fullConfig(overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    ...bundled,
    artifacts: {
      type: 's3',
      bucket: 'driftgate-artifacts',
      region: s3.region,
      endpoint: s3.endpoint,
      forcePathStyle: true,
    },
    source: { git: { url: repo.url, repository: 'acme/infrastructure' } },
    slack: {
      defaultChannel: 'C0ALERTS',
      channels: [{ match: 'prod/*', channel: 'C0PROD' }],
      onCall: { usergroup: '@sre-leads', environments: ['prod'] },
    },
    approvers: {
      groups: { sre: { users: ['U0ADA'], usergroups: ['@sre-leads'] } },
      rules: [{ stacks: '*', from: ['sre'] }],
    },
    pagerduty: { routing: [{ environments: ['prod'], routingKeyEnv: 'PD_ROUTING_KEY_PROD' }] },
    ...overrides,
  };
}

function fullEnv(overrides: Record<string, string | undefined> = {}): Record<string, string | undefined> {
  return {
    PATH: process.env.PATH,
    HOME: process.env.HOME,
    ...tf.env,
    AWS_ACCESS_KEY_ID: s3.accessKeyId,
    AWS_SECRET_ACCESS_KEY: s3.secretAccessKey,
    SLACK_BOT_TOKEN: slack.token,
    SLACK_SIGNING_SECRET: SIGNING_SECRET,
    SLACK_APP_TOKEN: APP_TOKEN,
    SLACK_API_URL: slack.apiUrl,
    GITHUB_TOKEN: github.token,
    GITHUB_API_URL: github.apiUrl,
    PD_ROUTING_KEY_PROD: ROUTING_KEY,
    GITHUB_WEBHOOK_SECRET: WEBHOOK_SECRET,
    ...overrides,
  };
}

async function doctor(
  name: string,
  config: Record<string, unknown>,
  env: Record<string, string | undefined>,
  args: string[] = [],
) {
  const file = join(dir, `${name}.yml`);
  await writeFile(file, stringify(config));
  const result = await runCli(['doctor', '--config', file, ...args], { cwd: dir, env });
  const output = result.stdout + result.stderr;
  for (const secret of [slack.token, SIGNING_SECRET, APP_TOKEN, github.token, ROUTING_KEY, WEBHOOK_SECRET]) {
    expect(output).not.toContain(secret);
  }
  return { ...result, file, lines: result.stdout.split('\n').filter(Boolean) };
}

describe('driftgate doctor', () => {
  it('is all green for the bundled examples with every service configured', async () => {
    const { code, lines, file, stderr } = await doctor('all-green', fullConfig(), fullEnv());
    expect(stderr).toBe('');
    expect(lines[0]).toBe(`ok   config: ${file}: 9 stacks`);
    expect(lines).toEqual([
      lines[0],
      expect.stringMatching(/^ok {3}terraform: Terraform \d+\.\d+\.\d+ at \//),
      `ok   data dir: ${dir}/.driftgate is writable and its store opens`,
      `ok   plugin cache: ${dir}/.driftgate/plugin-cache is writable`,
      // Found in the repository's branch head; each check plans its own checkout.
      ...['dev', 'prod', 'staging'].flatMap((env) =>
        ['app', 'database', 'networking'].map(
          (layer) =>
            `skip stack ${env}/${layer}: from Git (${repo.url} main, environments/${env}/${layer}): checked out at each run`,
        ),
      ),
      'ok   artifacts: s3://driftgate-artifacts/driftgate/: the probe doctor/probe.txt written, read back and deleted',
      'ok   slack: auth.test ok: @driftgate (U0BOT) in Emulated',
      'ok   slack channel C0ALERTS: @driftgate is a member (#c0alerts)',
      'ok   slack channel C0PROD: @driftgate is a member (#c0prod)',
      'ok   slack usergroup @sre-leads: exists (S0SRE)',
      'ok   slack socket mode: SLACK_APP_TOKEN accepted (apps.connections.open)',
      'ok   github acme/infrastructure: GITHUB_TOKEN can push and open pull requests',
      'ok   pagerduty: routing keys set in PD_ROUTING_KEY_PROD',
      'ok   github webhook: GITHUB_WEBHOOK_SECRET set: deliveries to /github/webhook are verified with it',
      'all good: 13 ok, 9 skipped',
    ]);
    expect(code).toBe(0);
  });

  it('says what to fix for each part that fails', async () => {
    await writeFile(join(dir, 'README-not-a-dir'), 'a file\n');
    await cp(join(dir, 'environments/prod/app'), join(dir, 'broken'), { recursive: true });
    await writeFile(join(dir, 'broken/main.tf'), 'resource "terraform_data" "x" {\n  input = var.nope\n}\n');
    const config = fullConfig({
      discover: [],
      source: undefined,
      stacks: [
        { name: 'prod/app', dir: 'environments/prod/app' },
        { name: 'prod/gone', dir: 'environments/prod/gone' },
        { name: 'prod/broken', dir: 'broken' },
        { name: 'prod/remote', dir: 'app', source: { git: { url: 'https://github.com/acme/elsewhere.git' } } },
      ],
      artifacts: { ...(fullConfig().artifacts as object), bucket: 'no-such-bucket' },
      slack: {
        defaultChannel: 'C0QUIET',
        channels: [{ match: 'prod/*', channel: 'C0GONE' }],
        onCall: { usergroup: '@nobody', environments: ['prod'] },
      },
      approvers: { groups: { sre: { users: ['U0ADA'] } }, rules: [{ stacks: '*', from: ['sre'] }] },
    });
    const { code, lines, file } = await doctor(
      'failing',
      config,
      fullEnv({ PD_ROUTING_KEY_PROD: undefined, GITHUB_WEBHOOK_SECRET: 'abc123def' }),
    );
    const fixes = {
      dir: 'fix: fix the stack\'s "dir" (or its discover glob), or create the directory',
      artifacts:
        "fix: check artifacts.bucket, region and endpoint, and that this process's AWS credentials may PutObject, GetObject and DeleteObject in s3://no-such-bucket/driftgate/",
    };
    expect(lines).toEqual([
      `ok   config: ${file}: 4 stacks, 1 warning (see driftgate validate)`,
      expect.stringMatching(/^ok {3}terraform: /),
      `ok   data dir: ${dir}/.driftgate is writable and its store opens`,
      `ok   plugin cache: ${dir}/.driftgate/plugin-cache is writable`,
      `ok   stack prod/app: ${dir}/environments/prod/app: init and validate ok`,
      `FAIL stack prod/gone: ${dir}/environments/prod/gone does not exist; ${fixes.dir}`,
      `FAIL stack prod/broken: terraform validate failed in ${dir}/broken: Error: Reference to undeclared input variable; fix: run \`terraform validate\` in that dir to see terraform's whole message`,
      'skip stack prod/remote: from Git (https://github.com/acme/elsewhere.git main, app): checked out at each run',
      `FAIL artifacts: writing the probe doctor/probe.txt failed: cannot write artifact doctor/probe.txt in s3://no-such-bucket/driftgate/: S3 answered 404 NoSuchBucket: The specified bucket does not exist; ${fixes.artifacts}`,
      'ok   slack: auth.test ok: @driftgate (U0BOT) in Emulated',
      'FAIL slack channel C0QUIET: @driftgate is not a member (#c0quiet): its alerts there fail; fix: invite it: /invite @driftgate in that channel',
      'FAIL slack channel C0GONE: not found, or private without the bot in it; fix: check the id in the config (channel details, at the bottom), or invite @driftgate to the private channel',
      'FAIL slack usergroup @nobody: not found in the workspace: it grants nobody; fix: create it in Slack, or fix slack.onCall.usergroup',
      'ok   slack socket mode: SLACK_APP_TOKEN accepted (apps.connections.open)',
      `FAIL github acme/elsewhere: read acme/elsewhere failed: repository acme/elsewhere not found at ${github.apiUrl}, or not visible to GITHUB_TOKEN (404); fix: check the repository name (source.git), and that the token may see it (a fine-grained token lists its repositories)`,
      'FAIL pagerduty: env.PD_ROUTING_KEY_PROD is not set; pagerduty.routing reads the routing key from it; fix: set PD_ROUTING_KEY_PROD to the Events API v2 integration key of the PagerDuty service',
      'FAIL github webhook: GITHUB_WEBHOOK_SECRET is 9 characters: too short to keep forged deliveries out; fix: set it to a random value of 32 characters or more (openssl rand -hex 32), here and in the GitHub webhook',
      '9 failed, 7 ok, 1 skipped',
    ]);
    expect(code).toBe(1);
  });

  it('names refused credentials', async () => {
    const { code, lines, file } = await doctor(
      'refused',
      fullConfig({ discover: [{ glob: 'environments/dev/app' }] }),
      fullEnv({
        SLACK_BOT_TOKEN: 'xoxb-not-the-token',
        SLACK_APP_TOKEN: 'xapp-not-the-token',
        GITHUB_TOKEN: 'ghp_wrongwrongwrongwrongwrongwrong',
        AWS_ACCESS_KEY_ID: 'AKIANOTAKEY',
      }),
    );
    expect(lines[0]).toBe(`ok   config: ${file}: 1 stack, 1 warning (see driftgate validate)`);
    expect(lines).toContain(
      'FAIL slack: auth.test failed: invalid_auth; fix: SLACK_BOT_TOKEN must be the Bot User OAuth Token (xoxb-…) of the installed app; set SLACK_API_URL only for a proxy',
    );
    expect(lines).toContain(
      'FAIL github acme/infrastructure: read acme/infrastructure failed: GitHub refused GITHUB_TOKEN (401 Bad credentials): it is wrong, expired or revoked; fix: GITHUB_TOKEN is wrong, expired or revoked: make a new token and set it',
    );
    expect(lines).toContain(
      "FAIL artifacts: writing the probe doctor/probe.txt failed: cannot write artifact doctor/probe.txt in s3://driftgate-artifacts/driftgate/: S3 answered 403 InvalidAccessKeyId: The AWS Access Key Id you provided does not exist in our records.; fix: check artifacts.bucket, region and endpoint, and that this process's AWS credentials may PutObject, GetObject and DeleteObject in s3://driftgate-artifacts/driftgate/",
    );
    expect(lines).toContain(
      'FAIL slack socket mode: apps.connections.open failed: invalid_auth; fix: SLACK_APP_TOKEN must be an app-level token with connections:write (Basic Information, App-Level Tokens), and Socket Mode on',
    );
    // The stack comes from the repository: checked out at each run, not here.
    expect(lines.at(-1)).toBe('4 failed, 6 ok, 1 skipped');
    expect(code).toBe(1);
  });

  it('stops at an invalid config', async () => {
    const { code, lines, file } = await doctor('invalid', { ...bundled, defaults: { concurency: 2 } }, fullEnv());
    expect(lines).toEqual([
      `FAIL config: ${file}: defaults: unknown key "concurency"; did you mean "concurrency"?; fix: run driftgate validate --config ${file} and fix every error`,
      '1 failed: the other checks need a valid config',
    ]);
    expect(code).toBe(1);
  });

  it('skips the stacks without terraform or a data dir', async () => {
    const dataDir = join(dir, 'README-not-a-dir', 'data');
    const { code, lines, file } = await doctor(
      'no-terraform',
      { ...bundled, terraform: { binary: '/nonexistent/terraform' }, dataDir },
      fullEnv(),
    );
    expect(lines).toEqual([
      `ok   config: ${file}: 9 stacks`,
      'FAIL terraform: "/nonexistent/terraform" was not found, or is not an executable terraform or tofu; fix: install terraform or tofu on this PATH, or set terraform.binary to its path (now "/nonexistent/terraform")',
      `FAIL data dir: the data dir ${dataDir} cannot be created or written (not a directory for uid ${process.getuid?.()}); it was chosen by dataDir in ${file}; fix: give driftgate a directory it may write: set dataDir in the config, or the DRIFTGATE_DATA_DIR environment variable, to one; in a container, a volume: docker run -v driftgate-data:/var/lib/driftgate -e DRIFTGATE_DATA_DIR=/var/lib/driftgate …`,
      `FAIL plugin cache: ${dataDir}/plugin-cache is not writable (ENOTDIR); fix: make it writable by the user driftgate runs as, or set terraform.pluginCacheDir to a dir that is`,
      'skip stacks: not checked: the data dir failed',
      'skip artifacts: not checked: the data dir failed',
      'FAIL slack: slack is required when SLACK_BOT_TOKEN is set: at least slack.defaultChannel, where alerts go; fix: add a slack section with defaultChannel (a channel id), or unset SLACK_BOT_TOKEN',
      'skip github: GITHUB_TOKEN set, but no stack comes from a GitHub repository (source.git): nothing to check it on',
      'skip pagerduty: not configured (no pagerduty section): nobody is paged',
      'ok   github webhook: GITHUB_WEBHOOK_SECRET set: deliveries to /github/webhook are verified with it',
      '4 failed, 2 ok, 4 skipped',
    ]);
    expect(code).toBe(1);
  });

  it('checks a Postgres store apart from the data dir: that it answers, or where and what to fix', async () => {
    const store = { type: 'postgres', url: '${DATABASE_URL}' };
    const url = await postgres.createDatabase();
    const up = await doctor('postgres-up', { ...bundled, store }, fullEnv({ DATABASE_URL: url }));
    const port = new URL(url).port;
    expect(up.lines).toContain(`ok   data dir: ${dir}/.driftgate is writable`);
    expect(up.lines).toContain(`ok   store: Postgres at 127.0.0.1:${port} answers; its schema is up to date`);

    const down = await doctor(
      'postgres-down',
      { ...bundled, store },
      fullEnv({ DATABASE_URL: 'postgres://driftgate:pw-doctor-secret@127.0.0.1:9/driftgate' }),
    );
    expect(down.code).toBe(1);
    expect(down.lines).toContain('skip data dir: not checked: the store failed');
    expect(down.lines).toContain(
      'FAIL store: postgres: cannot connect to the run store at 127.0.0.1:9 (store.url): connection refused; is Postgres running and listening there?; fix: start Postgres there, or correct store.url (the value of the variable it names): host, port, user, password, database',
    );
    expect(down.lines).toContain('skip stacks: not checked: the store failed');
    expect(down.stdout + down.stderr).not.toContain('pw-doctor-secret');
  });

  it('checks a GitHub App installation on the repository', async () => {
    const key = rsaKeyPair();
    const app = await startGitHubEmulator({
      repoDir: join(repo.dir, 'origin.git'),
      tokens: [],
      app: { id: 1234, publicKey: key.publicKey, installationId: 42 },
    });
    try {
      const config = fullConfig({
        discover: [{ glob: 'environments/dev/app' }],
        slack: undefined,
        approvers: undefined,
        pagerduty: undefined,
      });
      const env = (installationId: string) =>
        fullEnv({
          GITHUB_TOKEN: undefined,
          GITHUB_API_URL: app.apiUrl,
          GITHUB_APP_ID: '1234',
          GITHUB_APP_PRIVATE_KEY: key.privateKey.replaceAll('\n', '\\n'),
          GITHUB_APP_INSTALLATION_ID: installationId,
          SLACK_BOT_TOKEN: undefined,
        });
      const installed = await doctor('app', config, env('42'));
      expect(installed.lines).toContain(
        'ok   github acme/infrastructure: GitHub App installation 42 can push and open pull requests',
      );
      expect(installed.code).toBe(0);
      const elsewhere = await doctor('app-elsewhere', config, env('7'));
      expect(elsewhere.lines).toContain(
        "FAIL github acme/infrastructure: mint an installation token failed: GitHub App installation not found (404): check GITHUB_APP_INSTALLATION_ID is an installation of the App GITHUB_APP_ID; fix: set GITHUB_APP_INSTALLATION_ID to the App's installation on this account (the number at the end of its Configure page's address)",
      );
      expect(elsewhere.stdout).not.toContain('PRIVATE KEY');
      expect(elsewhere.code).toBe(1);
    } finally {
      await app.close();
    }
  });

  it('checks change events: the push secret, the SQS queue and a CloudTrail lookup, or what to fix', async () => {
    const sqs = await startSqsEmulator();
    const trail = await startCloudTrailEmulator();
    try {
      const queueUrl = sqs.createQueue('driftgate-events');
      const sender = new SQSClient({
        endpoint: sqs.endpoint,
        region: 'eu-west-1',
        credentials: { accessKeyId: s3.accessKeyId, secretAccessKey: s3.secretAccessKey },
      });
      await sender.send(new SendMessageCommand({ QueueUrl: queueUrl, MessageBody: '{}' }));
      sender.destroy();
      const config = (url: string) =>
        fullConfig({
          discover: [{ glob: 'environments/dev/app' }],
          slack: undefined,
          approvers: undefined,
          pagerduty: undefined,
          changeEvents: {
            secretEnv: 'DRIFTGATE_EVENTS_SECRET',
            sqs: { queueUrl: url, region: 'eu-west-1' },
            cloudTrail: { region: 'eu-west-1' },
          },
        });
      const env = (more: Record<string, string | undefined>) =>
        fullEnv({
          SLACK_BOT_TOKEN: undefined,
          AWS_ENDPOINT_URL_SQS: sqs.endpoint,
          AWS_ENDPOINT_URL_CLOUDTRAIL: trail.endpoint,
          ...more,
        });
      const events = (lines: string[]) => lines.filter((l) => /change events|cloudtrail/.test(l));

      const green = await doctor('events', config(queueUrl), env({ DRIFTGATE_EVENTS_SECRET: EVENTS_SECRET }));
      expect(events(green.lines)).toEqual([
        'ok   change events push: DRIFTGATE_EVENTS_SECRET set: POST /events/aws takes events carrying it',
        `ok   change events queue: ${queueUrl} answers; events waiting: 1`,
        'ok   cloudtrail: LookupEvents answers in eu-west-1',
      ]);
      expect(green.stdout).not.toContain(EVENTS_SECRET);
      expect(green.code).toBe(0);
      // The probe looked for a resource no one has, since an hour ago: the queue's message is still there.
      expect(trail.calls().map((c) => c.status)).toEqual([200]);
      expect(sqs.bodies('driftgate-events')).toEqual(['{}']);

      trail.failNext(2, { type: 'AccessDeniedException', status: 400 });
      const red = await doctor('events-red', config(sqs.queueUrl('no-such-queue')), env({}));
      expect(events(red.lines)).toEqual([
        'FAIL change events push: DRIFTGATE_EVENTS_SECRET (changeEvents.secretEnv) is not set; fix: set DRIFTGATE_EVENTS_SECRET to the secret the EventBridge connection sends in x-driftgate-events-secret',
        expect.stringMatching(
          /^FAIL change events queue: .*no-such-queue: .*; fix: check changeEvents.sqs.queueUrl, and allow driftgate's credentials sqs:ReceiveMessage, sqs:DeleteMessage and sqs:GetQueueAttributes on it$/,
        ),
        expect.stringMatching(
          /^FAIL cloudtrail: LookupEvents in eu-west-1: .*AccessDeniedException.*; fix: allow driftgate's credentials cloudtrail:LookupEvents/,
        ),
      ]);
      expect(red.code).toBe(1);
    } finally {
      await sqs.close();
      await trail.close();
    }
  });

  it('checks a worker of a pool with --pool: its stacks and CloudTrail in its region, not the bot’s services', async () => {
    const trail = await startCloudTrailEmulator();
    try {
      const config = fullConfig({
        store: { type: 'postgres', url: '${DATABASE_URL}' },
        runners: { type: 'workers' },
        // Local stacks: a worker checks them in their dirs here.
        source: undefined,
        discover: [
          { glob: 'environments/dev/app', namePrefix: 'dev/', pool: 'dev' },
          { glob: 'environments/prod/app', namePrefix: 'prod/', pool: 'prod' },
        ],
        changeEvents: { secretEnv: 'DRIFTGATE_EVENTS_SECRET' },
      });
      // What both hold: the pool's cloud, none of the bot's secrets.
      const env = {
        ...fullEnv(),
        SLACK_BOT_TOKEN: undefined,
        SLACK_SIGNING_SECRET: undefined,
        SLACK_APP_TOKEN: undefined,
        GITHUB_TOKEN: undefined,
        PD_ROUTING_KEY_PROD: undefined,
        GITHUB_WEBHOOK_SECRET: undefined,
        AWS_ENDPOINT_URL_CLOUDTRAIL: trail.endpoint,
        AWS_REGION: 'eu-west-2',
      };
      // A worker: the agent API's address and its pool's token, no store. No control plane answers there:
      // that check fails, the others still run.
      const agent = {
        DRIFTGATE_CONTROL_PLANE_URL: `http://127.0.0.1:${await closedPort()}`,
        DRIFTGATE_POOL_TOKEN: 'dgp1_not-a-token-any-control-plane-made',
      };
      const worker = await doctor('worker-dev', config, { ...env, ...agent }, ['--pool', 'dev']);
      expect(worker.lines[0]).toBe(`ok   config: ${worker.file}: 1 stack in pool dev`);
      expect(worker.lines.filter((l) => /^\w+ +stack /.test(l))).toEqual([
        `ok   stack dev/app: ${dir}/environments/dev/app: init and validate ok`,
      ]);
      expect(worker.lines).toContain(
        "skip store, artifacts, slack, github, pagerduty: the control plane's: a worker on the agent API holds none of them",
      );
      expect(worker.lines).toContain('ok   cloudtrail: LookupEvents answers in eu-west-2');
      expect(trail.calls().map((c) => c.region)).toEqual(['eu-west-2']);

      // The control plane's doctor leaves CloudTrail to the workers' and says where to check it.
      const controlPlane = await doctor('control-plane', config, {
        ...env,
        DATABASE_URL: await postgres.createDatabase(),
        DRIFTGATE_EVENTS_SECRET: 'x'.repeat(32),
      });
      expect(controlPlane.lines).toContain(
        "skip cloudtrail: asked by each pool's workers with their credentials: run `driftgate doctor --pool P` there",
      );
      expect(trail.calls()).toHaveLength(1);

      const typo = await doctor('worker-typo', config, { ...env, ...agent }, ['--pool', 'dve']);
      expect(typo.lines).toEqual([
        `FAIL config: ${typo.file}: --pool: pool "dve" has no stacks in this config (its pools: dev, prod): a typo, or a config that disagrees with the control plane's; fix: name a pool the config's stacks are in, with runners: {type: workers}`,
        '1 failed: the other checks need a pool of this config',
      ]);
      expect(typo.code).toBe(1);
    } finally {
      await trail.close();
    }
  });
});
