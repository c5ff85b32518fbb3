/**
 * The `policies` section: rules read from policy files (relative to the config file), then inline
 * ones, all compiled here so that a bad expression fails the load and `driftgate validate` names it:
 * `policies.files[0] (policies.yml) rules[1].when: rule "x": Unexpected token … at line 1, column 17`.
 * Policy files are not interpolated: `${` in a CEL string means itself there.
 */
import { readFile } from 'node:fs/promises';
import { resolve } from 'node:path';
import type { ConfigIssue } from '../domain/errors.js';
import { compilePolicies } from '../domain/policy/compile.js';
import type { PolicyRule } from '../domain/policy/model.js';
import { parseYaml } from './parse-yaml.js';
import { PolicyFile, type ApproversConfig, type PoliciesConfig } from './schema.js';
import { schemaIssues } from './schema-issues.js';

/** Policy files are hand-written lists of rules; anything this large is not one. */
const MAX_POLICY_FILE_BYTES = 1024 * 1024;

export interface LoadedPolicies {
  /** Empty when there are issues. */
  rules: PolicyRule[];
  issues: ConfigIssue[];
}

/** Where a rule came from, to name it in an issue: `policies.` or `policies.files[0] (policies.yml) `. */
interface Origin {
  prefix: string;
  index: number;
}

const at = (prefix: string, path: string) => `${prefix}${path}`.trimEnd();

async function readPolicyFile(
  file: string,
  prefix: string,
  baseDir: string,
): Promise<{ rules: PolicyRule[]; issues: ConfigIssue[] }> {
  const fail = (message: string) => ({ rules: [], issues: [{ path: at(prefix, ''), message }] });
  let text: string;
  try {
    text = await readFile(resolve(baseDir, file), 'utf8');
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    return fail(code === 'ENOENT' ? 'policy file does not exist' : `cannot read policy file: ${code ?? String(err)}`);
  }
  if (Buffer.byteLength(text) > MAX_POLICY_FILE_BYTES)
    return fail(`policy file is larger than ${MAX_POLICY_FILE_BYTES} bytes`);
  const yaml = parseYaml(text);
  if (yaml.issues.length)
    return { rules: [], issues: yaml.issues.map((i) => ({ path: at(prefix, i.path), message: i.message })) };
  const parsed = PolicyFile.safeParse(yaml.value);
  if (!parsed.success) {
    const issues = schemaIssues(parsed.error.issues, yaml.value, PolicyFile);
    return { rules: [], issues: issues.map((i) => ({ path: at(prefix, i.path), message: i.message })) };
  }
  return { rules: parsed.data.rules, issues: [] };
}

/** A require_approval group no approver group defines could never be satisfied. */
function unknownGroups(
  rules: readonly PolicyRule[],
  origins: readonly Origin[],
  approvers: ApproversConfig | undefined,
): ConfigIssue[] {
  const issues: ConfigIssue[] = [];
  rules.forEach((rule, i) => {
    rule.from?.forEach((group, j) => {
      if (approvers && group in approvers.groups) return;
      const where = approvers ? '' : ' (there is no approvers section)';
      issues.push({
        path: `${origins[i]!.prefix}rules[${origins[i]!.index}].from[${j}]`,
        message: `rule "${rule.name}": unknown approver group "${group}"${where}`,
      });
    });
  });
  return issues;
}

/** The approvers section is there but invalid: which groups exist is not known, so none is reported unknown. */
export const UNKNOWN_APPROVERS = Symbol('approvers unknown');

export async function loadPolicies(
  section: PoliciesConfig | undefined,
  baseDir: string,
  approvers: ApproversConfig | undefined | typeof UNKNOWN_APPROVERS,
): Promise<LoadedPolicies> {
  if (!section) return { rules: [], issues: [] };
  const rules: PolicyRule[] = [];
  const origins: Origin[] = [];
  const issues: ConfigIssue[] = [];
  const add = (list: readonly PolicyRule[], prefix: string) =>
    list.forEach((rule, index) => {
      rules.push(rule);
      origins.push({ prefix, index });
    });
  for (const [i, file] of section.files.entries()) {
    const prefix = `policies.files[${i}] (${file}) `;
    const read = await readPolicyFile(file, prefix, baseDir);
    issues.push(...read.issues);
    add(read.rules, prefix);
  }
  add(section.rules, 'policies.');
  const compiled = compilePolicies(rules);
  if (!compiled.ok) {
    const first = new Map<string, string>();
    rules.forEach((rule, i) => {
      if (!first.has(rule.name)) first.set(rule.name, `${origins[i]!.prefix}rules[${origins[i]!.index}]`);
    });
    for (const issue of compiled.issues) {
      const origin = origins[issue.index]!;
      const also = issue.field === 'name' ? ` (also ${first.get(issue.rule)})` : '';
      issues.push({
        path: `${origin.prefix}rules[${origin.index}].${issue.field}`,
        message: `rule "${issue.rule}": ${issue.message}${also}`,
      });
    }
  }
  if (approvers !== UNKNOWN_APPROVERS) issues.push(...unknownGroups(rules, origins, approvers));
  return issues.length ? { rules: [], issues } : { rules, issues };
}
