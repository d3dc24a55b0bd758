import { apiKeyDisplayStartLength } from '@releases/contract/wire';

/** How much the SDK logs: nothing, errors, warnings, retries (`info`) or every request (`debug`). */
export type LogLevel = 'off' | 'error' | 'warn' | 'info' | 'debug';

/** Anything with console's methods: `console`, pino, winston... */
export interface Logger {
  /** Failures the SDK cannot recover from. */
  error(message: string, ...details: unknown[]): void;
  /** Something you should look at. */
  warn(message: string, ...details: unknown[]): void;
  /** Retries, with the reason and the wait. */
  info(message: string, ...details: unknown[]): void;
  /** Every request, with its headers redacted. */
  debug(message: string, ...details: unknown[]): void;
}

const order: Record<LogLevel, number> = { off: 0, error: 1, warn: 2, info: 3, debug: 4 };

/** Headers as they may appear in a log: credentials cut to a recognisable prefix, cookies removed. */
export function redactHeaders(headers: Headers): Record<string, string> {
  const out: Record<string, string> = {};
  headers.forEach((value, name) => {
    if (name === 'x-api-key') out[name] = `${value.slice(0, apiKeyDisplayStartLength)}…`;
    else if (name === 'authorization') out[name] = `${value.split(' ')[0] ?? ''} …`;
    else if (name === 'cookie' || name === 'set-cookie') out[name] = '…';
    else out[name] = value;
  });
  return out;
}

/** A logger that drops messages below `level`. */
export function levelLogger(logger: Logger, level: LogLevel): Logger {
  const enabled = (at: LogLevel) => order[at] <= order[level];
  return {
    error: (message, ...details) => enabled('error') && logger.error(message, ...details),
    warn: (message, ...details) => enabled('warn') && logger.warn(message, ...details),
    info: (message, ...details) => enabled('info') && logger.info(message, ...details),
    debug: (message, ...details) => enabled('debug') && logger.debug(message, ...details),
  };
}
