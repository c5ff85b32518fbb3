/**
 * The child side of bench/plan-analysis.ts, in a fresh node process of its own so that only its memory
 * counts in the peak RSS: `node plan-analysis-child.js PLAN_JSON MODULES_DIR` loads the analysis modules
 * of MODULES_DIR (the plan domain's directory of one side), times one cold and three warm analyses of
 * the plan, and prints a ChildReport as JSON.
 */
import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

export interface ChildReport {
  /** Loading the analysis modules (and what they import) in the fresh process. */
  loadMs: number;
  /** The first parse + analysis once they are loaded. */
  analysisMs: number;
  warmAnalysisMs: number;
  peakRssMb: number;
  changes: number;
  drift: number;
  jsonDiffs: number;
  secrets: number;
  /** Deciding each resource's drift causes (issue 27, item 2), within analysisMs; 0 before they existed. */
  causesMs: number;
  /** Resources given causes. */
  causes: number;
}

interface CausesModules {
  decideDriftCauses(evidence: object): Record<string, { kind: string }[]>;
  variableReferences(plan: unknown): Map<string, Set<string>>;
}

/** The drift-cause modules beside the plan domain's directory, when that commit has them. */
async function causesModules(modulesDir: string): Promise<CausesModules | undefined> {
  const dir = join(modulesDir, '../drift-causes');
  if (!existsSync(join(dir, 'decide.js'))) return undefined;
  const { decideDriftCauses } = (await import(pathToFileURL(join(dir, 'decide.js')).href)) as CausesModules;
  const { variableReferences } = (await import(pathToFileURL(join(dir, 'references.js')).href)) as CausesModules;
  return { decideDriftCauses, variableReferences };
}

type AnalysedResource = { address: string; mode?: string; providerName: string; moduleAddress?: string };

/**
 * The causes of every resource of the plan, in the costliest case a check meets: the provider's version
 * and the state moved since the last apply, and an input every resource reads changed (so the plan's
 * configuration is walked for who reads it); every drifted resource is also named by a CloudTrail call.
 */
function decideAll(modules: CausesModules, plan: unknown, analysis: { changes: unknown[]; drift: unknown[] }): number {
  const drift = analysis.drift as AnalysedResource[];
  const drifted = new Set(drift.map((d) => d.address));
  const resources = new Map<string, object>();
  for (const r of [...drift, ...(analysis.changes as AnalysedResource[])])
    if (!resources.has(r.address))
      resources.set(r.address, { address: r.address, providerName: r.providerName, drifted: drifted.has(r.address) });
  const at = new Date('2026-12-01T10:00:00Z');
  const provider = (analysis.changes as AnalysedResource[])[0]?.providerName ?? '';
  const causes = modules.decideDriftCauses({
    resources: [...resources.values()],
    kind: 'drift',
    reference: {
      made: 'apply',
      runId: 'r_bench',
      at,
      evidence: { providers: { [provider]: '0.9.0' }, state: { serial: 1, lineage: 'l' } },
    },
    current: { providers: { [provider]: '1.0.0' }, state: { serial: 3, lineage: 'l' } },
    changedInputs: [{ source: 'env', name: 'token', change: 'changed' }],
    variableReferences: modules.variableReferences(plan),
    attribution: {
      status: 'found',
      changes: drift.map((d) => ({
        resource: d.address,
        principal: { display: 'alice' },
        how: 'console',
        eventName: 'PutRolePolicy',
        at,
      })),
    },
  });
  return Object.keys(causes).length;
}

interface AnalysisModules {
  parsePlanJson(text: string): unknown;
  analyzePlan(plan: unknown): {
    analysis: { changes: { attributes: { json?: unknown }[] }[]; drift: unknown[] };
    redactor: { size: number };
  };
}

/**
 * Child side: the analysis modules of `modulesDir` (the plan domain's directory) loaded, then one cold
 * parse + analysis (what a fresh `driftgate check` pays), then warm ones. The modules are imported here,
 * timed, not at the top of this file.
 */
async function childMain(planJsonFile: string, modulesDir: string): Promise<void> {
  const text = await readFile(planJsonFile, 'utf8');
  const loading = performance.now();
  const { parsePlanJson } = (await import(pathToFileURL(join(modulesDir, 'schema.js')).href)) as AnalysisModules;
  const { analyzePlan } = (await import(pathToFileURL(join(modulesDir, 'analyze.js')).href)) as AnalysisModules;
  const causes = await causesModules(modulesDir);
  const started = performance.now();
  const loadMs = started - loading;
  const plan = parsePlanJson(text);
  const { analysis, redactor } = analyzePlan(plan);
  const causesStarted = performance.now();
  const causeCount = causes ? decideAll(causes, plan, analysis) : 0;
  const analysisMs = performance.now() - started;
  const causesMs = performance.now() - causesStarted;
  // Peak RSS of one analysis: read before the warm runs pile up their garbage.
  const peakRssMb = process.resourceUsage().maxRSS / 1024;
  const warm: number[] = [];
  for (let i = 0; i < 3; i++) {
    const t = performance.now();
    const again = parsePlanJson(text);
    const analysed = analyzePlan(again);
    if (causes) decideAll(causes, again, analysed.analysis);
    warm.push(performance.now() - t);
  }
  const report: ChildReport = {
    loadMs,
    analysisMs,
    warmAnalysisMs: warm.sort((a, b) => a - b)[1]!,
    peakRssMb,
    changes: analysis.changes.length,
    drift: analysis.drift.length,
    jsonDiffs: analysis.changes.filter((c) => c.attributes.some((a) => a.json !== undefined)).length,
    secrets: redactor.size,
    causesMs,
    causes: causeCount,
  };
  process.stdout.write(JSON.stringify(report));
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  await childMain(process.argv[2]!, process.argv[3]!);
}
