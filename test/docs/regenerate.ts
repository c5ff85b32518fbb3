/**
 * Rewrites the generated parts of the docs from the code: `npm run docs:config`.
 * test/docs/configuration-reference.test.ts checks that they are current.
 */
import { readFile, writeFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { GENERATED_SECTIONS, withGeneratedPart } from './generated-sections.js';

const root = resolve(import.meta.dirname, '../../..');
for (const section of GENERATED_SECTIONS) {
  const file = join(root, section.file);
  const doc = await readFile(file, 'utf8');
  const next = withGeneratedPart(doc, section);
  if (next !== doc) await writeFile(file, next);
  process.stdout.write(`${section.file}: ${section.name} ${next === doc ? 'unchanged' : 'regenerated'}\n`);
}
