import { createPrivateKey } from 'node:crypto';
import { z } from 'zod';
import type { ConfigIssue } from '../domain/errors.js';

/**
 * Every environment variable driftgate reads by a fixed name, in one list: what it is, who reads it, its
 * default, whether it is a secret, and how its value is parsed. Nothing here reads process.env: the entry
 * points pass the environment in, and callers get typed values (`readEnvironment`). The table in
 * docs/production.md ("Environment variables") is generated from this list (`environmentTable`).
 */

export type Env = Record<string, string | undefined>;

interface VariableDoc {
  /** The commands (or parts) that read it. */
  readBy: string;
  /** Markdown, for the table. */
  description: string;
  default?: string;
  /** A credential: never logged, never in terraform's environment unless terraform needs it itself. */
  secret: boolean;
  /**
   * driftgate's own credential, never in terraform's environment: a provider or module would see it (and a
   * worker's pool token would let a module take its pool's jobs). AWS keys are secrets terraform may need.
   */
  keptFromTerraform?: true;
}

interface Variable<T extends z.ZodType> extends VariableDoc {
  /** Parses the value as given (undefined when unset); its messages name the rule, never the value. */
  schema: T;
  /** Read as curl reads it: the lowercase name first (`https_proxy`), then this one. */
  lowercaseFirst?: boolean;
}

const variable = <T extends z.ZodType>(v: Variable<T>): Variable<T> => v;

/** An unset variable and an empty one (`GITHUB_TOKEN=` in a compose file) mean the same. */
const emptyIsUnset = <T extends z.ZodType>(schema: T) =>
  z.preprocess((v) => (v === '' ? undefined : v), schema.optional());
const text = () => emptyIsUnset(z.string());

/** Secret stores often keep a PEM on one line with literal `\n`s. */
const pem = (value: string) => value.replace(/\\n/g, '\n').trim();

function isPrivateKey(value: string): boolean {
  try {
    return createPrivateKey(value).asymmetricKeyType === 'rsa';
  } catch {
    return false;
  }
}

/** Where a listener binds: `METRICS_ADDRESS`. */
export interface ListenAddress {
  host: string;
  port: number;
}

const listenAddress = z
  .string()
  .optional()
  .transform((value, ctx): ListenAddress | undefined => {
    const raw = value?.trim();
    if (!raw) return undefined;
    const match = /^(?:\[([0-9a-fA-F:.]+)\]|([^:[\]\s]*)):(\d{1,5})$/.exec(raw);
    const port = match ? Number(match[3]) : Number.NaN;
    if (!match || port > 65_535) {
      ctx.addIssue({
        code: 'custom',
        message: `"${raw}" is not an address to listen on: use host:port (127.0.0.1:9464), [::1]:9464 or :9464`,
      });
      return z.NEVER;
    }
    return { host: match[1] ?? (match[2] || '0.0.0.0'), port };
  });

export const DEFAULT_PAGERDUTY_EVENTS_URL = 'https://events.pagerduty.com/v2/enqueue';
export const DEFAULT_GITHUB_API_URL = 'https://api.github.com';

