import { STACK_VISIBILITIES, type VisibilityRules } from '../domain/visibility.js';
import { z } from 'zod';
import cron from 'node-cron';
import { POLICY_EFFECTS, type PolicyRule } from '../domain/policy/model.js';
import { MODES, type Mode as StackMode, type Stack } from '../domain/stack.js';
import type { ApproverRules } from '../domain/approvals/model.js';
import { PAGE_SEVERITIES, type PageSeverity, type PagingRules } from '../domain/oncall/model.js';
import { parseDuration } from '../domain/duration.js';
import { AWS_REGION } from '../domain/change-events/describe.js';
import { DEFAULT_POOL, POOL_NAME_PATTERN, POOL_NAME_RULE } from '../domain/pool/pool-name.js';

/**
 * The config file schema (driftgate.yml). Every object is strict, so a typo fails loudly. Every option says
 * what it does with `.describe()`; a default the loader works out (zod fills in none) is `meta.defaultIs`,
 * and `meta.format` names a value's written form. docs/configuration.md's option table is generated from
 * them (src/config/reference.ts), so the reference cannot drift from the parser.
 */

const duration = () =>
  z
    .union([z.string(), z.number()])
    .transform((v, ctx) => {
      const ms = parseDuration(v);
      if (ms === undefined) {
        ctx.addIssue({
          code: 'custom',
          message: `invalid duration ${JSON.stringify(v)} (use e.g. "90s", "15m", "2h", "1d", or seconds)`,
        });
        return z.NEVER;
      }
      return ms;
    })
    .meta({ format: 'duration' });

export const CronExpression = z
  .string()
  .superRefine((v, ctx) => {
    if (!cron.validate(v)) ctx.addIssue({ code: 'custom', message: `invalid cron expression ${JSON.stringify(v)}` });
  })
  .meta({ format: 'cron' });

export const Mode = z.enum(MODES);
export type Mode = StackMode;

const scalar = z.union([z.string(), z.number(), z.boolean()]);
/** terraform variables: scalars as strings, complex values as HCL/JSON objects. */
const VarValue = z.union([scalar, z.array(z.unknown()), z.record(z.string(), z.unknown())]);

const poolName = z.string().regex(POOL_NAME_PATTERN, `a pool name: ${POOL_NAME_RULE}`);

/** Settings a stack can take from the stack entry itself, or from a discovery rule as defaults. */
const StackSettings = {
  pool: poolName
    .optional()
    .describe(
      'With `runners: {type: workers}`: the worker pool that plans and applies it, with its credentials (lowercase letters, digits, dashes)',
    )
    .meta({ defaultIs: '`defaults.pool`' }),
  schedule: CronExpression.optional()
    .describe('When the stack is checked for drift (cron)')
    .meta({ defaultIs: '`defaults.schedule`' }),
  vars: z
    .record(z.string(), VarValue)
    .optional()
    .describe(
      'terraform variables, passed as `TF_VAR_*` in the environment, never in argv; lists and maps as HCL/JSON values',
    ),
  varFiles: z.array(z.string()).optional().describe('`.tfvars` files, relative to the stack dir'),
  env: z
    .record(z.string(), z.string())
    .optional()
    .describe("Environment variables for terraform in this stack (e.g. `AWS_PROFILE`), on top of driftgate's own"),
  workspace: z.string().optional().describe('The terraform workspace').meta({ defaultIs: '`default`' }),
  backendConfig: z
    .record(z.string(), scalar)
    .optional()
    .describe(
      'Backend settings for `terraform init`, written to a private temp file, never argv; no short-lived credentials here',
    ),
  environment: z
    .string()
    .optional()
    .describe(
      'The environment the stack belongs to (e.g. `prod`), as approver rules, on-call, paging and policies match it; a discovered stack takes it from its path',
    ),
  labels: z.array(z.string()).optional().describe('Free labels, seen by policies as `stack.labels`'),
  mode: Mode.optional()
    .describe(
      'What happens to drift: `alert` asks for approval; `auto-minor` applies minor changes by itself; `auto-apply` applies every change',
    )
    .meta({ defaultIs: '`defaults.mode`' }),
  // Aggressive reconciliation of production hides problems and fights people mid-incident.
  allowFrequentAutoApply: z
    .boolean()
    .optional()
    .describe(
      '`mode: auto-apply` on a prod stack checked more often than every 30 minutes is refused unless this is `true`',
    ),
  emptyState: z
    .enum(['report', 'plan'])
    .optional()
    .describe(
      'A plan that would create every resource of a stack whose state holds none: `report` says once that no state was found (a wrong backend or workspace, or a stack never applied); `plan` treats it as a change to approve, so that approving creates the stack',
    )
    .meta({ defaultIs: '`defaults.emptyState`' }),
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
  url: gitUrl.describe('The repository to clone over HTTPS or SSH; no credentials in the URL (see `tokenEnv`)'),
  branch: z.string().min(1).default('main').describe('The branch whose head each check plans'),
  subpath: z.string().min(1).optional().describe("The directory of the repository the stacks' `dir` is relative to"),
  tokenEnv: tokenEnv
    .optional()
    .describe('The name of the environment variable holding an HTTPS token (never the token)'),
  repository: githubRepository
    .optional()
    .describe('The GitHub repository (`owner/name`) remediation PRs are opened in and webhooks come from')
    .meta({ defaultIs: 'read from `url` when it is a GitHub (or GitHub Enterprise) address' }),
});
export type GitSourceConfig = z.infer<typeof GitSourceConfig>;

