/** A mistake in how the command was called: printed with the usage, exit code 2. */
export class UsageError extends Error {
  override readonly name = 'UsageError';
}

/** How a command prints: one JSON object on stdout with `--json`, text otherwise. Progress goes to stderr. */
export interface Output {
  json: boolean;
  /** The result of a command: `value` as one line of JSON, or `text`. */
  result(value: unknown, text: string): void;
  /** A line for the person at the terminal, on stderr (never part of `--json` output). */
  note(text: string): void;
}

export function createOutput(json: boolean): Output {
  return {
    json,
    result(value, text) {
      process.stdout.write(json ? `${JSON.stringify(value)}\n` : `${text}\n`);
    },
    note(text) {
      process.stderr.write(`${text}\n`);
    },
  };
}

/** The command-line arguments after the command name. */
export interface CommandArgs {
  positionals: string[];
  values: Record<string, string | boolean | undefined>;
}

export function stringOption(args: CommandArgs, name: string): string | undefined {
  const value = args.values[name];
  return typeof value === 'string' ? value : undefined;
}
