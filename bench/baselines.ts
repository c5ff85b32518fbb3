/**
 * Commits that benchmarks compile from git and time beside this checkout in the same run. Kept here, free
 * of the TypeScript compiler baseline-modules.ts loads, so that every benchmark names the same one.
 */

/** The last commit before issue 28 (a structural refactor, no behaviour change) began. */
export const BEFORE_ISSUE_28 = '8517ddfb5c7c5d84754f67177773e2961ae32c87';
