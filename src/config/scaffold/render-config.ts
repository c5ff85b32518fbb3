import { variableEnvName } from '../../domain/variable-env.js';
import { isProductionEnvironment, type DiscoverDraft, type Layout, type StackDraft } from './infer-layout.js';

export interface RenderOptions {
  /** `terraform` or `tofu`: what is on the PATH. */
  binary: string;
  /** The repository's dir name: what the example state keys start with. */
  project: string;
}

/** Settings a partial backend (`backend "s3" {}`) usually leaves to `-backend-config`. */
const BACKEND_KEYS: Record<string, string[]> = {
  s3: ['bucket', 'key', 'region'],
  gcs: ['bucket', 'prefix'],
  azurerm: ['resource_group_name', 'storage_account_name', 'container_name', 'key'],
  remote: ['organization'],
  http: ['address'],
  consul: ['address', 'path'],
  pg: ['conn_str'],
};

const q = (text: string) => JSON.stringify(text);
const list = (values: string[]) => `[${values.map(q).join(', ')}]`;
const count = (n: number, what: string) => `${n} ${what}${n === 1 ? '' : 's'}`;

function examples(names: string[]): string {
  return names.slice(0, 3).join(', ') + (names.length > 3 ? `, … (${names.length})` : '');
}

function backendSummary(backends: Record<string, number>): string {
  return Object.entries(backends)
    .sort(([a], [b]) => (a < b ? -1 : 1))
    .map(([type, n]) => `${type} ${n}`)
    .join(', ');
}

/**
 * The setting that tells one stack's state from another's, with a per-stack placeholder: one value for
 * every stack a rule finds would put them all on one state (which driftgate refuses).
 */
const PER_STACK_SETTING: Record<string, { key: string; value: (project: string) => string }> = {
  s3: { key: 'key', value: (p) => `${p}/\${stack.name}/terraform.tfstate` },
  gcs: { key: 'prefix', value: (p) => `${p}/\${stack.name}` },
  azurerm: { key: 'key', value: (p) => `${p}/\${stack.name}.tfstate` },
  consul: { key: 'path', value: (p) => `${p}/\${stack.name}` },
};

function backendConfigLines(types: string[], indent: string, project: string): string[] {
  if (types.length === 0) return [];
  const keys = BACKEND_KEYS[types[0]!] ?? ['key'];
  const perStack = PER_STACK_SETTING[types[0]!];
  return [
    `${indent}# backend "${types.join('", "')}" {} leaves its settings to init: fill them in (no credentials here,`,
    `${indent}# see docs/configuration.md: "Backend credentials"). Each stack needs its own state: \${stack.name},`,
    `${indent}# \${stack.dir} and \${stack.environment} are filled in per stack. For example:`,
    `${indent}# backendConfig:`,
    ...keys.map((k) =>
      k === perStack?.key ? `${indent}#   ${k}: ${q(perStack.value(project))}` : `${indent}#   ${k}: …`,
    ),
  ];
}

function varsLines(vars: string[], indent: string): string[] {
  if (vars.length === 0) return [];
  return [
    `${indent}# Variables without a default: a plan needs a value for each. Secrets from the environment:`,
    `${indent}# vars:`,
    ...vars.map((v) => `${indent}#   ${v}: \${${variableEnvName(v)}}`),
  ];
}

function ruleLines(rule: DiscoverDraft, project: string): string[] {
  const envs = rule.environments.length ? `, environments ${rule.environments.join(', ')}` : '';
  return [
    `  # ${rule.shape}: ${count(rule.names.length, 'stack')} (${examples(rule.names)})${envs}`,
    `  # state: ${backendSummary(rule.backends)}`,
    `  - glob: ${q(rule.glob)}`,
    ...(rule.exclude.length ? [`    exclude: ${list(rule.exclude)}   # modules and dirs listed under stacks`] : []),
    ...(rule.namePrefix ? [`    namePrefix: ${q(rule.namePrefix)}`] : []),
    ...backendConfigLines(rule.partialBackends, '    ', project),
    ...varsLines(rule.requiredVars, '    '),
  ];
}

function stackLines(stack: StackDraft, project: string): string[] {
  return [
    `  - name: ${q(stack.name)}`,
    `    dir: ${q(stack.dir)}`,
    ...(stack.workspace ? [`    workspace: ${q(stack.workspace)}`] : []),
    ...(stack.environment ? [`    environment: ${q(stack.environment)}`] : []),
    ...(stack.varFiles.length ? [`    varFiles: ${list(stack.varFiles)}`] : []),
    ...backendConfigLines(stack.backend?.partial ? [stack.backend.type] : [], '    ', project),
    ...varsLines(stack.requiredVars, '    '),
  ];
}

function approverLines(layout: Layout): string[] {
  const prod = layout.environments.filter(isProductionEnvironment);
  return [
    '# Who may apply a plan from Slack. A stack no rule covers is alert only: nobody is allowed by default.',
    '# Rules are tried in order; the first whose stacks glob and environments both match applies.',
    'approvers:',
    '  groups:',
    '    platform:',
    '      users: []          # fill in: Slack user ids, e.g. [U024BE7LH]',
    '      usergroups: []     # and/or Slack user group handles, e.g. ["@platform-team"]',
    '  rules:',
    ...(prod.length
      ? [
          `    - environments: ${list(prod)}`,
          '      count: 2           # two different people',
          '      from: [platform]',
        ]
      : []),
    '    - stacks: "*"',
    '      from: [platform]',
  ];
}

