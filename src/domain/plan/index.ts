export * from './model.js';
export { analyzePlan, countActions } from './analyze.js';
export { fingerprintChanges, type ChangeSet } from './fingerprint.js';
export { canonicalJson, canonicalValue } from './canonical.js';
export { collectSecrets, createRedactor, isDistinctiveSecret, type SecretValue } from './redact.js';
export { formatCounts, renderPlanText, type RenderTextOptions } from './render-text.js';
export { formatDiffValue, formatLiteral } from './render-value.js';
export { formatPath, type PathSegment } from './paths.js';
export { parsePlanJson, planJsonSchemas, type PlanJson } from './schema.js';
