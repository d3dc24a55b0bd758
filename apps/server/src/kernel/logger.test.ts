import { describe, expect, it } from 'vitest';
import { ChunkedLines } from './logger.js';

/** A destination that records each write, and whether a synchronous flush reached it. */
function recorder() {
  const writes: string[] = [];
  let flushedSync = 0;
  return {
    writes,
    flushedSync: () => flushedSync,
    destination: {
      write: (chunk: string) => void writes.push(chunk),
      flush: (done?: (error?: Error) => void) => done?.(),
      flushSync: () => void flushedSync++,
    },
  };
}

describe('ChunkedLines', () => {
  it('hands lines on in one write once a chunk is full, whole and in order', () => {
    const out = recorder();
    const lines = new ChunkedLines(out.destination, 30);
    lines.write('{"n":1}\n');
    lines.write('{"n":2}\n');
    lines.write('{"n":3}\n');
    expect(out.writes).toEqual([]);
    lines.write('{"n":4}\n');
    expect(out.writes).toEqual(['{"n":1}\n{"n":2}\n{"n":3}\n{"n":4}\n']);
    lines.write('{"n":5}\n');
    expect(out.writes).toHaveLength(1);
  });

  it('hands on what it holds when flushed, and nothing when it holds nothing', () => {
    const out = recorder();
    const lines = new ChunkedLines(out.destination, 4_096);
    lines.flush();
    expect(out.writes).toEqual([]);
    lines.write('{"msg":"request"}\n');
    lines.flush();
    lines.flush();
    expect(out.writes).toEqual(['{"msg":"request"}\n']);
  });

  it("calls pino's flush callback once the destination has written what it held", async () => {
    const out = recorder();
    const lines = new ChunkedLines(out.destination, 4_096);
    lines.write('{"msg":"request"}\n');
    await new Promise<void>((resolve, reject) => lines.flush((error) => (error ? reject(error) : resolve())));
    expect(out.writes).toEqual(['{"msg":"request"}\n']);
  });

  it('writes everything out synchronously, the destination included, for the moment before an exit', () => {
    const out = recorder();
    const lines = new ChunkedLines(out.destination, 4_096);
    lines.write('{"msg":"shutting down"}\n');
    lines.flushSync();
    expect(out.writes).toEqual(['{"msg":"shutting down"}\n']);
    expect(out.flushedSync()).toBe(1);
  });
});