export const SourceConfig = z
  .strictObject({
    git: GitSourceConfig.describe(
      "A Git repository: each stack's `dir` is a path inside it, and `discover` globs are matched in a checkout of its branch head (below `subpath`) when the config is loaded",
    ),
  })
  .describe('Where the stacks live; unset, they are local directories relative to this file');
export type SourceConfig = z.infer<typeof SourceConfig>;

export const StackEntry = z.strictObject({
  name: stackName.describe('The stack\'s name: letters, digits, ".", "_", "-" and "/" (e.g. `prod/networking`)'),
  dir: z
    .string()
    .min(1)
    .describe("The stack's directory, relative to this file (or with `source.git` to the repository's `subpath`)"),
  source: SourceConfig.optional().describe('Overrides the top-level `source` for this stack'),
  ...StackSettings,
});
export type StackEntry = z.infer<typeof StackEntry>;

export const DiscoverEntry = z.strictObject({
  glob: z
    .string()
    .min(1)
    .describe(
      'Glob of directories relative to this file, or with `source.git` to the repository (below its `subpath`), e.g. `environments/*/*`; each directory with a *.tf file is a stack',
    ),
  exclude: z.array(z.string()).optional().describe('Directories to leave out (globs)'),
  namePrefix: z.string().optional().describe("Put before each discovered stack's name"),
  ...StackSettings,
});
export type DiscoverEntry = z.infer<typeof DiscoverEntry>;

/** An optional AWS region, checked by its name's shape. */
const awsRegion = () => z.string().regex(AWS_REGION, 'an AWS region such as eu-west-1').optional();

const artifactsRetention = () =>
  duration().optional().describe('Older artifacts are deleted daily by `serve`; unset, they are kept');

const LocalArtifacts = z.strictObject({
  type: z.literal('local').describe('files on this machine, mode 0600 in 0700 directories'),
  dir: z.string().optional().describe('Where the files are written').meta({ defaultIs: '`<dataDir>/artifacts`' }),
  retention: artifactsRetention(),
});

const S3Artifacts = z.strictObject({
  type: z.literal('s3').describe('an S3 bucket, every object written with server-side encryption'),
  bucket: z.string().min(1).describe('The bucket'),
  prefix: z.string().default('driftgate/').describe('Put before every object key'),
  region: z.string().min(1).describe("The bucket's AWS region"),
  endpoint: z.url().optional().describe("An S3-compatible store's endpoint"),
  forcePathStyle: z
    .boolean()
    .default(false)
    .describe('Address the bucket in the path, as many S3-compatible stores need'),
  kmsKeyId: z.string().optional().describe('An SSE-KMS key to encrypt objects with; unset, SSE-S3 (AES256)'),
  retention: artifactsRetention(),
});

