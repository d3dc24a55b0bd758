import { Writable } from 'node:stream';
import { pino, type Logger } from 'pino';
import { describe, expect, it } from 'vitest';
import { OutageLog } from './outage-log.js';

function captured(): { logger: Logger; lines: () => Array<Record<string, unknown>> } {
  const lines: string[] = [];
  const stream = new Writable({
    write(chunk: Buffer, _encoding, done) {
      lines.push(chunk.toString());
      done();
    },
  });
  return {
    logger: pino({ level: 'info' }, stream),
    lines: () => lines.map((line) => JSON.parse(line) as Record<string, unknown>),
  };
}

describe('OutageLog', () => {
  it('logs an outage once when it starts, once a minute with a count while it lasts, once when it ends', () => {
    let now = 0;
    const { logger, lines } = captured();
    const outages = new OutageLog('the database', logger, { now: () => now });
    outages.answered();
    expect(lines()).toEqual([]);
    for (let i = 0; i < 500; i++) {
      outages.failed(new Error('connection refused'));
      now += 300; // 150 s of failures, one every 300 ms
    }
    outages.answered();
    outages.answered();
    const logged = lines();
    expect(logged.map((line) => line.msg)).toEqual([
      'the database is not answering',
      'the database is still not answering',
      'the database is still not answering',
      'the database answers again',
    ]);
    expect(logged[0]).toMatchObject({ level: 50, dependency: 'the database', err: { message: 'connection refused' } });
    // Each minute's line counts the failures since the last line; the last says how long, and how many in all.
    expect(logged[1]).toMatchObject({ level: 40, failed: 200, downForSeconds: 60 });
    expect(logged[2]).toMatchObject({ failed: 200, downForSeconds: 120 });
    expect(logged[3]).toMatchObject({ level: 30, failed: 500, downForSeconds: 150 });
    expect(outages.down).toBe(false);
  });

  it('starts over after it ends: the next outage is logged again at once', () => {
    let now = 0;
    const { logger, lines } = captured();
    const outages = new OutageLog('Redis', logger, { now: () => now, intervalMs: 1_000 });
    outages.failed(new Error('a'));
    outages.answered();
    now += 10;
    outages.failed(new Error('b'));
    expect(outages.down).toBe(true);
    expect(lines().map((line) => line.msg)).toEqual([
      'Redis is not answering',
      'Redis answers again',
      'Redis is not answering',
    ]);
  });
});
