/** The part of semver (a devDependency without bundled types) the tests use. */
declare module 'semver' {
  export function satisfies(version: string, range: string): boolean;
  export function minVersion(range: string): { version: string } | null;
  export function validRange(range: string): string | null;
}
