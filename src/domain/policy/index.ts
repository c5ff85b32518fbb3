export * from './model.js';
export { compilePolicies, type CompiledPolicy, type CompiledRule, type CompilePoliciesResult } from './compile.js';
export { buildPolicyInput, type PolicyStack } from './input.js';
export { emptyEvaluation, evaluatePolicies } from './evaluate.js';
