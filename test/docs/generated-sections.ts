import { environmentTable } from '../../src/config/environment.js';
import { configurationReference } from '../../src/config/reference.js';

/**
 * The parts of the docs generated from the code, between two marker comments each: the reader keeps the
 * prose around them, `npm run docs:config` rewrites what is between, and configuration-reference.test.ts
 * fails when what is committed differs from what the code generates now.
 */
export interface GeneratedSection {
  file: string;
  name: string;
  source: string;
  render: () => string;
}

export const GENERATED_SECTIONS: readonly GeneratedSection[] = [
  { file: 'docs/configuration.md', name: 'options', source: 'src/config/schema.ts', render: configurationReference },
  { file: 'docs/production.md', name: 'environment', source: 'src/config/environment.ts', render: environmentTable },
];

export const REGENERATE = 'npm run docs:config';

const begin = (s: GeneratedSection) =>
  `<!-- generated: ${s.name}, from ${s.source} by \`${REGENERATE}\`; change it there, not here -->`;
const end = (s: GeneratedSection) => `<!-- end of generated: ${s.name} -->`;

/** What is between the section's markers in `doc`; undefined when the markers are missing. */
export function generatedPart(doc: string, section: GeneratedSection): string | undefined {
  const from = doc.indexOf(begin(section));
  const to = doc.indexOf(end(section));
  if (from < 0 || to < from) return undefined;
  return doc.slice(from + begin(section).length + 1, to);
}

/** `doc` with the section's part replaced by what the code generates now. */
export function withGeneratedPart(doc: string, section: GeneratedSection): string {
  const part = generatedPart(doc, section);
  if (part === undefined) throw new Error(`${section.file} has no markers for "${section.name}": ${begin(section)}`);
  const from = doc.indexOf(begin(section)) + begin(section).length + 1;
  return `${doc.slice(0, from)}${section.render()}${doc.slice(from + part.length)}`;
}
