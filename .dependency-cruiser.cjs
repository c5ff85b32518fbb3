/**
 * driftgate's layers, lowest first: domain <- ports <- config <- adapters | services <- slack | http <- app
 * <- cli <- bin. An import may point down or sideways within its layer, never up; no module cycles. Inside
 * adapters/store, sqlite/ and postgres/ each build on shared/ and never on each other.
 * `npm run lint` checks it (dependency-cruiser), so an arrow that runs back up fails CI.
 * @type {import('dependency-cruiser').IConfiguration}
 */
const up = (name, from, to, comment) => ({ name, severity: 'error', comment, from: { path: from }, to: { path: to } });

module.exports = {
  forbidden: [
    { name: 'no-circular', severity: 'error', comment: 'modules that import each other', from: {}, to: { circular: true } },
    up('domain-is-pure', '^src/domain/', '^src/(?!domain/)', 'the domain imports nothing of driftgate outside itself'),
    {
      name: 'domain-has-no-io',
      severity: 'error',
      comment: 'the domain does no I/O: no files, processes or network',
      from: { path: '^src/domain/' },
      to: { dependencyTypes: ['core'], path: '^(node:)?(fs|fs/promises|child_process|net|http|https|dgram|dns|tls|worker_threads)$' },
    },
    up('ports-are-interfaces', '^src/ports/', '^src/(?!domain/|ports/)', 'ports speak the domain and nothing else'),
    up('config-is-parsing', '^src/config/', '^src/(?!domain/|config/)', 'the config is parsed into domain types; it knows no adapter'),
    up('logging-and-metrics-are-leaves', '^src/(logging|metrics)/', '^src/(?!domain/|logging/|metrics/|ports/)', 'used by everyone, using no one'),
    up('adapters-below-use-cases', '^src/adapters/', '^src/(services|slack|http|app|cli|bin)/', 'an adapter implements a port; it calls no use case'),
    up('services-through-ports', '^src/services/', '^src/(adapters|config|slack|http|app|cli|bin|logging|metrics)/', 'use cases reach the outside through ports only'),
    up('listeners-below-wiring', '^src/(slack|http)/', '^src/(app|cli|bin|adapters)/', 'listeners and routes get their deps passed in; only src/app wires adapters'),
    up('slack-blocks-render-only', '^src/slack/blocks/', '^src/slack/(?!blocks/|action-ids|limits)', 'Block Kit renderers are pure functions of domain objects'),
    up('slack-notifier-renders', '^src/slack/notifier/', '^src/services/(?!notify/|outbox/|runtime/)', 'the notifier renders what services/notify decides and hands it (run-content.ts); it reads no run, check or apply service itself'),
    up('slack-notifier-below-listeners', '^src/slack/notifier/', '^src/slack/listeners/', 'listeners use the notifier, never the other way'),
    up('store-sqlite-apart', '^src/adapters/store/sqlite/', '^src/adapters/store/postgres/', 'the SQLite store shares only adapters/store/shared with the Postgres one'),
    up('store-postgres-apart', '^src/adapters/store/postgres/', '^src/adapters/store/sqlite/', 'the Postgres store shares only adapters/store/shared with the SQLite one'),
    up('store-shared-is-shared', '^src/adapters/store/shared/', '^src/adapters/store/(?!shared/)', 'what both stores use depends on neither'),
    up('app-below-cli', '^src/app/', '^src/(cli|bin)/', 'the composition root is called by the entry points'),
    up('cli-below-bin', '^src/cli/', '^src/bin/', 'bin only starts the CLI'),
    up('cli-calls-app', '^src/cli/', '^src/(adapters|services)/', 'a command parses and calls src/app, which wires the adapters and use cases'),
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    includeOnly: '^src/',
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    enhancedResolveOptions: { exportsFields: ['exports'], conditionNames: ['import', 'require', 'node', 'default'], extensions: ['.ts', '.js'] },
  },
};
