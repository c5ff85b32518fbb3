import { resolve } from 'node:path';
import type { Stack } from '../../domain/stack.js';

/**
 * argv for each terraform command. Pure, so tests can show that no var or backend value reaches argv:
 * those go through TF_VAR_* and a backend config file.
 */

/** terraform wants whole seconds or a unit: round up so a short timeout never becomes 0 (no wait). */
export function lockTimeoutArg(ms: number): string {
  return `-lock-timeout=${Math.ceil(ms / 1000)}s`;
}

export function initArgs(lockMs: number, backendFile?: string): string[] {
  return [
    'init',
    '-input=false',
    '-no-color',
    // driftgate owns the backend settings: take new ones as given, never migrate state on its own.
    '-reconfigure',
    lockTimeoutArg(lockMs),
    ...(backendFile ? [`-backend-config=${backendFile}`] : []),
  ];
}

export function workspaceSelectArgs(workspace: string): string[] {
  return ['workspace', 'select', '-or-create=true', workspace];
}

export function varFileArgs(stack: Stack): string[] {
  return stack.varFiles.map((f) => `-var-file=${resolve(stack.dir, f)}`);
}

export function planArgs(stack: Stack, planFile: string, lockMs: number): string[] {
  return [
    'plan',
    '-detailed-exitcode',
    '-input=false',
    '-no-color',
    lockTimeoutArg(lockMs),
    `-out=${planFile}`,
    ...varFileArgs(stack),
  ];
}

export function showJsonArgs(planFile: string): string[] {
  return ['show', '-json', '-no-color', planFile];
}

/** Needs an initialised dir (the providers installed) but no vars, state or backend access. */
export function providersSchemaArgs(): string[] {
  return ['providers', 'schema', '-json', '-no-color'];
}

/** The backend's state as it is stored; reads no config, refreshes nothing. */
export function statePullArgs(): string[] {
  return ['state', 'pull'];
}

/** The file list stays on: terraform 1.11 prints no diff with `-list=false`. */
export function fmtCheckArgs(files: string[]): string[] {
  return ['fmt', '-check', '-diff', '-no-color', '--', ...files];
}

/** validate reads no vars or state: it checks the code against the installed providers' schemas. */
export function validateArgs(): string[] {
  return ['validate', '-no-color'];
}

/** A saved plan carries its vars; -auto-approve is implied for saved plans. */
export function applyArgs(planFile: string, lockMs: number): string[] {
  return ['apply', '-input=false', '-no-color', lockTimeoutArg(lockMs), planFile];
}
