/**
 * Many short strings (a million releases' ids, or their search titles) as UTF-8 in one buffer: about their
 * length in bytes each, where a million JavaScript strings cost 30-40 bytes each more in headers and
 * pointers, and hold the garbage collector's marking up on every full collection.
 */
export class PackedStrings {
  private constructor(
    private readonly bytes: Buffer,
    /** String `i` is `bytes[starts[i]..starts[i + 1])`. */
    private readonly starts: Int32Array,
  ) {}

  get length(): number {
    return this.starts.length - 1;
  }

  get(i: number): string {
    return this.bytes.toString('utf8', this.starts[i], this.starts[i + 1]);
  }

  /** Whether string `i` is `other` (as UTF-8). */
  equals(i: number, other: Uint8Array): boolean {
    const start = this.starts[i]!;
    return (
      this.starts[i + 1]! - start === other.length &&
      this.bytes.compare(other, 0, other.length, start, start + other.length) === 0
    );
  }

  /** Whether string `i` begins with `prefix` (as UTF-8; whole characters, so bytes and characters agree). */
  startsWith(i: number, prefix: Uint8Array): boolean {
    const start = this.starts[i]!;
    return (
      this.starts[i + 1]! - start >= prefix.length &&
      this.bytes.compare(prefix, 0, prefix.length, start, start + prefix.length) === 0
    );
  }

  /** Collects strings in order (`add`), then `done`. */
  static builder(): { add(text: string): void; done(): PackedStrings } {
    let bytes = Buffer.allocUnsafe(1 << 16);
    let used = 0;
    const starts: number[] = [0];
    return {
      add(text) {
        // At most three bytes per UTF-16 code unit.
        if (used + text.length * 3 > bytes.length) {
          const grown = Buffer.allocUnsafe(Math.max(bytes.length * 2, used + text.length * 3));
          bytes.copy(grown, 0, 0, used);
          bytes = grown;
        }
        used += bytes.write(text, used, 'utf8');
        starts.push(used);
      },
      done() {
        // A copy of exactly the bytes used, so the doubling's slack is given back.
        return new PackedStrings(Buffer.from(bytes.subarray(0, used)), Int32Array.from(starts));
      },
    };
  }
}
