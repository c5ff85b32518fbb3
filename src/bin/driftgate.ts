#!/usr/bin/env node
import { useProxyFromEnv } from '../adapters/proxy/env-proxy.js';
import { main } from '../cli/main.js';

// Process-wide, before any request: HTTPS_PROXY / NO_PROXY for every fetch (Slack, GitHub, PagerDuty).
useProxyFromEnv(process.env);

const handlers: ((signal: string) => void)[] = [];
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.on(signal, () => {
    if (handlers.length === 0) process.exit(130);
    for (const h of handlers.splice(0)) h(signal);
  });
}

const code = await main(process.argv.slice(2), {
  stdout: process.stdout,
  stderr: process.stderr,
  env: process.env,
  cwd: process.cwd(),
  onShutdown: (handler) => handlers.push(handler),
});
process.exitCode = code;
