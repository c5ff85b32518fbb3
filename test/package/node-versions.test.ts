import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { minVersion, satisfies, validRange } from 'semver';
import { describe, expect, it } from 'vitest';

const root = join(import.meta.dirname, '../..');
const read = (file: string) => readFileSync(join(root, file), 'utf8');
const pkg = JSON.parse(read('package.json')) as { engines: { node: string }; devDependencies: Record<string, string> };
const lock = JSON.parse(read('package-lock.json')) as {
  packages: Record<string, { engines?: { node?: string } | string[]; optional?: boolean }>;
};
const engines = pkg.engines.node;
const lowest = minVersion(engines)!.version;

describe('supported Node versions', () => {
  it('engines names a lowest version, which the lock file records for driftgate too', () => {
    expect(validRange(engines)).not.toBeNull();
    expect(lowest).toBe('22.13.0');
    expect(lock.packages['']?.engines).toEqual({ node: engines });
  });

  it('every locked package accepts the lowest supported Node (no EBADENGINE on a supported Node)', () => {
    const refused = Object.entries(lock.packages)
      .filter(([path]) => path !== '')
      .flatMap(([path, entry]) => {
        const range = Array.isArray(entry.engines) ? undefined : entry.engines?.node;
        return range && !satisfies(lowest, range) ? [`${path} wants node ${range}`] : [];
      });
    expect(refused).toEqual([]);
  });

  it("the Docker image's Node is a supported one", () => {
    const image = /^ARG NODE_IMAGE=node:(\d+)-/m.exec(read('Dockerfile'))?.[1];
    expect(image).toBe('22');
    expect(satisfies(`${image}.99.0`, engines)).toBe(true);
  });

  it('the README says the same', () => {
    const readme = read('README.md');
    expect(readme).toContain('You need Node.js 22.13 or newer');
    expect(readme).toContain(`\`engines\` in \`package.json\`: \`${engines}\``);
    expect(readme).toContain('the Docker image runs Node 22');
  });

  // Node 20 is unsupported, but CI runs on it until its machine is replaced: the code keeps to its APIs.
  it('types stay at Node 20 while CI runs on it', () => {
    expect(pkg.devDependencies['@types/node']).toMatch(/^\^20\./);
  });
});
