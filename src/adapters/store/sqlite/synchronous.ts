/**
 * The store port with every promise taken off: what the query modules implement on better-sqlite3, which
 * is synchronous. open-sqlite-store.ts turns them back into the asynchronous port.
 */
export type Synchronous<S> = {
  [K in keyof S]: S[K] extends (...args: infer A) => Promise<infer R> ? (...args: A) => R : S[K];
};