export const VARIABLES = {
  DRIFTGATE_CONFIG: variable({
    readBy: 'every command',
    description:
      'the config file (or a directory holding `driftgate.yml`) when `--config` is not given; else the nearest `driftgate.yml` in the current directory or above',
    secret: false,
    schema: text(),
  }),
  DRIFTGATE_DATA_DIR: variable({
    readBy: 'every command',
    description:
      'the data dir when the config sets no `dataDir` (else `.driftgate` beside the config); the image sets `/var/lib/driftgate`',
    secret: false,
    schema: text(),
  }),
  PORT: variable({
    readBy: 'serve, worker',
    description:
      'the HTTP port (`--port` wins): `/slack/events`, `/healthz`, `/readyz`, `/metrics`, `/github/webhook`, `/events/aws`',
    default: '`3000`',
    secret: false,
    // Checked with `--port`, which wins over it, so that the message names whichever was used.
    schema: z.string().optional(),
  }),
  METRICS_ADDRESS: variable({
    readBy: 'serve',
    description:
      '`host:port`, `[v6]:port` or `:port`: `/metrics` (and the health routes) listen there instead of on `PORT`, so that Prometheus scrapes from inside the cluster only',
    default: '`/metrics` on `PORT`',
    secret: false,
    schema: listenAddress,
  }),
  SLACK_BOT_TOKEN: variable({
    readBy: 'serve, approve, reject',
    description: 'the bot token (`xoxb-…`); turns the Slack app on ([the Slack app](slack.md))',
    secret: true,
    keptFromTerraform: true,
    schema: z
      .string()
      .regex(/^xoxb-/, "must be a bot token (xoxb-…), from the app's OAuth & Permissions page")
      .optional(),
  }),
  SLACK_SIGNING_SECRET: variable({
    readBy: 'serve',
    description: 'HTTP mode: verifies every request from Slack',
    secret: true,
    keptFromTerraform: true,
    schema: z
      .string()
      .min(
        8,
        "is too short for a signing secret (Slack's are 32 characters): copy it from the app's Basic Information page",
      )
      .optional(),
  }),
  SLACK_APP_TOKEN: variable({
    readBy: 'serve',
    description: 'Socket Mode (`xapp-…`); without it, HTTP mode',
    secret: true,
    keptFromTerraform: true,
    schema: z
      .string()
      .regex(/^xapp-/, "must be an app-level token (xapp-…), from the app's Basic Information page")
      .optional(),
  }),
  SLACK_API_URL: variable({
    readBy: 'serve, doctor, approve, reject',
    description: "Slack's Web API base URL (GovSlack, tests)",
    default: '`https://slack.com/api/`',
    secret: false,
    schema: z.url('must be a URL such as https://slack.com/api/').optional(),
  }),
  GITHUB_TOKEN: variable({
    readBy: 'serve (control plane)',
    description: 'remediation PRs: contents and pull requests write ([remediation](remediation.md))',
    secret: true,
    keptFromTerraform: true,
    schema: emptyIsUnset(z.string().regex(/^\S+$/, 'must be a GitHub token (no spaces or line breaks)')),
  }),
  GITHUB_APP_ID: variable({
    readBy: 'serve (control plane)',
    description: 'a GitHub App instead of a token: its App ID (or client ID, `Iv…`)',
    secret: false,
    schema: emptyIsUnset(
      z.string().regex(/^(\d+|Iv[0-9A-Za-z.]+)$/, "must be the GitHub App's numeric App ID (or its client ID, Iv…)"),
    ),
  }),
  GITHUB_APP_PRIVATE_KEY: variable({
    readBy: 'serve (control plane)',
    description: "the GitHub App's RSA private key in PEM, with line breaks or literal `\\n`",
    secret: true,
    keptFromTerraform: true,
    schema: emptyIsUnset(
      z
        .string()
        .transform(pem)
        .refine(
          isPrivateKey,
          "must be the GitHub App's RSA private key in PEM (-----BEGIN RSA PRIVATE KEY-----…), with line breaks or literal \\n",
        ),
    ),
  }),
  GITHUB_APP_INSTALLATION_ID: variable({
    readBy: 'serve (control plane)',
    description: "the GitHub App installation's numeric id",
    secret: false,
    schema: emptyIsUnset(
      z
        .string()
        .regex(/^[1-9]\d*$/, "must be the App installation's numeric id")
        .transform(Number),
    ),
  }),
  GITHUB_API_URL: variable({
    readBy: 'serve, doctor',
    description: 'GitHub Enterprise Server: `https://<host>/api/v3`',
    default: `\`${DEFAULT_GITHUB_API_URL}\``,
    secret: false,
    schema: emptyIsUnset(
      z.url({
        protocol: /^https?$/,
        error: 'must be an http(s) URL, e.g. https://github.example.com/api/v3 for GitHub Enterprise Server',
      }),
    ),
  }),
  GITHUB_WEBHOOK_SECRET: variable({
    readBy: 'serve, doctor',
    description: 'verifies `/github/webhook` deliveries; unset, the webhook is off',
    secret: true,
    keptFromTerraform: true,
    schema: text(),
  }),
  PAGERDUTY_EVENTS_URL: variable({
    readBy: 'serve',
    description: 'the Events API endpoint (EU region, tests)',
    default: `\`${DEFAULT_PAGERDUTY_EVENTS_URL}\``,
    secret: false,
    schema: z
      .url({ protocol: /^https?$/, error: 'must be an http(s) URL, e.g. https://events.eu.pagerduty.com/v2/enqueue' })
      .default(DEFAULT_PAGERDUTY_EVENTS_URL),
  }),
  AWS_ENDPOINT_URL_SQS: variable({
    readBy: 'serve',
    description: "moves the change events' SQS endpoint",
    secret: false,
    schema: z.string().optional(),
  }),
  AWS_ENDPOINT_URL_CLOUDTRAIL: variable({
    readBy: 'serve, worker',
    description: "moves the change events' CloudTrail endpoint",
    secret: false,
    schema: z.string().optional(),
  }),
  AWS_REGION: variable({
    readBy: 'serve, worker',
    description:
      "the AWS SDK's region; on a worker also where CloudTrail is asked when `changeEvents.cloudTrail.region` is not set",
    secret: false,
    schema: text(),
  }),
  AWS_DEFAULT_REGION: variable({
    readBy: 'worker',
    description: '`AWS_REGION`, when that is not set',
    secret: false,
    schema: text(),
  }),
  AWS_ACCESS_KEY_ID: variable({
    readBy: 'serve, worker, one-shot commands',
    description:
      "static keys for the artifact bucket (with `AWS_SECRET_ACCESS_KEY`); without them the AWS SDK's own chain (profile, SSO, web identity, instance role)",
    secret: true,
    schema: text(),
  }),
  AWS_SECRET_ACCESS_KEY: variable({
    readBy: 'serve, worker, one-shot commands',
    description: 'the secret of `AWS_ACCESS_KEY_ID`',
    secret: true,
    schema: text(),
  }),
  AWS_SESSION_TOKEN: variable({
    readBy: 'serve, worker, one-shot commands',
    description: 'the session token of temporary keys',
    secret: true,
    schema: text(),
  }),
  DRIFTGATE_CONTROL_PLANE_URL: variable({
    readBy: 'worker',
    description: "the control plane's agent API ([scale-out](scale-out.md))",
    secret: false,
    schema: text(),
  }),
  DRIFTGATE_POOL_TOKEN: variable({
    readBy: 'worker',
    description: "its pool's token (`driftgate pool token create`)",
    secret: true,
    keptFromTerraform: true,
    schema: text(),
  }),
  DRIFTGATE_POOL: variable({
    readBy: 'worker',
    description: 'its pool when `--pool` is not given',
    secret: false,
    schema: text(),
  }),
  HTTPS_PROXY: variable({
    readBy: 'every command',
    description:
      'the proxy for Slack, GitHub, PagerDuty and AWS calls, tunnelled with CONNECT ([egress through a proxy](#egress-through-a-proxy)); `https_proxy` wins; terraform and git read them too',
    secret: false,
    schema: text(),
    lowercaseFirst: true,
  }),
  HTTP_PROXY: variable({
    readBy: 'every command',
    description: 'the proxy when `HTTPS_PROXY` is not set; `http_proxy` wins',
    secret: false,
    schema: text(),
    lowercaseFirst: true,
  }),
  NO_PROXY: variable({
    readBy: 'every command',
    description: 'hosts reached without the proxy: `127.0.0.1,.svc,.cluster.local`; `no_proxy` wins',
    secret: false,
    schema: text(),
    lowercaseFirst: true,
  }),
  NO_COLOR: variable({
    readBy: 'check, status, demo',
    description: 'set to anything: no colour in the diff on a terminal',
    secret: false,
    schema: z
      .string()
      .optional()
      .transform((v) => Boolean(v)),
  }),
  USER: variable({
    readBy: 'approve, reject, unlock, pool, baseline',
    description: 'who a command is audited as (`cli:<user>`)',
    default: 'the OS user',
    secret: false,
    schema: z.string().optional(),
  }),
  PATH: variable({
    readBy: 'every command',
    description: 'where `terraform` (or `tofu`) and driftgate itself are found',
    secret: false,
    schema: z.string().optional(),
  }),
} as const;

