import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'yaml';
import { describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.js';
import { byKind, COMPOSE_FILE, loadManifests, ROOT } from './deploy-files.js';

/**
 * What the deployment files name must exist: a CLI command and its flags, an environment variable, an
 * HTTP path. Only the scale-out mode's worker command (issue 13, being written) may be missing today;
 * once it exists its flags are checked like the others.
 */
const SCALE_OUT_COMMANDS = ['worker'];

const manifests = loadManifests();
const compose = parse(readFileSync(COMPOSE_FILE, 'utf8'), { merge: true }) as {
  services: Record<
    string,
    { command?: string[] | string; entrypoint?: unknown; environment?: Record<string, unknown> }
  >;
};
const deployments = byKind(manifests, 'Deployment');

/** Every driftgate command line, from the Deployments and the compose services that run the image's CLI. */
const commandLines: { where: string; args: string[] }[] = [
  ...[...deployments, ...byKind(manifests, 'Job')].flatMap((d) =>
    d.spec.template.spec.containers.map((c: { args: string[] }) => ({ where: d.metadata.name, args: c.args })),
  ),
  ...Object.entries(compose.services)
    .filter(([, s]) => Array.isArray(s.command) && !s.entrypoint && s.command[0] !== 'server')
    .map(([name, s]) => ({ where: `compose ${name}`, args: s.command as string[] })),
];

function sourceText(dir: string): string {
  return readdirSync(dir, { recursive: true, encoding: 'utf8' })
    .filter((f) => f.endsWith('.ts'))
    .map((f) => readFileSync(join(dir, f), 'utf8'))
    .join('\n');
}
const src = sourceText(join(ROOT, 'src'));

const configTexts = [
  byKind(manifests, 'ConfigMap').map((m) => Object.values<string>(m.data).join('\n')),
  readFileSync(join(ROOT, 'deploy/compose/driftgate.yml'), 'utf8'),
].join('\n');

describe('deploy: the names it uses exist', () => {
  it('runs real driftgate commands with flags they take', async () => {
    expect(commandLines.length).toBeGreaterThan(4);
    const missing = new Set<string>();
    for (const { where, args } of commandLines) {
      const [command, ...rest] = args;
      const help = await runCli([command!, '--help'], { cwd: ROOT, env: {} });
      if (help.code !== 0) {
        expect(SCALE_OUT_COMMANDS, `${where}: driftgate ${command}`).toContain(command);
        missing.add(command!);
        continue;
      }
      for (const flag of rest.filter((a) => a.startsWith('--')))
        expect(help.stdout, `${where}: ${flag}`).toContain(flag);
    }
    expect(commandLines.map((c) => c.args[0])).toContain('serve');
    // The report of what is not there yet; it changes when the worker command lands.
    expect([...missing].every((c) => SCALE_OUT_COMMANDS.includes(c))).toBe(true);
  });

  it('gives driftgate only variables it reads, or that its config names', () => {
    const variables = [
      ...[...deployments, ...byKind(manifests, 'Job')].flatMap((d) =>
        d.spec.template.spec.containers.flatMap((c: { env?: { name: string }[] }) => (c.env ?? []).map((e) => e.name)),
      ),
      ...Object.entries(compose.services)
        .filter(([, s]) => Array.isArray(s.command) && (s.command[0] === 'serve' || s.command[0] === 'worker'))
        .flatMap(([, s]) => Object.keys(s.environment ?? {})),
    ];
    expect(variables).toContain('DATABASE_URL');
    for (const name of new Set(variables)) {
      const read = new RegExp(`\\b${name}\\b`).test(src);
      const named = new RegExp(`\\$\\{${name}(:-[^}]*)?\\}|(routingKeyEnv|tokenEnv): ${name}\\b`).test(configTexts);
      expect(read || named, name).toBe(true);
    }
  });

  it('probes and documents HTTP paths driftgate serves', () => {
    const deployText = [
      readFileSync(join(ROOT, 'deploy/README.md'), 'utf8'),
      readFileSync(COMPOSE_FILE, 'utf8'),
      ...readdirSync(join(ROOT, 'deploy/kubernetes')).map((f) =>
        readFileSync(join(ROOT, 'deploy/kubernetes', f), 'utf8'),
      ),
    ].join('\n');
    const paths = new Set(deployText.match(/(?<![\w.:/-])\/(healthz|readyz|metrics|slack\/\w+|github\/\w+)\b/g));
    expect([...paths]).toEqual(expect.arrayContaining(['/healthz', '/readyz', '/slack/events', '/github/webhook']));
    for (const path of paths) expect(src, path).toContain(`'${path}'`);
  });
});
