// A one-line progress bar for long admin commands: rows done out of the total
// and the percentage, redrawn in place with a carriage return. It draws only
// on a terminal; elsewhere (a pipe, a log file, a test) it stays silent.

/** Progress of a long piece of work, reported as it goes. */
export interface Progress {
  /** Sets the amount of work to do. */
  start(total: number): void;
  /** Records `count` more units done, while working on `label`. */
  advance(count: number, label: string): void;
  /** Ends the line. */
  finish(): void;
}

/** A progress that reports nothing. */
export const silentProgress: Progress = { start() {}, advance() {}, finish() {} };

const WIDTH = 30;
const REDRAW_MS = 100;

/** A progress bar on `stream` when it is a terminal, else silence. */
export function progressBar(stream: NodeJS.WriteStream = process.stderr): Progress {
  if (!stream.isTTY) return silentProgress;
  let total = 0;
  let done = 0;
  let label = '';
  let drawnAt = 0;
  const draw = () => {
    drawnAt = Date.now();
    const fraction = total > 0 ? Math.min(1, done / total) : 1;
    const filled = Math.round(fraction * WIDTH);
    const bar = `${'#'.repeat(filled)}${'.'.repeat(WIDTH - filled)}`;
    const percent = (fraction * 100).toFixed(1).padStart(5);
    stream.write(`\r[${bar}] ${done}/${total} ${percent}% ${label}`.padEnd(80));
  };
  return {
    start(n) {
      total = n;
      draw();
    },
    advance(count, what) {
      done += count;
      label = what;
      if (Date.now() - drawnAt >= REDRAW_MS) draw();
    },
    finish() {
      label = 'done';
      draw();
      stream.write('\n');
    },
  };
}