export const ArtifactsConfig = z
  .discriminatedUnion('type', [LocalArtifacts, S3Artifacts])
  .describe('Where saved plans, plan JSON and logs are kept, each with its sha256');
export type ArtifactsConfig = z.infer<typeof ArtifactsConfig>;

export const TerraformConfig = z
  .strictObject({
    binary: z
      .string()
      .min(1)
      .default('terraform')
      .describe('`terraform`, `tofu`, or a path to either; which one is told by its version output'),
    timeouts: z
      .strictObject({
        plan: duration().prefault('30m').describe('A plan running longer is stopped (SIGINT, then SIGKILL)'),
        apply: duration().prefault('60m').describe('An apply running longer is stopped (SIGINT, then SIGKILL)'),
        lock: duration()
          .prefault('5m')
          .describe('Passed to terraform as `-lock-timeout`: how long to wait for the state lock'),
        killGrace: duration().prefault('30s').describe('Between SIGINT and SIGKILL when a timeout ends terraform'),
      })
      .prefault({})
      .describe('How long terraform may take'),
    pluginCacheDir: z
      .string()
      .optional()
      .describe("The shared provider cache (terraform's `TF_PLUGIN_CACHE_DIR`)")
      .meta({
        defaultIs: '`<dataDir>/plugin-cache`; in `runners.runAs.dir` or `runners.terraformContainer.dir` when set',
      }),
    outputLimitBytes: z
      .number()
      .int()
      .positive()
      .default(1024 * 1024)
      .describe("At most this many bytes of each command's output are kept (the tail)"),
  })
  .describe('How terraform (or OpenTofu) is run');
export type TerraformConfig = z.infer<typeof TerraformConfig>;

export const DefaultsConfig = z
  .strictObject({
    schedule: CronExpression.default('0 * * * *').describe('When a stack that sets no `schedule` is checked (cron)'),
    // So that 300 stacks do not start in the same second.
    jitter: duration().prefault('60s').describe('A random delay added to each scheduled start'),
    concurrency: z
      .number()
      .int()
      .positive()
      .optional()
      .describe('Plans run at once')
      .meta({ defaultIs: 'the number of CPU cores' }),
    mode: Mode.default('alert').describe(
      'The mode of a stack that sets none: `alert`, `auto-minor` or `auto-apply` (docs/policies.md)',
    ),
    snooze: duration()
      .prefault('24h')
      .describe(
        'Drift seen again with the same fingerprint is not alerted again this long; also how long a rejected drift stays quiet',
      ),
    maxPlanAge: duration()
      .prefault('4h')
      .describe('How long a reviewed plan stays applyable; an older one is planned anew'),
    lockTtl: duration()
      .prefault('2m')
      .describe(
        "How long a stack lock outlives its holder's last heartbeat (renewed every third of it); it is broken only once its process is gone too",
      ),
    shutdownTimeout: duration()
      .prefault('2m')
      .describe('How long SIGTERM waits for running plans before marking them interrupted'),
    outboxRetention: duration()
      .prefault('7d')
      .describe('Delivered Slack and PagerDuty outbox items older than this are deleted by the daily retention'),
    outboxDeadRetention: duration()
      .prefault('14d')
      .describe(
        "Outbox items that failed for good (a message Slack refused, a page PagerDuty answered 400) are kept this long, for `driftgate status` to show, then deleted by the leader's daily retention",
      ),
    notConvergingAfter: z
      .number()
      .int()
      .min(2)
      .default(12)
      .describe(
        'After this many checks in a row with the same plan, the stack is named as not converging (a perpetual diff), once',
      ),
    pool: poolName
      .default(DEFAULT_POOL)
      .describe("A stack's worker pool when neither its entry nor its discovery rule names one"),
    emptyState: z
      .enum(['report', 'plan'])
      .default('report')
      .describe('`emptyState` of a stack that sets none (see `stacks[].emptyState`)'),
  })
  .describe('Settings for every stack that does not set its own, and process-wide timings');
export type DefaultsConfig = z.infer<typeof DefaultsConfig>;

