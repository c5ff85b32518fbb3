import { describe, expect, it } from 'vitest';
import type { Attribution } from '../../../src/domain/change-events/attribution.js';
import type { ChangeDescription } from '../../../src/domain/change-events/describe.js';
import { STATE_ADDRESS } from '../../../src/domain/change-events/state-address.js';
import { type CauseEvidence, decideDriftCauses } from '../../../src/domain/drift-causes/decide.js';
import { causeText, policyCauses } from '../../../src/domain/drift-causes/describe.js';
import { changedInputs, digestInputs } from '../../../src/domain/drift-causes/inputs.js';
import type { ReferenceEvidence, StackEvidence } from '../../../src/domain/drift-causes/model.js';
import { configKey, variableReferences } from '../../../src/domain/drift-causes/references.js';

const AWS = 'registry.terraform.io/hashicorp/aws';
const BUILTIN = 'terraform.io/builtin/terraform';
const bucket = { address: 'aws_s3_bucket.logs', providerName: AWS, drifted: true };
const data = { address: 'terraform_data.app', providerName: BUILTIN, drifted: false };
const inVpc = { address: 'module.vpc.aws_vpc.this[0]', providerName: AWS, moduleAddress: 'module.vpc', drifted: false };
const inVpcx = { address: 'module.vpcx.aws_vpc.this', providerName: AWS, moduleAddress: 'module.vpcx', drifted: false };

const evidence = (over: Partial<StackEvidence> = {}): StackEvidence => ({
  providers: { [AWS]: '5.99.0' },
  modules: { vpc: { source: 'registry.terraform.io/terraform-aws-modules/vpc/aws', version: '5.1.0' } },
  state: { serial: 41, lineage: 'L1' },
  ...over,
});
const reference = (
  over: Partial<StackEvidence> = {},
  made: ReferenceEvidence['made'] = 'apply',
): ReferenceEvidence => ({
  made,
  runId: 'run-ref',
  at: new Date('2026-12-01T00:00:00Z'),
  evidence: evidence(over),
});

function decide(over: Partial<CauseEvidence>) {
  return decideDriftCauses({
    resources: [bucket, data],
    kind: 'drift',
    reference: reference(),
    current: evidence(),
    changedInputs: [],
    variableReferences: new Map(),
    ...over,
  });
}

const call = (resource: string, display: string, at: string, how: ChangeDescription['how'] = 'console') => ({
  principal: { kind: 'iam_user' as const, name: display, display },
  how,
  eventName: 'PutBucketTagging',
  eventSource: 's3.amazonaws.com',
  at: new Date(at),
  eventId: `${display}-${at}`,
  account: '123456789012',
  region: 'eu-west-1',
  resource,
});

