import { journey, type JourneyConfig } from './journey.js';

/**
 * The journey as a script, for the runtimes that run one (Node, Deno, Bun): the configuration is the first
 * argument, as JSON (Deno runs it without permission to read the environment); the report is the last line
 * on stdout.
 */
const host = globalThis as {
  Deno?: { args: string[] };
  process?: { argv: string[]; exit(code: number): never };
};
const [argument] = host.Deno?.args ?? host.process?.argv.slice(2) ?? [];

try {
  const report = await journey(JSON.parse(argument ?? '') as JourneyConfig);
  console.log(JSON.stringify(report));
  // Keep-alive sockets of some runtimes' fetch would hold the process open for a while.
  host.process?.exit(0);
} catch (error) {
  console.error(error instanceof Error ? (error.stack ?? error.message) : String(error));
  host.process?.exit(1);
}