export type VariableName = keyof typeof VARIABLES;
export type VariableValue<N extends VariableName> = z.output<(typeof VARIABLES)[N]['schema']>;

/** Variables the config names (or others read: terraform, the AWS SDK, Node), for the table only. */
export const OTHER_VARIABLES: readonly (VariableDoc & { names: string })[] = [
  {
    names: '`PAGERDUTY_ROUTING_KEY_…` (`pagerduty.routing[].routingKeyEnv`)',
    readBy: 'serve',
    description: 'a PagerDuty Events API v2 routing key ([on-call](on-call.md))',
    secret: true,
    keptFromTerraform: true,
  },
  {
    names: `\`DATABASE_URL\` (\`store.url: \${DATABASE_URL}\`)`,
    readBy: 'serve, one-shot commands',
    description: "the Postgres store, as the processes' role",
    secret: true,
    keptFromTerraform: true,
  },
  {
    names: '`DATABASE_OWNER_URL` (`store.ownerUrlEnv`)',
    readBy: "`migrate`, serve's first start",
    description: "the schema owner's role ([Two database roles](#two-database-roles))",
    secret: true,
    keptFromTerraform: true,
  },
  {
    names: '`GIT_TOKEN` (`source.git.tokenEnv`)',
    readBy: 'wherever stacks are checked out',
    description: 'an HTTPS token for the infrastructure repository (read-only is enough)',
    secret: true,
    keptFromTerraform: true,
  },
  {
    names: '`DRIFTGATE_EVENTS_SECRET` (`changeEvents.secretEnv`)',
    readBy: 'serve',
    description: 'the push secret of `POST /events/aws`, 32 characters or more ([change events](change-events.md))',
    secret: true,
    keptFromTerraform: true,
  },
  {
    names: '`AWS_PROFILE`, `AWS_WEB_IDENTITY_TOKEN_FILE`, …',
    readBy: 'serve, worker',
    description: "the AWS SDK's own chain: the artifact bucket, SQS, CloudTrail; terraform's providers read theirs",
    secret: false,
  },
  {
    names: '`NODE_EXTRA_CA_CERTS`',
    readBy: 'worker, serve',
    description: "a private CA (the agent API's certificate, a proxy's), read by Node",
    secret: false,
  },
  {
    names: '`TF_*`, `TF_VAR_*`',
    readBy: 'terraform',
    description: "passed to terraform as in its own docs; a stack's `vars` become `TF_VAR_*`",
    secret: false,
  },
];

