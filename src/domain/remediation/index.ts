export { hclLiteral, quoteString } from './hcl-literal.js';
export { type AttributeEdit, type AttributePath, formatPath, type RewriteResult, rewriteAttribute } from './rewrite-attribute.js';
export { planRemediation, type RemediationEdit, type RemediationOptions, type RemediationPlan, type RemediationSkip, type SkipCode, type StackFile } from './plan-remediation.js';
