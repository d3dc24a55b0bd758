import { pino, type DestinationStream, type Logger } from 'pino';

/**
 * Structured JSON logs (pino), with the fields that may hold a secret censored. Request lines are written by
 * `http/request-log.ts`.
 */

/** Log lines are written to stdout in chunks of about this many characters (bytes, for ASCII lines)... */
const logChunkLength = 4_096;
/** ...and none waits longer than this to be written. */
const logFlushIntervalMs = 200;

/** The buffered stdout destinations this module made, to be written out before the process exits. */
const buffered = new WeakMap<Logger, { flushSync(): void }>();

/**
 * Writes out whatever log lines are still buffered, synchronously: for the moment before `process.exit`.
 */
export function flushLogs(logger: Logger): void {
  try {
    buffered.get(logger)?.flushSync();
  } catch {
    // stdout is gone (closed pipe): nothing more can be written anyway.
  }
}

/** A logger that writes nothing, for what is built without one (tests, the bench's references). */
export const silentLogger: Logger = pino({ level: 'silent' });

export function createLogger(level: string, destination?: DestinationStream): Logger {
  const options = {
    level,
    base: null,
    // Belt and braces: should anything ever log these paths, they are censored.
    redact: {
      paths: [
        'headers',
        '*.headers',
        'key',
        '*.key',
        'apiKey',
        '*.apiKey',
        'password',
        '*.password',
        'token',
        '*.token',
        'cookie',
        '*.cookie',
      ],
      censor: '[redacted]',
    },
  };
  if (destination) return pino(options, destination);
  // Lines go to stdout in chunks, written off the event loop: one write per line (pino's default) cost a
  // thread-pool round trip per request, 14 % of the server's time under load (`pnpm bench:profile`). A line
  // waits at most `logFlushIntervalMs`; a crash loses at most that much, and an orderly exit none (`flushLogs`).
  const stdout = new ChunkedLines(pino.destination({ dest: 1, sync: false }), logChunkLength);
  setInterval(() => stdout.flush(), logFlushIntervalMs).unref();
  const logger = pino(options, stdout);
  buffered.set(logger, stdout);
  return logger;
}

/**
 * Gathers lines into chunks of about `chunkLength` characters and hands each chunk to the destination in one write.
 *
 * sonic-boom can buffer by itself (`minLength`), but it appends each line to its pending text and measures that
 * text's UTF-8 length on every write, which flattens it: every line copied the whole pending chunk (up to
 * 16 KB while a write was under way). Those copies lived across young-generation collections and were
 * promoted, about 10 KB per request: under the distinct-URL load (`pnpm bench -- --distinct`) 1.8 MB promoted
 * per scavenge and 12 full collections in 5 s, against 0.2 MB and one without request lines. Lines are
 * therefore kept in an array here and joined once per chunk.
 */
export class ChunkedLines implements DestinationStream {
  private lines: string[] = [];
  /** Characters in `lines`: enough to size a chunk (counting UTF-8 bytes would cost a pass over each line). */
  private length = 0;

  constructor(
    private readonly destination: DestinationStream & {
      flush(done?: (error?: Error) => void): void;
      flushSync(): void;
    },
    private readonly chunkLength: number,
  ) {}

  write(line: string): void {
    this.lines.push(line);
    this.length += line.length;
    if (this.length >= this.chunkLength) this.flush();
  }

  /**
   * Hands what is gathered to the destination, which writes it off the event loop; `done` (pino's
   * `logger.flush(done)`) is called once the destination has written it.
   */
  flush(done?: (error?: Error) => void): void {
    if (this.lines.length > 0) {
      const chunk = this.lines.join('');
      this.lines = [];
      this.length = 0;
      this.destination.write(chunk);
    }
    if (done) this.destination.flush(done);
  }

  /** Writes out everything, the destination's pending text included, before returning. */
  flushSync(): void {
    this.flush();
    this.destination.flushSync();
  }
}
