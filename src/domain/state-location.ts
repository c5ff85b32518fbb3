import { resolve } from 'node:path';
import type { ConfigIssue } from './errors.js';

/** A `backend "<type>" { … }` block as written in a root module: its literal string settings. */
export interface BackendBlock {
  type: string;
  settings: Record<string, string>;
}

/** Where a stack's state lives, as far as the config and its backend block tell. */
export interface StateLocation {
  /** Equal for two stacks exactly when they read and write one state. */
  key: string;
  /** For people: `s3 bucket "b", key "k"`, never a setting's value that could be a secret. */
  describe: string;
  /** An S3 backend's object, workspace included: what S3's change events name when someone writes it. */
  s3Object?: { bucket: string; key: string };
}

type Settings = Record<string, string | number | boolean>;

/**
 * The state a stack reads and writes: its backend block's settings with `backendConfig` over them (as
 * `terraform init -backend-config` merges them), and its workspace. Undefined when the settings that say
 * where are missing (terraform then fails the init itself) or the backend is one not known here.
 */
export function stateLocation(
  backend: BackendBlock | undefined,
  stack: { dir: string; workspace?: string; backendConfig: Settings },
): StateLocation | undefined {
  const type = backend?.type ?? 'local';
  const s: Record<string, string> = { ...(backend?.settings ?? {}) };
  for (const [k, v] of Object.entries(stack.backendConfig)) s[k] = String(v);
  const workspace = stack.workspace ?? 'default';
  const ws = workspace === 'default' ? '' : `, workspace "${workspace}"`;
  switch (type) {
    case 'local': {
      const path =
        workspace === 'default'
          ? resolve(stack.dir, s.path ?? 'terraform.tfstate')
          : resolve(stack.dir, s.workspace_dir ?? 'terraform.tfstate.d', workspace, 'terraform.tfstate');
      return { key: `local:${path}`, describe: `local state file ${path}` };
    }
    case 's3': {
      if (!s.bucket || !s.key) return undefined;
      const prefix = s.workspace_key_prefix ?? 'env:';
      const object = workspace === 'default' ? s.key : `${prefix}/${workspace}/${s.key}`;
      const endpoint = s.endpoint ?? '';
      return {
        key: `s3:${endpoint}:${s.bucket}/${object}`,
        describe: `s3 bucket "${s.bucket}", key "${s.key}"${ws}`,
        s3Object: { bucket: s.bucket, key: object },
      };
    }
    case 'gcs': {
      if (!s.bucket) return undefined;
      const prefix = s.prefix ?? '';
      return {
        key: `gcs:${s.bucket}/${prefix}/${workspace}.tfstate`,
        describe: `gcs bucket "${s.bucket}", prefix "${prefix}"${ws}`,
      };
    }
    case 'azurerm': {
      if (!s.storage_account_name || !s.container_name || !s.key) return undefined;
      const blob = workspace === 'default' ? s.key : `${s.key}env:${workspace}`;
      return {
        key: `azurerm:${s.storage_account_name}/${s.container_name}/${blob}`,
        describe: `azurerm storage account "${s.storage_account_name}", container "${s.container_name}", key "${s.key}"${ws}`,
      };
    }
    default:
      return undefined;
  }
}

export interface LocatedStack {
  name: string;
  /** `stacks[1]` or `discover[0]`. */
  configKey?: string;
  location: StateLocation;
}

/**
 * Two stacks on one state: each plan sees the other's resources as ones to destroy, and an approval
 * would destroy them. One issue per stack that shares a state with one found before it.
 */
export function sharedStateIssues(stacks: readonly LocatedStack[]): ConfigIssue[] {
  const first = new Map<string, LocatedStack>();
  const issues: ConfigIssue[] = [];
  for (const stack of stacks) {
    const earlier = first.get(stack.location.key);
    if (!earlier) {
      first.set(stack.location.key, stack);
      continue;
    }
    const where = (s: LocatedStack) => `"${s.name}"${s.configKey ? ` (${s.configKey})` : ''}`;
    issues.push({
      path: stack.configKey ?? 'stacks',
      message:
        `stacks ${where(earlier)} and ${where(stack)} use the same state: ${stack.location.describe}. ` +
        "Each would see the other's resources as ones to destroy, and approving it would destroy them. " +
        'Give each stack its own state: a key per stack in backendConfig (in a discover rule, e.g. ' +
        `key: "<project>/\${stack.name}/terraform.tfstate"), its own workspace, or its own dir for local state`,
    });
  }
  return issues;
}
