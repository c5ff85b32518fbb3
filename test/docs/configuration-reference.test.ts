import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { configurationOptions } from '../../src/config/reference.js';
import { ConfigFile } from '../../src/config/schema.js';
import { GENERATED_SECTIONS, generatedPart, REGENERATE } from './generated-sections.js';

const ROOT = resolve(import.meta.dirname, '../..');

describe('the generated parts of the docs', () => {
  it.each(GENERATED_SECTIONS.map((s) => [`${s.file} (${s.name})`, s] as const))(
    '%s is what the code generates now',
    (_, section) => {
      const part = generatedPart(readFileSync(join(ROOT, section.file), 'utf8'), section);
      expect(part, `${section.file} lost the marker comments of "${section.name}"`).toBeDefined();
      expect(
        part === section.render(),
        `${section.file}'s generated "${section.name}" differs from ${section.source}: run \`${REGENERATE}\` and commit the result`,
      ).toBe(true);
    },
  );
});

describe('the option reference', () => {
  const options = configurationOptions();

  it('describes every option of driftgate.yml', () => {
    expect(options.filter((o) => !o.description).map((o) => o.path)).toEqual([]);
  });

  it('names each option once, with the defaults the parser fills in', () => {
    const paths = options.map((o) => o.path);
    expect(paths.filter((p, i) => paths.indexOf(p) !== i)).toEqual([]);
    const byPath = new Map(options.map((o) => [o.path, o.default]));
    const parsed = ConfigFile.parse({ version: 1 });
    expect(byPath.get('terraform.timeouts.plan')).toBe('`30m`');
    expect(parsed.terraform.timeouts.plan).toBe(30 * 60_000);
    expect(byPath.get('defaults.schedule')).toBe(`\`${parsed.defaults.schedule}\``);
    expect(byPath.get('defaults.pool')).toBe(`\`${parsed.defaults.pool}\``);
    expect(byPath.get('store.type')).toBe(`\`${parsed.store.type}\``);
    expect(byPath.get('terraform.outputLimitBytes')).toBe(`\`${parsed.terraform.outputLimitBytes}\``);
    expect(byPath.get('defaults.concurrency')).toBe('the number of CPU cores');
  });
});
