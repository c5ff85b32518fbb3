import { STACK_VISIBILITIES, type VisibilityRules } from '../domain/visibility.js';
import { z } from 'zod';
import cron from 'node-cron';
import { POLICY_EFFECTS, type PolicyRule } from '../domain/policy/model.js';
import { MODES, type Mode as StackMode, type Stack } from '../domain/stack.js';
import type { ApproverRules } from '../domain/approvals/model.js';
import { PAGE_SEVERITIES, type PageSeverity, type PagingRules } from '../domain/oncall/model.js';
import { parseDuration } from '../domain/duration.js';
import { DEFAULT_POOL, POOL_NAME_PATTERN, POOL_NAME_RULE } from '../domain/pool/pool-name.js';

/**
 * The config file schema (driftgate.yml). Every object is strict, so a typo fails loudly. Later features
 * (slack, approvers, policies, github, pagerduty) add optional top-level sections; nothing here needs to
 * change shape for them.
 */

const duration = () =>
  z.union([z.string(), z.number()]).transform((v, ctx) => {
    const ms = parseDuration(v);
    if (ms === undefined) {
      ctx.addIssue({
        code: 'custom',
        message: `invalid duration ${JSON.stringify(v)} (use e.g. "90s", "15m", "2h", "1d", or seconds)`,
      });
      return z.NEVER;
    }
    return ms;
  });

export const CronExpression = z.string().superRefine((v, ctx) => {
  if (!cron.validate(v)) ctx.addIssue({ code: 'custom', message: `invalid cron expression ${JSON.stringify(v)}` });
});

export const Mode = z.enum(MODES);
export type Mode = StackMode;

const scalar = z.union([z.string(), z.number(), z.boolean()]);
/** terraform variables: scalars as strings, complex values as HCL/JSON objects. */
const VarValue = z.union([scalar, z.array(z.unknown()), z.record(z.string(), z.unknown())]);

const poolName = z.string().regex(POOL_NAME_PATTERN, `a pool name: ${POOL_NAME_RULE}`);

/** Settings a stack can take from the stack entry itself, or from a discovery rule as defaults. */
const StackSettings = {
  /** With `runners: {type: workers}`: the worker pool that plans and applies it (its credentials). */
  pool: poolName.optional(),
  schedule: CronExpression.optional(),
  vars: z.record(z.string(), VarValue).optional(),
  varFiles: z.array(z.string()).optional(),
  env: z.record(z.string(), z.string()).optional(),
  workspace: z.string().optional(),
  backendConfig: z.record(z.string(), scalar).optional(),
  environment: z.string().optional(),
  labels: z.array(z.string()).optional(),
  mode: Mode.optional(),
  /**
   * `mode: auto-apply` on a prod stack checked more often than every 30 minutes is refused: aggressive
   * reconciliation of production hides problems and fights people mid-incident. This says it is meant.
   */
  allowFrequentAutoApply: z.boolean().optional(),
  /**
   * A plan that would create every resource of a stack whose state holds none: `report` says once that
   * no state was found (a wrong backend or workspace, or a stack never applied); `plan` treats it as a
   * change to approve, so that approving creates the stack.
   */
  emptyState: z.enum(['report', 'plan']).optional(),
};

const stackName = z
  .string()
  .regex(/^[A-Za-z0-9][A-Za-z0-9._/-]*$/, 'stack names use letters, digits, ".", "_", "-" and "/"');

/** A variable's name, never its value: a Git token is a secret and comes from the environment only. */
const tokenEnv = z
  .string()
  .regex(/^[A-Za-z_][A-Za-z0-9_]*$/, 'the name of an environment variable, e.g. GIT_TOKEN')
  // A token pasted here by mistake: refuse it without echoing it.
  .refine(
    (v) => !/^(ghp_|gho_|ghs_|github_pat_|glpat-)/.test(v) && !/^[A-Za-z0-9_]{40,}$/.test(v),
    'looks like a token itself: name the environment variable that holds it',
  );

/** Credentials in a URL would reach argv, the clone's config and logs: they come from `tokenEnv` only. */
const gitUrl = z
  .string()
  .min(1)
  .refine(
    (v) => !/^[a-z][a-z0-9+.-]*:\/\/[^/@]*:[^/@]*@/i.test(v),
    'no credentials in the URL: put the token in an environment variable and name it in tokenEnv',
  );

