import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { execa } from 'execa';
import { describe, expect, it } from 'vitest';

/** A merge once committed its conflict markers into bench/results.md: no tracked text file holds one. */
const ROOT = join(import.meta.dirname, '../..');
const MARKER = /^(<{7} |={7}$|>{7} )/m;

describe('the tracked files', () => {
  it('hold no merge conflict markers', async () => {
    const { stdout } = await execa('git', ['ls-files', '-z'], { cwd: ROOT });
    const files = stdout.split('\0').filter((f) => /\.(ts|js|json|md|ya?ml|sh|tf|sql)$|^\.ci\//.test(f));
    expect(files.length).toBeGreaterThan(100);
    const marked: string[] = [];
    for (const file of files) {
      const text = await readFile(join(ROOT, file), 'utf8').catch(() => '');
      if (MARKER.test(text)) marked.push(file);
    }
    expect(marked).toEqual([]);
  });
});