/** What `readEnvironment` found. */
export interface EnvironmentRead<N extends VariableName> {
  /** Each variable's parsed value; undefined when it is unset or invalid (see `issues`). */
  values: { [K in N]?: VariableValue<K> };
  /** The variables set to something other than the empty string. */
  present: ReadonlySet<N>;
  /** The variables set to something invalid. */
  invalid: ReadonlySet<N>;
  /** One per rule an invalid variable breaks, at `env.<its name>`; never a secret's value. */
  issues: ConfigIssue[];
}

/** The value of `name` as given, for the lowercase-first variables the lowercase one when set. */
function given(env: Env, name: VariableName): string | undefined {
  if (!(VARIABLES[name] as Variable<z.ZodType>).lowercaseFirst) return env[name];
  return env[name.toLowerCase()] || env[name] || undefined;
}

/** The variables `names` of `env`, each parsed by its schema in VARIABLES. */
export function readEnvironment<const N extends VariableName>(env: Env, names: readonly N[]): EnvironmentRead<N> {
  const values: { [K in N]?: VariableValue<K> } = {};
  const present = new Set<N>();
  const invalid = new Set<N>();
  const issues: ConfigIssue[] = [];
  for (const name of names) {
    const raw = given(env, name);
    if (raw !== undefined && raw !== '') present.add(name);
    const parsed = (VARIABLES[name] as Variable<z.ZodType>).schema.safeParse(raw);
    if (parsed.success) {
      if (parsed.data !== undefined) (values as Record<string, unknown>)[name] = parsed.data;
    } else {
      invalid.add(name);
      // Every rule above has its own message; only METRICS_ADDRESS, no secret, quotes what it was given.
      issues.push(...parsed.error.issues.map((i) => ({ path: `env.${name}`, message: i.message })));
    }
  }
  return { values, present, invalid, issues };
}

/** One variable, parsed; undefined when unset or invalid. */
export function environmentValue<N extends VariableName>(env: Env, name: N): VariableValue<N> | undefined {
  return readEnvironment(env, [name]).values[name];
}

/** Whether `name` is set to something other than the empty string, valid or not. */
export function isSet(env: Env, name: VariableName): boolean {
  return readEnvironment(env, [name]).present.has(name);
}

/** The names of the secrets in VARIABLES. */
export function secretVariables(): VariableName[] {
  return (Object.keys(VARIABLES) as VariableName[]).filter((name) => VARIABLES[name].secret);
}

/** driftgate's own credentials, which terraform's environment never holds (`keptFromTerraform`). */
export function keptFromTerraform(): VariableName[] {
  return (Object.keys(VARIABLES) as VariableName[]).filter((name) => VARIABLES[name].keptFromTerraform);
}

const cell = (value: string) => value.replace(/\|/g, '\\|');

/** docs/production.md's table of environment variables. */
export function environmentTable(): string {
  const row = (names: string, doc: VariableDoc) =>
    `| ${cell(names)} | ${cell(doc.readBy)} | ${doc.keptFromTerraform ? 'yes, never to terraform' : doc.secret ? 'yes' : ''} | ${cell(doc.default ?? '')} | ${cell(doc.description)} |`;
  const lines = [
    '| variable | read by | secret | default | what it is |',
    '| --- | --- | --- | --- | --- |',
    ...(Object.keys(VARIABLES) as VariableName[]).map((name) => row(`\`${name}\``, VARIABLES[name])),
    ...OTHER_VARIABLES.map((v) => row(v.names, v)),
  ];
  return `${lines.join('\n')}\n`;
}