const githubRepository = z
  .string()
  .regex(/^[A-Za-z0-9_.-]+\/[A-Za-z0-9_.-]+$/, 'owner/name of a GitHub repository, e.g. acme/infrastructure');

export const GitSourceConfig = z.strictObject({
  url: gitUrl,
  branch: z.string().min(1).default('main'),
  /** The stacks' `dir` is relative to this directory of the repository. */
  subpath: z.string().min(1).optional(),
  /** Name of the environment variable holding an HTTPS token. */
  tokenEnv: tokenEnv.optional(),
  /**
   * The GitHub repository (`owner/name`) remediation PRs are opened in and webhooks come from. Default:
   * read from `url` when it is a GitHub (or GitHub Enterprise) address.
   */
  repository: githubRepository.optional(),
});
export type GitSourceConfig = z.infer<typeof GitSourceConfig>;

/** Absent: stacks are local directories. `git`: each stack's `dir` is a path inside that repository. */
export const SourceConfig = z.strictObject({ git: GitSourceConfig });
export type SourceConfig = z.infer<typeof SourceConfig>;

export const StackEntry = z.strictObject({
  name: stackName,
  dir: z.string().min(1),
  /** Overrides the top-level `source` for this stack. */
  source: SourceConfig.optional(),
  ...StackSettings,
});
export type StackEntry = z.infer<typeof StackEntry>;

export const DiscoverEntry = z.strictObject({
  /**
   * Glob of directories relative to the config file, or with `source.git` to the repository (its
   * `subpath`), e.g. `environments/*\/*`; each dir with a *.tf file is a stack.
   */
  glob: z.string().min(1),
  /** Directories to leave out (globs). */
  exclude: z.array(z.string()).optional(),
  /** Name prefix for discovered stacks. */
  namePrefix: z.string().optional(),
  ...StackSettings,
});
export type DiscoverEntry = z.infer<typeof DiscoverEntry>;

const LocalArtifacts = z.strictObject({
  type: z.literal('local'),
  dir: z.string().optional(),
  retention: duration().optional(),
});

const S3Artifacts = z.strictObject({
  type: z.literal('s3'),
  bucket: z.string().min(1),
  prefix: z.string().default('driftgate/'),
  region: z.string().min(1),
  endpoint: z.url().optional(),
  forcePathStyle: z.boolean().default(false),
  /** SSE-KMS key; without it objects are written with SSE-S3 (AES256). */
  kmsKeyId: z.string().optional(),
  retention: duration().optional(),
});

export const ArtifactsConfig = z.discriminatedUnion('type', [LocalArtifacts, S3Artifacts]);
export type ArtifactsConfig = z.infer<typeof ArtifactsConfig>;

export const TerraformConfig = z.strictObject({
  /** `terraform`, `tofu`, or a path to either. */
  binary: z.string().min(1).default('terraform'),
  timeouts: z
    .strictObject({
      plan: duration().prefault('30m'),
      apply: duration().prefault('60m'),
      /** Passed to terraform as -lock-timeout: how long to wait for the state lock. */
      lock: duration().prefault('5m'),
      /** Between SIGINT and SIGKILL when a timeout ends terraform. */
      killGrace: duration().prefault('30s'),
    })
    .prefault({}),
  /** Shared provider cache; default `<dataDir>/plugin-cache` (in `runners.runAs.dir` or `runners.terraformContainer.dir` when set). */
  pluginCacheDir: z.string().optional(),
  /** Keep at most this many bytes of each command's output (the tail). */
  outputLimitBytes: z
    .number()
    .int()
    .positive()
    .default(1024 * 1024),
});
export type TerraformConfig = z.infer<typeof TerraformConfig>;