const slackUserId = z.string().regex(/^[UW][A-Z0-9]{2,}$/, 'a Slack user id such as U024BE7LH');
const slackChannelId = z.string().regex(/^[CGD][A-Z0-9]{2,}$/, 'a Slack channel id such as C024BE7LH (not a #name)');
/** A user group's handle as typed in Slack (`sre-leads` or `@sre-leads`), or its id (`S0614TZR7`). */
const slackUsergroup = z.string().regex(/^@?[a-z0-9][a-z0-9._-]*$|^S[A-Z0-9]{2,}$/, 'a Slack user group handle or id');

export const SlackConfig = z
  .strictObject({
    defaultChannel: slackChannelId.describe(
      'The channel id (`C…`, not a #name) alerts go to unless a `channels` rule matches the stack; invite the bot to it',
    ),
    channels: z
      .array(
        z.strictObject({
          match: z
            .string()
            .min(1)
            .describe('A stack name glob: `prod/*` is one level below prod/, a lone `*` every stack'),
          channel: slackChannelId.describe('The channel id its alerts go to'),
        }),
      )
      .default([])
      .describe('Alert channels by stack; the first match wins'),
    onCall: z
      .strictObject({
        usergroup: slackUsergroup.describe("The user group's id (`S…`, which notifies) or handle"),
        environments: z.array(z.string()).min(1).describe('The environments whose alerts mention it'),
        escalateAfter: duration()
          .optional()
          .describe(
            'Drift in these environments unresolved this long is raised again in its channel, mentioning the group; unset, never',
          ),
      })
      .optional()
      .describe('An on-call user group mentioned in drift alerts for these environments'),
    digestThreshold: z
      .number()
      .int()
      .min(2)
      .default(5)
      .describe(
        'More stacks than this drifting within `digestWindow` (an alert storm) are posted as one digest per channel',
      ),
    digestWindow: duration()
      .prefault('30s')
      .describe(
        'How long alerts are gathered before they are posted, to tell a storm from a single drift; `0s` posts at once',
      ),
    usergroupCacheTtl: duration()
      .prefault('5m')
      .describe("How long a resolved user group membership (and a channel's members, a user's guest flag) is trusted"),
    visibility: z
      .strictObject({
        stacks: z
          .enum(STACK_VISIBILITIES)
          .default('channel-or-approvers')
          .describe(
            "`channel-or-approvers`: members of the stack's alert channel and those who may approve it; `everyone`",
          ),
        guests: z.boolean().default(false).describe('Whether Slack guests may read any stack'),
      })
      .prefault({})
      .describe(
        "Who may read a stack's plans, errors and audit in `/drift show`, `/drift status` and the App Home",
      ) satisfies z.ZodType<VisibilityRules>,
  })
  .describe('Where alerts go and who reads them; Slack itself is turned on by `SLACK_BOT_TOKEN` (docs/slack.md)');
export type SlackConfig = z.infer<typeof SlackConfig>;

export const ApproversConfig = z
  .strictObject({
    groups: z
      .record(
        z.string().regex(/^[a-z0-9][a-z0-9_-]*$/, 'group names use lowercase letters, digits, "_" and "-"'),
        z.strictObject({
          users: z.array(slackUserId).default([]).describe('Slack user ids (`U…`)'),
          usergroups: z.array(slackUsergroup).default([]).describe('Slack user groups, by handle or id'),
        }),
      )
      .describe('Named groups of people who may approve (lowercase letters, digits, "_" and "-")'),
    // Who may apply is restricted explicitly, never by default.
    rules: z
      .array(
        z.strictObject({
          stacks: z.string().min(1).optional().describe('A stack name glob the rule matches; unset, every stack'),
          environments: z
            .array(z.string())
            .min(1)
            .optional()
            .describe('The environments the rule matches; unset, every environment'),
          count: z.number().int().min(1).max(10).default(1).describe('How many distinct people must approve'),
          from: z.array(z.string()).min(1).describe('The groups (of `groups`) they come from'),
        }),
      )
      .default([])
      .describe(
        'Who approves which stacks; the first match wins, and a stack no rule matches cannot be applied from Slack',
      ),
    authors: z
      .record(z.string(), slackUserId)
      .default({})
      .describe('GitHub login or commit e-mail -> Slack user id: the author of a change cannot approve it'),
    // Off by default: in Slack, Slack proves who clicked; at a terminal `--as` is a claim. Turning it on adds
    // no power to someone who can already write the store.
    allowCli: z
      .boolean()
      .default(false)
      .describe(
        'Whether `driftgate approve|reject RUN --as USER` may decide for an approver (checked against the same rules, audited with the OS user)',
      ),
  })
  .superRefine((value, ctx) => {
    value.rules.forEach((rule, i) => {
      rule.from.forEach((group, j) => {
        if (!(group in value.groups)) {
          ctx.addIssue({ code: 'custom', path: ['rules', i, 'from', j], message: `unknown approver group "${group}"` });
        }
      });
    });
  })
  .describe('Who may approve a plan in Slack (docs/slack.md)') satisfies z.ZodType<ApproverRules>;
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