describe('decideDriftCauses', () => {
  it('out of band: each person and way that changed a drifted resource, newest call each', () => {
    const attribution: Attribution = {
      status: 'found',
      changes: [
        call(bucket.address, 'alice', '2026-12-05T10:00:00Z'),
        call(bucket.address, 'alice', '2026-12-05T10:05:00Z'),
        call(bucket.address, 'bob', '2026-12-05T09:00:00Z', 'cli'),
        call(data.address, 'carol', '2026-12-05T09:00:00Z'),
      ],
    };
    const causes = decide({ attribution });
    expect(causes[bucket.address]).toEqual([
      {
        kind: 'out_of_band',
        who: 'alice',
        how: 'console',
        eventName: 'PutBucketTagging',
        at: '2026-12-05T10:05:00.000Z',
      },
      { kind: 'out_of_band', who: 'bob', how: 'cli', eventName: 'PutBucketTagging', at: '2026-12-05T09:00:00.000Z' },
    ]);
    // A resource that did not drift was not changed outside, whatever a call names.
    expect(causes[data.address]![0]!.kind).toBe('unknown');
    expect(causeText(causes[bucket.address]![0]!, new Date('2026-12-05T10:19:00Z'))).toBe(
      'changed in the console by alice 14 min ago (PutBucketTagging)',
    );
  });

  it('provider version: only the resources of the provider whose version moved', () => {
    const causes = decide({ current: evidence({ providers: { [AWS]: '5.100.0' } }) });
    expect(causes[bucket.address]).toEqual([
      { kind: 'provider_version', provider: AWS, from: '5.99.0', to: '5.100.0', since: 'apply' },
    ]);
    expect(causes[data.address]![0]!.kind).toBe('unknown');
    expect(causeText(causes[bucket.address]![0]!)).toBe(
      "the hashicorp/aws provider went from 5.99.0 to 5.100.0 since the last apply: this diff may be the provider's, not a person's",
    );
  });

  it('module version: the resources inside the module call whose source or version moved', () => {
    const to = { source: 'registry.terraform.io/terraform-aws-modules/vpc/aws', version: '5.2.0' };
    const causes = decide({
      resources: [inVpc, inVpcx],
      current: evidence({ modules: { vpc: to, vpcx: { source: './x', version: '' } } }),
      reference: reference({ modules: { ...evidence().modules, vpcx: { source: './x', version: '' } } }),
    });
    expect(causes[inVpc.address]).toEqual([
      { kind: 'module_version', module: 'vpc', from: evidence().modules!.vpc, to, since: 'apply' },
    ]);
    expect(causes[inVpcx.address]![0]!.kind).toBe('unknown');
    expect(causeText(causes[inVpc.address]![0]!)).toBe(
      'module vpc went from registry.terraform.io/terraform-aws-modules/vpc/aws 5.1.0 to registry.terraform.io/terraform-aws-modules/vpc/aws 5.2.0 since the last apply',
    );
  });

  it('input: the resources whose configuration reads a variable set otherwise, named with where it is set', () => {
    const plan = {
      configuration: {
        root_module: {
          resources: [
            { address: 'terraform_data.app', expressions: { input: { references: ['var.size', 'local.x'] } } },
            { address: 'aws_s3_bucket.logs', expressions: { bucket: { constant_value: 'logs' } } },
          ],
          module_calls: {
            vpc: {
              expressions: { cidr: { references: ['var.cidr'] } },
              module: { resources: [{ address: 'aws_vpc.this' }] },
            },
          },
        },
      },
    };
    const refs = variableReferences(plan);
    expect(refs.get(configKey('terraform_data.app'))).toEqual(new Set(['size']));
    expect(refs.get(configKey('module.vpc.aws_vpc.this[0]'))).toEqual(new Set(['cidr']));
    const before = digestInputs({ vars: { size: 'small', cidr: '10.0.0.0/16' }, env: {}, varFiles: [] }, 'salt');
    const after = digestInputs({ vars: { size: 'huge', cidr: '10.0.0.0/16' }, env: {}, varFiles: [] }, 'salt');
    const inputs = changedInputs(before, after);
    expect(inputs).toEqual([{ source: 'config', name: 'size', change: 'changed' }]);
    const causes = decide({ resources: [bucket, data, inVpc], changedInputs: inputs, variableReferences: refs });
    expect(causes[data.address]).toEqual([
      { kind: 'input', source: 'config', name: 'size', change: 'changed', since: 'apply' },
    ]);
    expect(causes[inVpc.address]![0]!.kind).toBe('unknown');
    expect(causeText(causes[data.address]![0]!)).toBe('var.size changed in driftgate.yml since the last apply');
  });

  it('input: env TF_VAR_* and varFiles are named as such; a value never leaves the digest', () => {
    const before = digestInputs(
      {
        vars: {},
        env: { TF_VAR_token: 'hunter2', PATH: '/bin' },
        varFiles: [{ file: 'prod.tfvars', text: 'size = "small"\nzone = "a"\n' }],
      },
      's',
    );
    const after = digestInputs(
      {
        vars: {},
        env: { TF_VAR_token: 'hunter3' },
        varFiles: [{ file: 'prod.tfvars', text: 'size  =  "small"\nzone = "b"\n' }],
      },
      's',
    );
    expect(JSON.stringify(before)).not.toContain('hunter2');
    const inputs = changedInputs(before, after);
    expect(inputs).toEqual([
      { source: 'env', name: 'token', change: 'changed' },
      { source: 'var_file', file: 'prod.tfvars', name: 'zone', change: 'changed' },
    ]);
    const text = inputs.map((i) => causeText({ kind: 'input', ...i, since: 'clean_check' }));
    expect(text).toEqual([
      "var.token changed in the stack's env (TF_VAR_token) since the last clean check",
      'var.zone changed in prod.tfvars since the last clean check',
    ]);
    // The same values under another salt give other digests: a stored digest is no use to a guesser elsewhere.
    expect(digestInputs({ vars: { a: 1 }, env: {}, varFiles: [] }, 'x')[0]!.digest).not.toBe(
      digestInputs({ vars: { a: 1 }, env: {}, varFiles: [] }, 'y')[0]!.digest,
    );
  });

  it("inherited: a TF_VAR_* of driftgate's own environment counts unless the stack's env sets the same one", () => {
    const digests = (inherited: Record<string, string>, env: Record<string, string> = {}) =>
      digestInputs({ vars: {}, env, inherited, varFiles: [] }, 's');
    expect(changedInputs(digests({ TF_VAR_region: 'eu-west-1' }), digests({ TF_VAR_region: 'us-east-1' }))).toEqual([
      { source: 'process_env', name: 'region', change: 'changed' },
    ]);
    // The stack's env wins in terraform's environment, so the inherited value is no input there.
    const shadowed = { TF_VAR_region: 'eu-west-1' };
    expect(
      changedInputs(
        digests({ TF_VAR_region: 'eu-west-1' }, shadowed),
        digests({ TF_VAR_region: 'us-east-1' }, shadowed),
      ),
    ).toEqual([]);
    expect(digests({ AWS_REGION: 'x', TF_VAR_: 'y' })).toEqual([]);
  });

  it('module version: a source whose credentials alone differ is no change, and none is shown', () => {
    const from = { source: 'git::https://oauth2:old-token@gitlab.example.com/infra/vpc.git?ref=v1', version: '' };
    const masked = 'git::https://***@gitlab.example.com/infra/vpc.git';
    // A record kept before sources were masked holds the old token; the plan read now holds it masked.
    const rotated = decide({
      resources: [inVpc],
      reference: reference({ modules: { vpc: from } }),
      current: evidence({ modules: { vpc: { source: `${masked}?ref=v1`, version: '' } } }),
    });
    expect(rotated[inVpc.address]!.map((c) => c.kind)).toEqual(['unknown']);
    const moved = decide({
      resources: [inVpc],
      reference: reference({ modules: { vpc: from } }),
      current: evidence({ modules: { vpc: { source: `${masked}?ref=v2`, version: '' } } }),
    });
    expect(moved[inVpc.address]).toEqual([
      {
        kind: 'module_version',
        module: 'vpc',
        from: { source: `${masked}?ref=v1`, version: '' },
        to: { source: `${masked}?ref=v2`, version: '' },
        since: 'apply',
      },
    ]);
  });

  it('merged not applied: the planned changes of a pending change that did not drift', () => {
    const causes = decide({
      kind: 'pending_change',
      commitSha: 'abc1234def',
      lastAppliedCommit: '0123456',
      commitAuthor: 'bob',
    });
    expect(causes[data.address]).toEqual([
      { kind: 'merged_not_applied', commit: 'abc1234def', lastApplied: '0123456', author: 'bob' },
    ]);
    expect(causes[bucket.address]![0]!.kind).toBe('unknown');
    expect(causeText(causes[data.address]![0]!)).toBe('merged in abc1234 by bob, not applied');
  });

  it('state written outside: serial or lineage moved since the record, for every resource', () => {
    const causes = decide({ current: evidence({ state: { serial: 43, lineage: 'L1' } }) });
    const cause = {
      kind: 'state_outside',
      from: { serial: 41, lineage: 'L1' },
      to: { serial: 43, lineage: 'L1' },
      since: 'apply',
    };
    expect(causes[bucket.address]).toEqual([cause]);
    expect(causes[data.address]).toEqual([cause]);
    expect(causeText(causes[data.address]![0]!)).toBe(
      'the state was written outside driftgate: serial 41 → 43, no driftgate apply in between',
    );
    const replaced = decide({ current: evidence({ state: { serial: 1, lineage: 'L2' } }) });
    expect(causeText(replaced[data.address]![0]!)).toContain('lineage L1 → L2');
  });

  it('state written outside: who wrote the state object, when a change event said, newest since the record', () => {
    const write = (display: string, at: string) => ({
      ...call(STATE_ADDRESS, display, at, 'cli'),
      eventName: 'PutObject',
    });
    const attribution: Attribution = {
      status: 'found',
      changes: [
        // Before the record: the state it left is the one recorded, so this write is not the one.
        write('mallory', '2026-11-30T23:00:00Z'),
        write('bob', '2026-12-02T10:00:00Z'),
        write('carol', '2026-12-02T09:00:00Z'),
      ],
    };
    const causes = decide({ current: evidence({ state: { serial: 43, lineage: 'L1' } }), attribution });
    const writer = { who: 'bob', how: 'cli', eventName: 'PutObject', at: '2026-12-02T10:00:00.000Z' };
    expect(causes[data.address]).toEqual([
      {
        kind: 'state_outside',
        from: { serial: 41, lineage: 'L1' },
        to: { serial: 43, lineage: 'L1' },
        since: 'apply',
        writer,
      },
    ]);
    // The state object is no resource of the plan: its write is no out-of-band change of the bucket.
    expect(causes[bucket.address]!.map((c) => c.kind)).toEqual(['state_outside']);
    expect(causeText(causes[data.address]![0]!, new Date('2026-12-02T10:14:00Z'))).toBe(
      'the state was written outside driftgate with the AWS CLI by bob 14 min ago (PutObject): serial 41 → 43, no driftgate apply in between',
    );
    expect(policyCauses(causes).map((c) => [c.resource, c.kind, c.who, c.how, c.from, c.to])).toEqual([
      [bucket.address, 'state_outside', 'bob', 'cli', '41', '43'],
      [data.address, 'state_outside', 'bob', 'cli', '41', '43'],
    ]);
    // The state did not move: a write of it explains nothing.
    expect(decide({ attribution })[data.address]![0]!.kind).toBe('unknown');
  });

  it("state written outside: a write CloudTrail times in the record's own second is named", () => {
    // The record finished at .600; the call after it is recorded as .000 of the same second.
    const write = { ...call(STATE_ADDRESS, 'bob', '2026-12-01T00:00:00Z', 'cli'), eventName: 'PutObject' };
    const causes = decide({
      reference: { ...reference(), at: new Date('2026-12-01T00:00:00.600Z') },
      current: evidence({ state: { serial: 43, lineage: 'L1' } }),
      attribution: { status: 'found', changes: [write] },
    });
    expect(causes[data.address]![0]).toMatchObject({ kind: 'state_outside', writer: { who: 'bob' } });
  });

  it('unknown stays unknown, saying what was missing', () => {
    const none = decide({ reference: undefined, current: evidence({ state: { serial: 99, lineage: 'L9' } }) });
    expect(none[bucket.address]).toEqual([
      {
        kind: 'unknown',
        why: 'no change event or CloudTrail lookup named who changed it; driftgate has no apply or clean check of this stack on record to compare its providers, modules, inputs and state with',
      },
    ]);
    const asked = decide({ attribution: { status: 'none' } });
    expect(asked[bucket.address]![0]).toEqual({
      kind: 'unknown',
      why: 'CloudTrail has no call that changed it; no provider, module, input or state change since the last apply explains it',
    });
    // Evidence missing on either side is no evidence: an unreadable plan file says nothing moved.
    const unread = decide({ current: {} });
    expect(unread[bucket.address]![0]!.kind).toBe('unknown');
  });

  it('policy input: one entry per resource and cause, every field present, never a value', () => {
    const causes = decide({
      current: evidence({ providers: { [AWS]: '5.100.0' }, state: { serial: 42, lineage: 'L1' } }),
    });
    const entries = policyCauses(causes);
    expect(entries.map((c) => [c.resource, c.kind, c.provider, c.from, c.to])).toEqual([
      [bucket.address, 'provider_version', AWS, '5.99.0', '5.100.0'],
      [bucket.address, 'state_outside', '', '41', '42'],
      [data.address, 'state_outside', '', '41', '42'],
    ]);
    for (const e of entries) expect(Object.values(e).every((v) => typeof v === 'string')).toBe(true);
  });
});