export const DefaultsConfig = z.strictObject({
  schedule: CronExpression.default('0 * * * *'),
  /** Random delay added to each scheduled start so 300 stacks do not start in the same second. */
  jitter: duration().prefault('60s'),
  /** Plans run at once; default: the number of CPU cores. */
  concurrency: z.number().int().positive().optional(),
  mode: Mode.default('alert'),
  /** Drift seen again with the same fingerprint is not re-alerted; Slack snooze after reject. */
  snooze: duration().prefault('24h'),
  /** How long a reviewed plan stays applyable. */
  maxPlanAge: duration().prefault('4h'),
  /** How long a stack lock outlives its holder's last heartbeat; the holder renews it every third of this. */
  lockTtl: duration().prefault('2m'),
  /** How long SIGTERM waits for running plans before marking them interrupted. */
  shutdownTimeout: duration().prefault('2m'),
  /** Delivered Slack and PagerDuty outbox items older than this are deleted by the daily retention. */
  outboxRetention: duration().prefault('7d'),
  /**
   * Outbox items that failed for good (a message Slack refused, a page PagerDuty answered 400) are kept this
   * long, for `driftgate status` to show, then deleted by the leader's daily retention.
   */
  outboxDeadRetention: duration().prefault('14d'),
  /** After this many checks in a row with the same plan, the stack is named as not converging (once). */
  notConvergingAfter: z.number().int().min(2).default(12),
  /** A stack's pool when neither its entry nor its discovery rule names one. */
  pool: poolName.default(DEFAULT_POOL),
  /** See StackSettings.emptyState. */
  emptyState: z.enum(['report', 'plan']).default('report'),
});
export type DefaultsConfig = z.infer<typeof DefaultsConfig>;

const slackUserId = z.string().regex(/^[UW][A-Z0-9]{2,}$/, 'a Slack user id such as U024BE7LH');
const slackChannelId = z.string().regex(/^[CGD][A-Z0-9]{2,}$/, 'a Slack channel id such as C024BE7LH (not a #name)');
/** A user group's handle as typed in Slack (`sre-leads` or `@sre-leads`), or its id (`S0614TZR7`). */
const slackUsergroup = z.string().regex(/^@?[a-z0-9][a-z0-9._-]*$|^S[A-Z0-9]{2,}$/, 'a Slack user group handle or id');

export const SlackConfig = z.strictObject({
  /** Where alerts go unless a `channels` rule matches the stack. */
  defaultChannel: slackChannelId,
  /** First match wins: a stack name glob (`prod/*`) and its channel. */
  channels: z.array(z.strictObject({ match: z.string().min(1), channel: slackChannelId })).default([]),
  /** Mentioned in drift alerts for these environments. */
  onCall: z
    .strictObject({
      usergroup: slackUsergroup,
      environments: z.array(z.string()).min(1),
      /** Drift in these environments unresolved this long is raised again in its channel, mentioning the group. */
      escalateAfter: duration().optional(),
    })
    .optional(),
  /** More stacks than this drifting within `digestWindow` (an alert storm) are posted as one digest per channel. */
  digestThreshold: z.number().int().min(2).default(5),
  /** How long alerts are gathered before they are posted, to tell a storm from a single drift. */
  digestWindow: duration().prefault('30s'),
  /** How long a resolved user group membership (and a channel's members, a user's guest flag) is trusted. */
  usergroupCacheTtl: duration().prefault('5m'),
  /** Who may read a stack's plans, errors and audit in `/drift show`, `/drift status` and the App Home. */
  visibility: z
    .strictObject({
      stacks: z.enum(STACK_VISIBILITIES).default('channel-or-approvers'),
      guests: z.boolean().default(false),
    })
    .prefault({}) satisfies z.ZodType<VisibilityRules>,
});
export type SlackConfig = z.infer<typeof SlackConfig>;

export const ApproversConfig = z
  .strictObject({
    /** Named groups of people who may approve: Slack user ids and user groups. */
    groups: z.record(
      z.string().regex(/^[a-z0-9][a-z0-9_-]*$/, 'group names use lowercase letters, digits, "_" and "-"'),
      z.strictObject({ users: z.array(slackUserId).default([]), usergroups: z.array(slackUsergroup).default([]) }),
    ),
    /**
     * First match wins. A stack no rule matches cannot be applied from Slack: who may apply is
     * restricted explicitly, never by default.
     */
    rules: z
      .array(
        z.strictObject({
          stacks: z.string().min(1).optional(),
          environments: z.array(z.string()).min(1).optional(),
          count: z.number().int().min(1).max(10).default(1),
          from: z.array(z.string()).min(1),
        }),
      )
      .default([]),
    /** GitHub login -> Slack user id: the author of a change cannot approve it. */
    authors: z.record(z.string(), slackUserId).default({}),
    /**
     * Whether `driftgate approve|reject RUN --as USER` may decide for an approver. Off by default: in Slack,
     * Slack proves who clicked; at a terminal `--as` is a claim, checked against the same rules and audited
     * with the OS user, but a claim. Turning it on adds no power to someone who can already write the store.
     */
    allowCli: z.boolean().default(false),
  })
  .superRefine((value, ctx) => {
    value.rules.forEach((rule, i) => {
      rule.from.forEach((group, j) => {
        if (!(group in value.groups)) {
          ctx.addIssue({ code: 'custom', path: ['rules', i, 'from', j], message: `unknown approver group "${group}"` });
        }
      });
    });
  }) satisfies z.ZodType<ApproverRules>;
