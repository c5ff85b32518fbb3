/**
 * The evidence behind drift causes (domain/drift-causes): read at each check from the saved plan file
 * (provider lock, module manifest, the state's serial and lineage) and the stack's inputs (driftgate.yml
 * `vars`, its `env` TF_VAR_*, its varFiles), kept with the run as its `evidence` artifact. The record a
 * check compares with is the last one made when the stack was known in sync: by the check that verifies a
 * driftgate apply (copied onto the applied run), or by a clean check. Reading evidence never fails a
 * check: what cannot be read is left out, and a cause that needed it stays unknown.
 */
import { randomBytes } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { isAbsolute, relative } from 'node:path';
import { z } from 'zod';
import type { Attribution } from '../../domain/change-events/attribution.js';
import {
  type ChangedInput,
  type DriftCauses,
  type InputSources,
  type ReferenceEvidence,
  type StackEvidence,
  changedInputs,
  decideDriftCauses,
  digestInputs,
  planFileEvidence,
  variableReferences,
} from '../../domain/drift-causes/index.js';
import { errorMessage } from '../../domain/errors.js';
import type { PlanAnalysis } from '../../domain/plan/model.js';
import type { PlanJson } from '../../domain/plan/schema.js';
import type { Run } from '../../domain/run/model.js';
import type { RunKind } from '../../domain/run/state.js';
import type { Stack } from '../../domain/stack.js';
import { loadArtifact, storeArtifact } from '../runtime/artifacts.js';
import type { ServiceDeps } from '../runtime/deps.js';
import { loadJson } from './stored-analysis.js';

/** What a check read: the evidence it records, and the inputs themselves to digest with a record's salt. */
export interface CheckEvidence {
  evidence: StackEvidence;
  sources: InputSources;
}

/** The varFile as the config names it: relative to the stack dir when inside it. */
function fileLabel(stack: Stack, file: string): string {
  const rel = relative(stack.dir, file);
  return rel && !rel.startsWith('..') && !isAbsolute(rel) ? rel : file;
}

export async function readCheckEvidence(
  deps: Pick<ServiceDeps, 'logger' | 'terraform'>,
  stack: Stack,
  planFile: string,
  terraformVersion: string | undefined,
): Promise<CheckEvidence> {
  const varFiles = await Promise.all(
    stack.varFiles.map(async (file) => ({
      file: fileLabel(stack, file),
      text: await readFile(file, 'utf8').catch(() => undefined),
    })),
  );
  const inherited = deps.terraform.inheritedVars?.();
  const sources: InputSources = { vars: stack.vars, env: stack.env, varFiles, ...(inherited ? { inherited } : {}) };
  const salt = randomBytes(16).toString('hex');
  const evidence: StackEvidence = {
    ...(terraformVersion ? { terraformVersion } : {}),
    inputs: { salt, digests: digestInputs(sources, salt) },
  };
  try {
    Object.assign(evidence, planFileEvidence(await readFile(planFile)));
  } catch (err) {
    // A runner that keeps the plan file elsewhere: the causes it holds stay unknown, every check alike.
    deps.logger.debug(
      { stack: stack.name, err: errorMessage(err) },
      'the saved plan file could not be read for drift causes',
    );
  }
  return { evidence, sources };
}

const ModuleSourceSchema = z.object({ source: z.string(), version: z.string() });
const StoredEvidence = z.object({
  terraformVersion: z.string().optional(),
  providers: z.record(z.string(), z.string()).optional(),
  modules: z.record(z.string(), ModuleSourceSchema).optional(),
  inputs: z
    .object({
      salt: z.string(),
      digests: z.array(
        z.object({
          source: z.enum(['config', 'env', 'var_file', 'process_env']),
          file: z.string().optional(),
          name: z.string(),
          digest: z.string(),
        }),
      ),
    })
    .optional(),
  state: z.object({ serial: z.number().int().nonnegative(), lineage: z.string() }).optional(),
});

export async function recordEvidence(
  deps: Pick<ServiceDeps, 'artifacts' | 'store'>,
  runId: string,
  evidence: StackEvidence,
): Promise<void> {
  await storeArtifact(deps, runId, 'evidence', JSON.stringify(evidence));
}

/**
 * A driftgate apply: the check that verified it read the state it left and the inputs it applied with;
 * the applied run keeps that record, so the next checks compare with what the apply left.
 */
export async function recordAppliedEvidence(
  deps: Pick<ServiceDeps, 'artifacts' | 'store' | 'logger'>,
  appliedRunId: string,
  verifyRunId: string | undefined,
): Promise<void> {
  if (!verifyRunId) return;
  try {
    const body = await loadArtifact(deps, verifyRunId, 'evidence');
    if (body) await storeArtifact(deps, appliedRunId, 'evidence', body);
  } catch (err) {
    deps.logger.warn({ runId: appliedRunId, err: errorMessage(err) }, 'the evidence of the apply was not recorded');
  }
}

