/** The first index of `sorted` (ascending) whose entry is not below `value`: `sorted.length` when there is none. */
export function firstNotBelow<T extends number | string>(sorted: ArrayLike<T>, value: T): number {
  let low = 0;
  let high = sorted.length;
  while (low < high) {
    const middle = (low + high) >>> 1;
    if (sorted[middle]! < value) low = middle + 1;
    else high = middle;
  }
  return low;
}