export type ApproversConfig = z.infer<typeof ApproversConfig>;

export const PagerdutySeverity = z.enum(PAGE_SEVERITIES);
export type PagerdutySeverity = PageSeverity;

/** A variable name, never the key: a routing key is a secret and comes from the environment only. */
const routingKeyEnv = z
  .string()
  .regex(/^[A-Za-z_][A-Za-z0-9_]*$/, 'the name of an environment variable, e.g. PAGERDUTY_ROUTING_KEY_PROD')
  // A 32-character key pasted here by mistake would be a valid-looking name; refuse it without echoing it.
  .refine(
    (v) => !/^[A-Za-z0-9]{32}$/.test(v),
    'looks like a routing key itself: name the environment variable that holds it',
  );

export const PagerdutyConfig = z.strictObject({
  /** First match wins: a stack no rule matches never pages. An absent criterion matches every stack. */
  routing: z
    .array(
      z.strictObject({
        environments: z.array(z.string()).min(1).optional(),
        stacks: z.string().min(1).optional(),
        routingKeyEnv,
      }),
    )
    .min(1),
  /** Environment -> PagerDuty severity; an environment not listed (or a stack without one) pages as `error`. */
  severity: z.record(z.string(), PagerdutySeverity).default({}),
}) satisfies z.ZodType<PagingRules>;
export type PagerdutyConfig = z.infer<typeof PagerdutyConfig>;

/** Remediation PRs; the credentials come from the environment (GITHUB_TOKEN or a GitHub App). */
export const GithubConfig = z.strictObject({
  /** Added to every remediation PR; GitHub creates labels that do not exist yet. */
  labels: z.array(z.string().min(1).max(50)).default(['driftgate']),
  /** Open remediation PRs as drafts. */
  draft: z.boolean().default(false),
});
export type GithubConfig = z.infer<typeof GithubConfig>;

/** A policy rule (see domain/policy/model.ts); its expressions are compiled by the loader, not here. */
export const PolicyRuleEntry = z.strictObject({
  name: z.string().min(1),
  description: z.string().optional(),
  scope: z.enum(['resource', 'plan']).default('resource'),
  when: z.string().min(1),
  message: z.string().optional(),
  effect: z.enum(POLICY_EFFECTS),
  count: z.number().int().min(1).max(10).optional(),
  from: z.array(z.string().min(1)).min(1).optional(),
}) satisfies z.ZodType<PolicyRule>;

/** A policy file: `rules:` and nothing else. */
export const PolicyFile = z.strictObject({ rules: z.array(PolicyRuleEntry) });

export const PoliciesConfig = z.strictObject({
  /** YAML policy files, relative to the config file; their rules come before the inline ones. */
  files: z.array(z.string().min(1)).default([]),
  rules: z.array(PolicyRuleEntry).default([]),
});
export type PoliciesConfig = z.infer<typeof PoliciesConfig>;

/** An ARN or an ARN glob (`*` within a segment, `**` across `/`): principals are named by ARN. */
const arnGlob = z
  .string()
  .regex(/^arn:(\*|aws[a-z-]*):/, 'an IAM ARN or ARN glob, e.g. "arn:aws:iam::*:role/driftgate-apply"');

/** The region AWS writes in an SQS queue URL (`https://sqs.eu-west-1.amazonaws.com/...`). */
export function sqsQueueRegion(queueUrl: string): string | undefined {
  return /^https:\/\/sqs\.([a-z0-9-]+)\.amazonaws\.com(\.cn)?\//.exec(queueUrl)?.[1];
}

