// A real nginx (Debian's package) round-robining over Releases instances, from docs/nginx.conf: the load
// balancer of the multi-instance test (apps/server/test/process/multi-instance.test.ts) and `pnpm bench -- --instances 2`.
import { spawn, spawnSync } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { setTimeout as delay } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';

const template = path.join(path.dirname(fileURLToPath(import.meta.url)), '..', 'docs', 'nginx.conf');
const candidates = [process.env.NGINX_BINARY, '/usr/sbin/nginx', '/usr/bin/nginx'].filter(Boolean);

/** The nginx binary, or undefined when none is installed (`apt-get install -y nginx-light`). */
export function nginxBinary() {
  return candidates.find((candidate) => existsSync(candidate));
}

/** docs/nginx.conf with its ${...} filled in. */
export function renderNginxConfig({ prefix, listen, upstreams }) {
  const servers = upstreams.map((upstream) => `server ${upstream} max_fails=1 fail_timeout=2s;`).join('\n    ');
  const values = { PREFIX: prefix, LISTEN: listen, UPSTREAM_SERVERS: servers };
  return readFileSync(template, 'utf8').replace(/\$\{([A-Z_]+)\}/g, (whole, name) => values[name] ?? whole);
}

/**
 * Starts nginx in the foreground (its own prefix in a temporary directory) listening on 127.0.0.1:`port`,
 * and resolves once it accepts connections. `stop()` ends it and removes the directory unless `keep`.
 */
export async function startLoadBalancer({ port, upstreams }) {
  const binary = nginxBinary();
  if (!binary) throw new Error('nginx is not installed (apt-get install -y nginx-light)');
  const prefix = mkdtempSync(path.join(tmpdir(), 'releases-nginx-'));
  // Run as root (CI), nginx's workers drop to `nobody`: they must be able to write their temporary files.
  chmodSync(prefix, 0o755);
  for (const dir of ['client_body', 'proxy', 'fastcgi', 'uwsgi', 'scgi']) {
    mkdirSync(path.join(prefix, dir));
    chmodSync(path.join(prefix, dir), 0o777);
  }
  const config = path.join(prefix, 'nginx.conf');
  writeFileSync(config, renderNginxConfig({ prefix, listen: `127.0.0.1:${port}`, upstreams }));
  const args = ['-p', prefix, '-c', config, '-e', path.join(prefix, 'error.log')];
  const check = spawnSync(binary, [...args, '-t'], { encoding: 'utf8' });
  if (check.status !== 0) throw new Error(`nginx refused its configuration:\n${check.stderr}`);

  const child = spawn(binary, [...args, '-g', 'daemon off;'], { stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  child.stderr.on('data', (chunk) => (stderr += chunk));
  const exited = new Promise((resolve) => child.once('exit', resolve));
  for (let attempt = 0; ; attempt++) {
    if (child.exitCode !== null) throw new Error(`nginx exited (${child.exitCode}): ${stderr}`);
    try {
      await fetch(`http://127.0.0.1:${port}/livez`);
      break;
    } catch (error) {
      if (attempt > 100) throw new Error(`nginx did not listen on ${port}: ${stderr}`, { cause: error });
      await delay(50);
    }
  }
  return {
    pid: child.pid,
    prefix,
    /** The access log's lines so far (`upstream=host:port` says which instance answered). */
    accessLog: () => {
      const file = path.join(prefix, 'access.log');
      return existsSync(file) ? readFileSync(file, 'utf8').split('\n').filter(Boolean) : [];
    },
    async stop({ keep = false } = {}) {
      if (child.exitCode === null) {
        // SIGQUIT: nginx's graceful stop, answering what is in flight.
        child.kill('SIGQUIT');
        await Promise.race([exited, delay(5_000)]);
        if (child.exitCode === null) child.kill('SIGKILL');
      }
      if (!keep) rmSync(prefix, { recursive: true, force: true });
    },
  };
}
