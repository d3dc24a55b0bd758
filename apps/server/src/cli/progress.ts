/** A progress bar on stderr: redrawn in place on a terminal, a line every 10% otherwise (CI logs). */
export function progressBar(total: number, label: string): { update(done: number): void; finish(): void } {
  const started = Date.now();
  const interactive = process.stderr.isTTY === true;
  let lastDecile = -1;
  const render = (done: number) => {
    const ratio = total === 0 ? 1 : done / total;
    const width = 30;
    const filled = Math.round(ratio * width);
    const seconds = ((Date.now() - started) / 1000).toFixed(1);
    return `${label} [${'#'.repeat(filled)}${'-'.repeat(width - filled)}] ${(ratio * 100).toFixed(0).padStart(3)}% ${done}/${total} ${seconds}s`;
  };
  return {
    update(done) {
      if (interactive) {
        process.stderr.write(`\r${render(done)}`);
        return;
      }
      const decile = Math.floor((done / Math.max(total, 1)) * 10);
      if (decile !== lastDecile) {
        lastDecile = decile;
        process.stderr.write(`${render(done)}\n`);
      }
    },
    finish() {
      if (interactive) process.stderr.write('\n');
    },
  };
}