export const PagerdutyConfig = z
  .strictObject({
    routing: z
      .array(
        z.strictObject({
          environments: z
            .array(z.string())
            .min(1)
            .optional()
            .describe('The environments the rule matches; unset, every environment'),
          stacks: z.string().min(1).optional().describe('A stack name glob the rule matches; unset, every stack'),
          routingKeyEnv: routingKeyEnv.describe(
            'The name of the environment variable holding the Events API v2 routing key (never the key)',
          ),
        }),
      )
      .min(1)
      .describe('Which stacks page where; the first match wins, and a stack no rule matches never pages'),
    severity: z
      .record(z.string(), PagerdutySeverity)
      .default({})
      .describe(
        'Environment -> PagerDuty severity; an environment not listed (or a stack without one) pages as `error`',
      ),
  })
  .describe('Paging new drift through PagerDuty (docs/on-call.md)') satisfies z.ZodType<PagingRules>;
export type PagerdutyConfig = z.infer<typeof PagerdutyConfig>;

export const GithubConfig = z
  .strictObject({
    labels: z
      .array(z.string().min(1).max(50))
      .default(['driftgate'])
      .describe('Added to every remediation PR; GitHub creates labels that do not exist yet'),
    draft: z.boolean().default(false).describe('Open remediation PRs as drafts'),
  })
  .describe(
    'Remediation pull requests, on when `GITHUB_TOKEN` or a GitHub App is set in the environment (docs/remediation.md)',
  );
export type GithubConfig = z.infer<typeof GithubConfig>;

/** A policy rule (see domain/policy/model.ts); its expressions are compiled by the loader, not here. */
export const PolicyRuleEntry = z.strictObject({
  name: z.string().min(1).describe('Names the rule in messages, `check` and the audit'),
  description: z.string().optional().describe('Shown as written when the rule has no `message`'),
  scope: z
    .enum(['resource', 'plan'])
    .default('resource')
    .describe('`resource`: `when` is evaluated once per resource change, with `resource` bound; `plan`: once per plan'),
  when: z.string().min(1).describe('A CEL expression that is true when the rule applies'),
  message: z.string().optional().describe('Shown to people; its `{{ expr }}` parts are CEL, evaluated like `when`'),
  effect: z.enum(POLICY_EFFECTS).describe('`deny`, `require_approval`, `warn`, `minor` or `ignore` (docs/policies.md)'),
  count: z.number().int().min(1).max(10).optional().describe('`require_approval`: how many distinct approvals'),
  from: z.array(z.string().min(1)).min(1).optional().describe('`require_approval`: the approver groups they come from'),
}) satisfies z.ZodType<PolicyRule>;

/** A policy file: `rules:` and nothing else. */
export const PolicyFile = z.strictObject({ rules: z.array(PolicyRuleEntry) });

export const PoliciesConfig = z
  .strictObject({
    files: z
      .array(z.string().min(1))
      .default([])
      .describe(
        'YAML policy files (`rules:` and nothing else), relative to this file; their rules come before the inline ones',
      ),
    rules: z.array(PolicyRuleEntry).default([]).describe('Inline rules, in order'),
  })
  .describe('Rules over each plan, in CEL (docs/policies.md)');
export type PoliciesConfig = z.infer<typeof PoliciesConfig>;