/**
 * Cloud change events (AWS CloudTrail through EventBridge): a stack is checked soon after a change to a
 * resource it manages, and its drift alert says who made the change. The push secret comes from the
 * environment only; the SQS endpoint can be moved with the SDK's own AWS_ENDPOINT_URL_SQS.
 */
export const ChangeEventsConfig = z
  .strictObject({
    /** Name of the environment variable holding the shared secret of `POST /events/aws` (push). */
    secretEnv: z
      .string()
      .regex(/^[A-Za-z_][A-Za-z0-9_]*$/, 'the name of an environment variable, e.g. DRIFTGATE_EVENTS_SECRET')
      .refine(
        (v) => !/^[A-Za-z0-9_]{40,}$/.test(v),
        'looks like a secret itself: name the environment variable that holds it',
      )
      .optional(),
    /** The header the push secret comes in (an EventBridge connection's API key name). */
    secretHeader: z
      .string()
      .regex(/^[A-Za-z0-9-]+$/, 'an HTTP header name, e.g. x-driftgate-events-secret')
      .default('x-driftgate-events-secret'),
    /** Pull: the SQS queue the EventBridge rule targets. */
    sqs: z
      .strictObject({
        queueUrl: z.url({
          protocol: /^https?$/,
          error: 'an SQS queue URL, e.g. https://sqs.eu-west-1.amazonaws.com/111122223333/driftgate-events',
        }),
        /** Default: the region in the queue URL. */
        region: z
          .string()
          .regex(/^[a-z]{2}(-[a-z]+)+-\d{1,2}$/, 'an AWS region such as eu-west-1')
          .optional(),
        /** Long-poll wait per receive, 1 to 20 seconds. */
        waitTime: z.number().int().min(1).max(20).default(20),
      })
      .optional(),
    /** The identities driftgate's own applies run as: their calls are not drift. */
    ownIdentities: z.array(arnGlob).default([]),
    /** Principals whose changes are expected (autoscalers, a cost tool): counted, never checked. */
    automation: z
      .array(
        z.strictObject({
          name: z.string().regex(/^[a-z0-9][a-z0-9_-]*$/, 'lowercase letters, digits, "_" and "-"'),
          arn: arnGlob,
        }),
      )
      .default([]),
    /**
     * An IAM user's ARN, an Identity Center session's ARN or its name (the user's e-mail) -> Slack user id.
     * Other role sessions are never mentioned: their name is chosen by whoever assumes the role.
     */
    slackUsers: z.record(z.string().min(1), slackUserId).default({}),
    /** Events for one stack within this window make one check (a console session's clicks). */
    debounce: duration().prefault('2m'),
    /**
     * Events older than this by their own time are refused (push: 400; SQS: deleted), as are events more
     * than 5 minutes ahead of driftgate's clock: a replay or a message held back long is not acted on, and
     * the scheduled check finds its drift. CloudTrail takes up to about 5 minutes to deliver an event.
     */
    maxEventAge: duration()
      .prefault('1h')
      .refine((ms) => ms >= 5 * 60_000, 'at least 5m: CloudTrail takes up to about 5 minutes to deliver an event'),
    /** For drift a scheduled check finds: ask CloudTrail LookupEvents who changed the drifted resources. */
    cloudTrail: z
      .strictObject({
        lookup: z.boolean().default(true),
        region: z
          .string()
          .regex(/^[a-z]{2}(-[a-z]+)+-\d{1,2}$/, 'an AWS region such as eu-west-1')
          .optional(),
      })
      .prefault({}),
  })
  .superRefine((value, ctx) => {
    if (value.sqs && !value.sqs.region && !sqsQueueRegion(value.sqs.queueUrl))
      ctx.addIssue({
        code: 'custom',
        path: ['sqs', 'region'],
        message: 'the queue URL names no AWS region: set sqs.region',
      });
  });
export type ChangeEventsConfig = z.infer<typeof ChangeEventsConfig>;

/**
 * Where the store lives: SQLite in `<dataDir>/driftgate.db` (one process), or Postgres shared by several
 * `serve` replicas and workers. The URL holds a password: write it as `${DATABASE_URL}`, so it comes from
 * the environment and is masked like every interpolated value. Messages never repeat it.
 */
