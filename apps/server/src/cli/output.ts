import { terminalSafeJson, type PrintableText } from './printable.js';

/** A mistake in how the command was called: printed with the usage, exit code 2. */
export class UsageError extends Error {
  override readonly name = 'UsageError';
  /** Values in the message are escaped like any other output: it is built with `text`. */
  constructor(message: PrintableText) {
    super(message);
  }
}

/**
 * How a command prints: one JSON object on stdout with `--json`, text otherwise. Progress goes to stderr.
 * Human text is `PrintableText` (see `printable.ts`): every value in it was escaped on the way in.
 */
export interface Output {
  json: boolean;
  /** The result of a command: `value` as one line of JSON, or `text`. */
  result(value: unknown, text: PrintableText): void;
  /** A line for the person at the terminal, on stderr (never part of `--json` output). */
  note(text: PrintableText): void;
}

export function createOutput(json: boolean): Output {
  return {
    json,
    result(value, text) {
      process.stdout.write(json ? `${terminalSafeJson(value)}\n` : `${text}\n`);
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