/** An ARN or an ARN glob (`*` within a segment, `**` across `/`): principals are named by ARN. */
const arnGlob = z
  .string()
  .regex(/^arn:(\*|aws[a-z-]*):/, 'an IAM ARN or ARN glob, e.g. "arn:aws:iam::*:role/driftgate-apply"');

/** The region AWS writes in an SQS queue URL (`https://sqs.eu-west-1.amazonaws.com/...`). */
export function sqsQueueRegion(queueUrl: string): string | undefined {
  return /^https:\/\/sqs\.([a-z0-9-]+)\.amazonaws\.com(\.cn)?\//.exec(queueUrl)?.[1];
}

/** The push secret comes from the environment only. */
export const ChangeEventsConfig = z
  .strictObject({
    secretEnv: z
      .string()
      .regex(/^[A-Za-z_][A-Za-z0-9_]*$/, 'the name of an environment variable, e.g. DRIFTGATE_EVENTS_SECRET')
      .refine(
        (v) => !/^[A-Za-z0-9_]{40,}$/.test(v),
        'looks like a secret itself: name the environment variable that holds it',
      )
      .optional()
      .describe(
        'Push: the name of the environment variable holding the shared secret of `POST /events/aws` (32 characters or more), never the secret',
      ),
    secretHeader: z
      .string()
      .regex(/^[A-Za-z0-9-]+$/, 'an HTTP header name, e.g. x-driftgate-events-secret')
      .default('x-driftgate-events-secret')
      .describe("The header the push secret comes in (an EventBridge connection's API key name)"),
    sqs: z
      .strictObject({
        queueUrl: z
          .url({
            protocol: /^https?$/,
            error: 'an SQS queue URL, e.g. https://sqs.eu-west-1.amazonaws.com/111122223333/driftgate-events',
          })
          .describe('The queue URL'),
        region: awsRegion()
          .describe("The queue's AWS region; `AWS_ENDPOINT_URL_SQS` moves the endpoint")
          .meta({ defaultIs: 'the region in the queue URL' }),
        waitTime: z.number().int().min(1).max(20).default(20).describe('Long-poll wait per receive, 1 to 20 seconds'),
      })
      .optional()
      .describe('Pull: the SQS queue the EventBridge rule targets'),
    ownIdentities: z
      .array(arnGlob)
      .default([])
      .describe("The identities driftgate's own applies run as (ARN globs): their calls are not drift"),
    automation: z
      .array(
        z.strictObject({
          name: z
            .string()
            .regex(/^[a-z0-9][a-z0-9_-]*$/, 'lowercase letters, digits, "_" and "-"')
            .describe('Names it where it is counted'),
          arn: arnGlob.describe('Its ARN glob (`*` within a segment, `**` across `/`)'),
        }),
      )
      .default([])
      .describe('Principals whose changes are expected (autoscalers, a cost tool): counted, never checked'),
    // Other role sessions are never mentioned: their name is chosen by whoever assumes the role.
    slackUsers: z
      .record(z.string().min(1), slackUserId)
      .default({})
      .describe(
        "An IAM user's ARN, an Identity Center session's ARN or its name (the user's e-mail) -> Slack user id, to mention who made a change",
      ),
    debounce: duration()
      .prefault('2m')
      .describe("Events for one stack within this window make one check (a console session's clicks)"),
    // A replay or a message held back long is not acted on; the scheduled check finds its drift.
    maxEventAge: duration()
      .prefault('1h')
      .refine((ms) => ms >= 5 * 60_000, 'at least 5m: CloudTrail takes up to about 5 minutes to deliver an event')
      .describe(
        "Events older than this by their own time are refused (push: 400; SQS: deleted), as are events more than 5 minutes ahead of driftgate's clock; at least 5m, as CloudTrail takes up to about 5 minutes to deliver an event",
      ),
    cloudTrail: z
      .strictObject({
        lookup: z
          .boolean()
          .default(true)
          .describe('For drift a scheduled check finds: ask CloudTrail LookupEvents who changed the drifted resources'),
        region: awsRegion()
          .describe('Where CloudTrail is asked')
          .meta({ defaultIs: "the SQS queue's region; on a worker, its `AWS_REGION` (its pool's)" }),
      })
      .prefault({})
      .describe('Who changed the resources of drift no change event announced'),
  })
  .superRefine((value, ctx) => {
    if (value.sqs && !value.sqs.region && !sqsQueueRegion(value.sqs.queueUrl))
      ctx.addIssue({
        code: 'custom',
        path: ['sqs', 'region'],
        message: 'the queue URL names no AWS region: set sqs.region',
      });
  })
  .describe(
    'Cloud change events (AWS CloudTrail through EventBridge): a stack is checked soon after a change to a resource it manages, and its drift alert says who made it (docs/change-events.md)',
  );