export const StoreConfig = z.discriminatedUnion('type', [
  z.strictObject({ type: z.literal('sqlite') }),
  z.strictObject({
    type: z.literal('postgres'),
    url: z
      .string()
      .regex(
        /^postgres(ql)?:\/\/\S+$/,
        `a Postgres URL, postgres://user:password@host:5432/database (write it as \${DATABASE_URL})`,
      ),
    /** Connections each process keeps at most; one per transaction in progress. */
    poolSize: z.number().int().min(1).max(100).default(10),
    /**
     * The environment variable holding the owner role's URL (docs/production.md: "Two database roles"), default
     * DATABASE_OWNER_URL: `driftgate migrate` and a serve that has it make and migrate the schema as that
     * role and grant the role of `url` only what the processes need. Only the environment holds it.
     */
    ownerUrlEnv: z
      .string()
      .regex(/^[A-Za-z_][A-Za-z0-9_]*$/, 'the name of an environment variable, e.g. DATABASE_OWNER_URL')
      .optional(),
  }),
]);
export const DEFAULT_OWNER_URL_ENV = 'DATABASE_OWNER_URL';
export type StoreConfig = z.infer<typeof StoreConfig>;

/**
 * The agent API: the control plane's own port for workers, which authenticate with their pool's token
 * (`driftgate pool token create POOL`). Apart from Slack's port, so a network policy can let workers reach
 * it and nothing else. With `tls`, HTTPS only: the certificate and key are PEM files (a mounted Secret),
 * relative to the config file's directory.
 */
export const AgentApiConfig = z.strictObject({
  port: z.number().int().min(0).max(65_535).default(3001),
  /**
   * Checks and applies the control plane runs at once (each waits for a worker's terraform most of its
   * time): at least the pools' workers' capacity, so that none of them waits for the control plane.
   */
  concurrency: z.number().int().min(1).max(1_000).default(32),
  /** How long a job may wait for a worker of its pool before its check fails and says so. */
  queueWait: duration().prefault('30m'),
  /** The address to listen on; default every interface. */
  host: z.string().min(1).optional(),
  tls: z.strictObject({ certFile: z.string().min(1), keyFile: z.string().min(1) }).optional(),
});
export type AgentApiConfig = z.infer<typeof AgentApiConfig>;

/**
 * terraform (and every module, provisioner and provider it starts) runs as this user and group, so that
 * it cannot read the driftgate process that runs it: its environment, memory, token and data dir.
 * driftgate must then start as root, or hold CAP_SETUID, CAP_SETGID, CAP_CHOWN, CAP_KILL and
 * CAP_DAC_OVERRIDE; it refuses to start otherwise. Stack dirs must be readable and writable by this user
 * (terraform writes `.terraform`, the lock file and a local backend's state there).
 */
export const RunAsConfig = z.strictObject({
  uid: z.number().int().positive('a uid other than root (0)'),
  gid: z.number().int().positive('a gid other than root (0)'),
  /** The user's own dir (HOME, plugin cache, plan files and Git stacks' copies in passing); default `<dataDir>-terraform`, beside the data dir. */
  dir: z.string().optional(),
});
export type RunAsConfig = z.infer<typeof RunAsConfig>;

/**
 * On a worker in Kubernetes: terraform runs in a second container of the worker's pod
 * (`driftgate terraform-runner --dir DIR`), with its own uid and none of the worker's secrets, reached
 * through a Unix socket in an emptyDir both mount at `dir`. Each job's files (its Git checkout, plans,
 * backend config) pass through `dir`; the worker's data dir stays its own.
 */
export const TerraformContainerConfig = z.strictObject({
  /** The shared emptyDir, mounted at the same path in both containers. */
  dir: z.string().min(1),
  /** The runner's socket; default `<dir>/terraform.sock`. */
  socket: z.string().min(1).optional(),
});
export type TerraformContainerConfig = z.infer<typeof TerraformContainerConfig>;

/**
 * Where terraform runs: in this process (`local`, the default), or on `driftgate worker --pool NAME`
 * processes that take their pool's jobs from the control plane's agent API (`workers`).
 */
