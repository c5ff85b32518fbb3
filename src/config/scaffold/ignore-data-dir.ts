/** What `driftgate init` keeps out of Git: the default data dir, which holds saved plans with secrets in clear. */
export const DATA_DIR_IGNORE = '.driftgate/';

/**
 * A .gitignore's text with the data dir added, or undefined when a line already ignores it
 * (`.driftgate`, `.driftgate/`, `/.driftgate`, `/.driftgate/`).
 */
export function withDataDirIgnored(text: string): string | undefined {
  const ignored = text.split(/\r?\n/).some((line) => /^\/?\.driftgate\/?$/.test(line.trim()));
  if (ignored) return undefined;
  const separator = text === '' || text.endsWith('\n') ? '' : '\n';
  return `${text}${separator}# driftgate's data dir: its store and saved plans (secrets in clear)\n${DATA_DIR_IGNORE}\n`;
}
