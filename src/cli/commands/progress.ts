import type { CliIo } from '../io.js';

/** A bar on stderr while a terminal watches: `[#####.....] 5000/10000 rows`. */
export function progressBar(io: CliIo, done: number, total?: number) {
  if (!io.progress) return;
  if (total === undefined) return io.progress(`${done} rows`);
  const width = 30;
  const filled = total === 0 ? width : Math.round((done / total) * width);
  io.progress(`[${'#'.repeat(filled)}${'.'.repeat(width - filled)}] ${done}/${total} rows`);
}