export type ChangeEventsConfig = z.infer<typeof ChangeEventsConfig>;

export const DEFAULT_OWNER_URL_ENV = 'DATABASE_OWNER_URL';

/** The URL holds a password: messages never repeat it. */
export const StoreConfig = z
  .discriminatedUnion('type', [
    z.strictObject({ type: z.literal('sqlite').describe('a SQLite file, `<dataDir>/driftgate.db`, for one machine') }),
    z.strictObject({
      type: z
        .literal('postgres')
        .describe('Postgres, shared by several `serve` replicas, workers and one-shot commands'),
      url: z
        .string()
        .regex(
          /^postgres(ql)?:\/\/\S+$/,
          `a Postgres URL, postgres://user:password@host:5432/database (write it as \${DATABASE_URL})`,
        )
        .describe(
          `postgres://user:password@host:5432/database, as the processes' role; write it as \`\${DATABASE_URL}\`, so that it comes from the environment and is masked`,
        ),
      poolSize: z
        .number()
        .int()
        .min(1)
        .max(100)
        .default(10)
        .describe('Connections each process keeps at most; one per transaction in progress'),
      ownerUrlEnv: z
        .string()
        .regex(/^[A-Za-z_][A-Za-z0-9_]*$/, 'the name of an environment variable, e.g. DATABASE_OWNER_URL')
        .optional()
        .describe(
          'The environment variable holding the schema owner role\'s URL: `driftgate migrate` and a serve that has it make and migrate the schema as that role (docs/production.md: "Two database roles")',
        )
        .meta({ defaultIs: `\`${DEFAULT_OWNER_URL_ENV}\`` }),
    }),
  ])
  .describe('Where runs, locks, approvals, the audit and the outbox are kept');
export type StoreConfig = z.infer<typeof StoreConfig>;

/** Apart from Slack's port, so that a network policy can let workers reach it and nothing else. */
export const AgentApiConfig = z
  .strictObject({
    port: z
      .number()
      .int()
      .min(0)
      .max(65_535)
      .default(3001)
      .describe('Its port; `serve --agent-port N` overrides it for one process'),
    // Each waits for a worker's terraform most of its time.
    concurrency: z
      .number()
      .int()
      .min(1)
      .max(1_000)
      .default(32)
      .describe(
        "Checks and applies the control plane runs at once: at least the pools' workers' capacity, so that none of them waits for the control plane",
      ),
    queueWait: duration()
      .prefault('30m')
      .describe('How long a job may wait for a worker of its pool before its check fails and says so'),
    host: z.string().min(1).optional().describe('The address to listen on').meta({ defaultIs: 'every interface' }),
    tls: z
      .strictObject({
        certFile: z.string().min(1).describe('The certificate, PEM, relative to this file'),
        keyFile: z.string().min(1).describe('Its private key, PEM, relative to this file'),
      })
      .optional()
      .describe('HTTPS only, with these files (a mounted Secret)'),
  })
  .describe("The control plane's port for workers, which authenticate with their pool's token (docs/scale-out.md)");
export type AgentApiConfig = z.infer<typeof AgentApiConfig>;

/**
 * So that terraform (and every module, provisioner and provider it starts) cannot read the driftgate process
 * that runs it: its environment, memory, token and data dir. Stack dirs must be readable and writable by this
 * user (terraform writes `.terraform`, the lock file and a local backend's state there).
 */