const SLACK_LINES = [
  '# Slack: create the app (docs/slack.md), set SLACK_BOT_TOKEN and SLACK_SIGNING_SECRET (or SLACK_APP_TOKEN',
  '# for Socket Mode) in the environment, never here, then uncomment and fill in the channel ids (channel',
  '# details, at the bottom: C…), not #names. Invite the bot to each channel.',
  '# slack:',
  '#   defaultChannel: C0123456789',
  '#   channels:',
  '#     - { match: "prod/*", channel: C0123456789 }',
  '#   onCall:',
  "#     usergroup: S0123456789     # the user group's id (S…, in its Slack profile): a @handle does not ping",
  '#     environments: [prod]',
];

/** The commented driftgate.yml `driftgate init` writes for a layout. */
export function renderConfig(layout: Layout, options: RenderOptions): string {
  const total = layout.rules.reduce((n, r) => n + r.names.length, 0) + layout.stacks.length;
  const shapes = layout.rules.map((r) => r.shape).join(', ');
  const lines = [
    '# driftgate configuration, written by `driftgate init`.',
    `# Found ${count(total, 'stack')}${shapes ? ` (${shapes})` : ''}${layout.environments.length ? `; environments ${layout.environments.join(', ')}` : ''}.`,
    '# Check it with `driftgate validate`, then the whole deployment with `driftgate doctor`.',
    `# Every key is in docs/configuration.md. Secrets come from the environment, as \${VAR}.`,
    'version: 1',
    '',
    '# The SQLite store, saved plans (secrets in clear) and scratch space: by default .driftgate beside this',
    '# file (init added it to .gitignore), or $DRIFTGATE_DATA_DIR where that is set (the container image sets',
    '# it to its volume). Set dataDir only to put it elsewhere.',
    '# dataDir: .driftgate',
    '',
    'terraform:',
    `  binary: ${options.binary}${' '.repeat(Math.max(1, 25 - options.binary.length))}# terraform, tofu, or a path`,
    '  timeouts:',
    '    plan: 30m',
    '    apply: 60m',
    '    lock: 5m                        # how long to wait for the state lock',
    '',
    '# Saved plans, plan JSON and logs. On more than one machine, or in a container, use S3 instead:',
    '#   type: s3, bucket: my-driftgate-artifacts, region: eu-west-1 (credentials from the environment)',
    'artifacts:',
    '  type: local',
    '  retention: 30d',
    '',
    'defaults:',
    '  schedule: "0 * * * *"            # every hour; a rule or stack may set its own schedule',
    '  jitter: 60s                      # random delay, so the stacks do not all start at once',
    '  mode: alert                      # alert | auto-minor | auto-apply',
    '',
    '# Every directory matching a glob that holds *.tf files is a stack, named after its path below the',
    "# glob's fixed part; the first segment of a name with several is its environment (prod/app -> prod).",
    ...(layout.rules.length
      ? ['discover:', ...layout.rules.flatMap((rule) => ruleLines(rule, options.project))]
      : ['discover: []']),
    '',
    ...(layout.stacks.length
      ? [
          '# Stacks named one by one: the repository root, or one entry per workspace of a dir.',
          'stacks:',
          ...layout.stacks.flatMap((stack) => stackLines(stack, options.project)),
        ]
      : ['stacks: []']),
    '',
    ...approverLines(layout),
    '',
    ...SLACK_LINES,
    '',
  ];
  return lines.join('\n');
}

export interface Advice {
  /** What a person still has to write into the file, one line each. */
  fillIn: string[];
  /** What init noticed and left alone. */
  notes: string[];
}

export function adviceFor(layout: Layout, scan: { modules: string[]; terragrunt: string[] }): Advice {
  const fillIn = [
    'approvers.groups.platform: the Slack user ids or user groups who may approve applies',
    'slack: uncomment it, set defaultChannel to a channel id, and SLACK_BOT_TOKEN in the environment',
  ];
  for (const rule of layout.rules) {
    if (rule.partialBackends.length)
      fillIn.push(
        `discover "${rule.glob}": backendConfig for backend "${rule.partialBackends.join('", "')}" {}, with a state key per stack (\${stack.name})`,
      );
  }
  for (const rule of layout.rules) {
    if (rule.requiredVars.length) fillIn.push(`discover "${rule.glob}": vars ${rule.requiredVars.join(', ')}`);
  }
  for (const stack of layout.stacks) {
    if (stack.requiredVars.length) fillIn.push(`stacks "${stack.name}": vars ${stack.requiredVars.join(', ')}`);
    if (stack.backend?.partial)
      fillIn.push(`stacks "${stack.name}": backendConfig for backend "${stack.backend.type}" {}`);
  }
  const notes: string[] = [];
  const local =
    layout.rules.reduce((n, r) => n + (r.backends.local ?? 0), 0) + layout.stacks.filter((s) => !s.backend).length;
  if (local)
    notes.push(`${count(local, 'stack')} keep local state: fine to try driftgate, use a remote backend for a team`);
  if (scan.modules.length)
    notes.push(`${count(scan.modules.length, 'module dir')} left out (called by a stack or under modules/)`);
  if (scan.terragrunt.length)
    notes.push(
      `terragrunt.hcl in ${scan.terragrunt.slice(0, 3).join(', ')}: driftgate runs terraform itself, not terragrunt`,
    );
  if (layout.skipped.length) notes.push(`left out, not valid stack names: ${layout.skipped.slice(0, 3).join(', ')}`);
  return { fillIn, notes };
}
