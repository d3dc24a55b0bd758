// Types for load-balancer.mjs, which the server's multi-instance test imports.
export interface LoadBalancer {
  pid: number;
  prefix: string;
  accessLog(): string[];
  stop(options?: { keep?: boolean }): Promise<void>;
}
export function nginxBinary(): string | undefined;
export function renderNginxConfig(options: { prefix: string; listen: string; upstreams: string[] }): string;
export function startLoadBalancer(options: { port: number; upstreams: string[] }): Promise<LoadBalancer>;