/**
 * The newest record of the stack in sync before `run`: a clean check, or a driftgate apply. An apply newer
 * than the record that left none (its verifying check is `run` itself, or failed) wrote the state since:
 * the record's state is then no evidence of a write outside driftgate, and is left out.
 */
export async function referenceEvidence(
  deps: Pick<ServiceDeps, 'artifacts' | 'store' | 'logger'>,
  stack: string,
  run: Run,
): Promise<ReferenceEvidence | undefined> {
  const [clean] = await deps.store.listRuns({ stack, states: ['no_changes'], limit: 1 });
  const [applied] = await deps.store.listRuns({ stack, states: ['applied', 'apply_failed'], limit: 1 });
  const candidates = [clean, applied]
    .filter((r): r is Run => r !== undefined && r.id !== run.id)
    .sort((a, b) => b.updatedAt.getTime() - a.updatedAt.getTime());
  let appliedSince = false;
  for (const candidate of candidates) {
    try {
      const evidence = (await loadJson(deps, candidate.id, 'evidence', StoredEvidence)) as StackEvidence | undefined;
      if (!evidence) {
        if (candidate.state !== 'no_changes') appliedSince = true;
        continue;
      }
      const made = candidate.state === 'no_changes' && candidate.trigger !== 'verify' ? 'clean_check' : 'apply';
      const { state: _written, ...rest } = evidence;
      return { made, runId: candidate.id, at: candidate.updatedAt, evidence: appliedSince ? rest : evidence };
    } catch (err) {
      if (candidate.state !== 'no_changes') appliedSince = true;
      deps.logger.warn({ stack, runId: candidate.id, err: errorMessage(err) }, 'recorded evidence unreadable');
    }
  }
  return undefined;
}

export interface CauseContext {
  stack: Stack;
  run: Run;
  kind: RunKind;
  analysis: PlanAnalysis;
  /** The plan's JSON, parsed only when an input changed (its configuration says who reads it). */
  planJson: () => Pick<PlanJson, 'configuration'>;
  attribution?: Attribution;
  checked: CheckEvidence;
  commitAuthor?: () => Promise<string | undefined>;
}

/**
 * Why each resource of the plan differs. Every managed resource the plan changes or that changed outside
 * Terraform gets its causes; reads of data sources are not drift.
 */
export async function decideCauses(
  deps: Pick<ServiceDeps, 'artifacts' | 'store' | 'logger'>,
  c: CauseContext,
): Promise<DriftCauses> {
  const reference = await referenceEvidence(deps, c.stack.name, c.run);
  const refInputs = reference?.evidence.inputs;
  const inputs: ChangedInput[] = refInputs
    ? changedInputs(refInputs.digests, digestInputs(c.checked.sources, refInputs.salt))
    : [];
  const drifted = new Set(c.analysis.drift.map((d) => d.address));
  const resources = new Map<
    string,
    { address: string; providerName: string; moduleAddress?: string; drifted: boolean }
  >();
  for (const r of [...c.analysis.drift, ...c.analysis.changes])
    if (r.mode === 'managed' && !resources.has(r.address))
      resources.set(r.address, {
        address: r.address,
        providerName: r.providerName,
        ...(r.moduleAddress ? { moduleAddress: r.moduleAddress } : {}),
        drifted: drifted.has(r.address),
      });
  const lastAppliedCommit = (await deps.store.getStack(c.stack.name))?.lastAppliedCommit;
  const author = c.kind === 'pending_change' ? await c.commitAuthor?.().catch(() => undefined) : undefined;
  return decideDriftCauses({
    resources: [...resources.values()],
    kind: c.kind,
    ...(c.run.commitSha ? { commitSha: c.run.commitSha } : {}),
    ...(lastAppliedCommit ? { lastAppliedCommit } : {}),
    ...(author ? { commitAuthor: author } : {}),
    ...(reference ? { reference } : {}),
    current: c.checked.evidence,
    changedInputs: inputs,
    variableReferences: inputs.length ? variableReferences(c.planJson()) : new Map(),
    ...(c.attribution ? { attribution: c.attribution } : {}),
  });
}

/** decideCauses for a check: evidence that cannot be read costs the causes, never the check. */
export async function causesOf(
  deps: Pick<ServiceDeps, 'artifacts' | 'store' | 'logger'>,
  context: Omit<CauseContext, 'commitAuthor'> & { commitAuthor?: CauseContext['commitAuthor'] | undefined },
): Promise<DriftCauses | undefined> {
  const { commitAuthor, ...rest } = context;
  try {
    return await decideCauses(deps, { ...rest, ...(commitAuthor ? { commitAuthor } : {}) });
  } catch (err) {
    deps.logger.warn({ stack: context.stack.name, err: errorMessage(err) }, 'drift causes could not be decided');
    return undefined;
  }
}

export function withCauses(analysis: PlanAnalysis, causes: DriftCauses | undefined): PlanAnalysis {
  return causes ? { ...analysis, causes } : analysis;
}