export const RunAsConfig = z
  .strictObject({
    uid: z.number().int().positive('a uid other than root (0)').describe('Its uid, not 0'),
    gid: z.number().int().positive('a gid other than root (0)').describe('Its gid, not 0'),
    dir: z
      .string()
      .optional()
      .describe("The user's own dir: HOME, plugin cache, plan files and Git stacks' copies in passing")
      .meta({ defaultIs: '`<dataDir>-terraform`, beside the data dir' }),
  })
  .describe(
    'terraform runs as this user and group, apart from driftgate, which must then start as root or hold CAP_SETUID, CAP_SETGID, CAP_CHOWN, CAP_KILL and CAP_DAC_OVERRIDE (docs/security.md)',
  );
export type RunAsConfig = z.infer<typeof RunAsConfig>;

/** Each job's files (its Git checkout, plans, backend config) pass through `dir`; the worker's data dir stays its own. */
export const TerraformContainerConfig = z
  .strictObject({
    dir: z.string().min(1).describe('The shared emptyDir, mounted at the same path in both containers'),
    socket: z.string().min(1).optional().describe("The runner's socket").meta({ defaultIs: '`<dir>/terraform.sock`' }),
  })
  .describe(
    "On each worker in Kubernetes: terraform runs in a second container of the worker's pod (`driftgate terraform-runner --dir DIR`), with its own uid and none of the worker's secrets, through a Unix socket in `dir` (docs/security.md)",
  );
export type TerraformContainerConfig = z.infer<typeof TerraformContainerConfig>;

export const RunnersConfig = z
  .discriminatedUnion('type', [
    z.strictObject({
      type: z.literal('local').describe('`serve` runs terraform itself'),
      runAs: RunAsConfig.optional(),
    }),
    z.strictObject({
      type: z
        .literal('workers')
        .describe(
          "`driftgate worker --pool NAME` processes, each pool with its own cloud credentials, take their pool's jobs from the control plane's agent API (needs store postgres and artifacts s3; docs/scale-out.md)",
        ),
      runAs: RunAsConfig.optional(),
      terraformContainer: TerraformContainerConfig.optional(),
      workerStaleAfter: duration()
        .prefault('30s')
        .describe('A worker whose last heartbeat is older than this no longer counts as live'),
      unservedAlertAfter: duration()
        .prefault('5m')
        .describe('Work waiting this long in a pool with no live worker is said in Slack, once'),
      agent: AgentApiConfig.prefault({}),
    }),
  ])
  .describe('Where terraform runs');
export type RunnersConfig = z.infer<typeof RunnersConfig>;

export const ConfigFile = z.strictObject({
  version: z.literal(1).describe('The config format; `1`'),
  dataDir: z
    .string()
    .optional()
    .describe(
      'The SQLite store, local artifacts and scratch space; a config file mounted read-only (a ConfigMap) needs it or `DRIFTGATE_DATA_DIR`',
    )
    .meta({
      defaultIs:
        '`$DRIFTGATE_DATA_DIR` (the container image sets it to its volume), else `.driftgate` beside this file',
    }),
  terraform: TerraformConfig.prefault({}),
  artifacts: ArtifactsConfig.default({ type: 'local' }),
  store: StoreConfig.default({ type: 'sqlite' }),
  runners: RunnersConfig.default({ type: 'local' }),
  defaults: DefaultsConfig.prefault({}),
  source: SourceConfig.optional(),
  stacks: z
    .array(StackEntry)
    .default([])
    .describe(
      'The stacks, each a terraform root module; a stack listed here wins over a discovered one of the same name',
    ),
  discover: z
    .array(DiscoverEntry)
    .default([])
    .describe(
      'Rules that make a stack of every matching directory holding *.tf files; any stack setting applies to every stack a rule finds',
    ),
  slack: SlackConfig.optional(),
  approvers: ApproversConfig.optional(),
  pagerduty: PagerdutyConfig.optional(),
  github: GithubConfig.optional(),
  policies: PoliciesConfig.optional(),
  changeEvents: ChangeEventsConfig.optional(),
  log: z
    .strictObject({
      level: z
        .enum(['trace', 'debug', 'info', 'warn', 'error', 'fatal', 'silent'])
        .default('info')
        .describe('The least severe level written'),
    })
    .prefault({})
    .describe("driftgate's own log"),
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
