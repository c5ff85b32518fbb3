import picomatch from 'picomatch';

/**
 * Whether a stack name matches a pattern from config or a command: the exact name, or a glob where `*`
 * stays within one path segment (`prod/*`, `*\/database`) and `**` crosses them. A pattern of a lone `*`
 * means every stack, which is what a person writing `stacks: "*"` means.
 */
export function stackMatcher(pattern: string): (name: string) => boolean {
  if (pattern === '*') return () => true;
  const isMatch = picomatch(pattern);
  return (name) => name === pattern || isMatch(name);
}
