export { hclLiteral, quoteString } from './hcl-literal.js';
export { type AttributeEdit, type AttributePath, formatPath, type RewriteResult, rewriteAttribute } from './rewrite-attribute.js';
