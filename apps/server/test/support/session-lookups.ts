import type { Storage } from '../../src/db/interface.js';

/**
 * Session lookups a test can hold: wraps a storage so that the next lookup of a session reads its row, then
 * waits until released, the way a request whose read is still on its way back from the database waits. Also
 * counts lookups. Used to show that ending a session refuses such a request (SPEC §3.7).
 */
export class SessionLookups {
  /** Lookups made through the wrapped storage. */
  count = 0;
  private hold: { gate: Promise<void>; read: () => void } | undefined;

  /** For `startTestServer({ wrapStorage })`. */
  readonly wrap = (storage: Storage): Storage =>
    Object.assign(Object.create(storage) as Storage, {
      sessions: Object.assign(Object.create(storage.sessions) as Storage['sessions'], {
        findByTokenHash: async (tokenHash: string) => {
          this.count++;
          const hold = this.hold;
          this.hold = undefined;
          const row = await storage.sessions.findByTokenHash(tokenHash);
          if (hold) {
            hold.read();
            await hold.gate;
          }
          return row;
        },
      }),
    });

  /**
   * Holds the next lookup: `read` resolves once it has read its row, and it answers only after `release()`.
   */
  holdNext(): { read: Promise<void>; release: () => void } {
    let release!: () => void;
    let read!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    const wasRead = new Promise<void>((resolve) => (read = resolve));
    this.hold = { gate, read };
    return { read: wasRead, release };
  }
}