export const RunnersConfig = z.discriminatedUnion('type', [
  z.strictObject({ type: z.literal('local'), runAs: RunAsConfig.optional() }),
  z.strictObject({
    type: z.literal('workers'),
    /** On each worker (and `check`): terraform as another user. */
    runAs: RunAsConfig.optional(),
    /** On each worker: terraform in the container beside it, not spawned by the worker. */
    terraformContainer: TerraformContainerConfig.optional(),
    /** A worker whose last heartbeat is older than this no longer counts as live. */
    workerStaleAfter: duration().prefault('30s'),
    /** Work waiting this long in a pool with no live worker is said in Slack, once. */
    unservedAlertAfter: duration().prefault('5m'),
    /** Workers take their jobs here, with their pool's token; on port 3001 unless set. */
    agent: AgentApiConfig.prefault({}),
  }),
]);
export type RunnersConfig = z.infer<typeof RunnersConfig>;

export const ConfigFile = z.strictObject({
  version: z.literal(1),
  /**
   * The store, local artifacts and scratch space. Unset: $DRIFTGATE_DATA_DIR (the container image sets it to
   * its volume), else `.driftgate` beside this file; a file mounted read-only (a ConfigMap) needs one of the two.
   */
  dataDir: z.string().optional(),
  terraform: TerraformConfig.prefault({}),
  artifacts: ArtifactsConfig.default({ type: 'local' }),
  store: StoreConfig.default({ type: 'sqlite' }),
  runners: RunnersConfig.default({ type: 'local' }),
  defaults: DefaultsConfig.prefault({}),
  /**
   * Where the stacks live. With `git`, explicit `stacks` are paths in that repository, and `discover`
   * globs are matched in a checkout of its branch head (below `subpath`) when the config is loaded.
   */
  source: SourceConfig.optional(),
  stacks: z.array(StackEntry).default([]),
  discover: z.array(DiscoverEntry).default([]),
  slack: SlackConfig.optional(),
  approvers: ApproversConfig.optional(),
  pagerduty: PagerdutyConfig.optional(),
  github: GithubConfig.optional(),
  policies: PoliciesConfig.optional(),
  changeEvents: ChangeEventsConfig.optional(),
  log: z
    .strictObject({
      level: z.enum(['trace', 'debug', 'info', 'warn', 'error', 'fatal', 'silent']).default('info'),
    })
    .prefault({}),
});
export type ConfigFile = z.infer<typeof ConfigFile>;

/** The loaded config: file values with defaults applied, paths absolute, stacks resolved. */
export interface DriftgateConfig {
  /** Absolute path of the config file, or undefined when built in code. */
  file?: string;
  /** Values the file took from the environment (`${VAR}`): secrets for masking in every stack's texts. */
  interpolated?: readonly string[];
  /** Read as an agent worker: the variables the control plane's sections name (never a worker's to hold). */
  controlPlaneVariables?: readonly string[];
  /** Directory relative paths are resolved against. */
  baseDir: string;
  dataDir: string;
  /** What chose `dataDir`, for an error about it: the config key, the environment variable or the default. */
  dataDirSetBy?: string;
  terraform: TerraformConfig & { pluginCacheDir: string };
  artifacts: ArtifactsConfig & { dir?: string };
  /** Absent: SQLite, as before the store could be chosen. */
  store?: StoreConfig;
  /** Absent: terraform runs in this process. */
  runners?: RunnersConfig;
  /** `runners.runAs` with its dir made absolute: the user terraform runs as, wherever it runs. */
  runAs?: { uid: number; gid: number; dir: string };
  /** `runners.terraformContainer` with its paths made absolute. */
  terraformContainer?: { dir: string; socket: string };
  defaults: DefaultsConfig & { concurrency: number };
  stacks: Stack[];
  slack?: SlackConfig;
  approvers?: ApproversConfig;
  pagerduty?: PagerdutyConfig;
  github?: GithubConfig;
  changeEvents?: ChangeEventsConfig;
  /** Policy files' rules (in file order), then inline rules; the loader compiled them all once. */
  policies: PolicyRule[];
  log: ConfigFile['log'];
  /** The top-level source; each stack's effective one is Stack.git. */
  source?: SourceConfig;
  /** With `discover` on `source.git`: the commit of its branch the stacks were found in. */
  discoveredAt?: string;
}
