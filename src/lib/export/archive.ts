// The layout of an organization's export archive (a .tar.gz): manifest.json,
// then one JSON-lines file per table (tables/<Model>.jsonl, one row a line, so
// that neither side ever holds a whole table), the uploaded files under
// uploads/<path id>, the custom emoji images under emoji/<file name> and the
// uploaded avatars' images under avatars/<file name>.
import { createReadStream, createWriteStream, type WriteStream } from 'node:fs';
import { once } from 'node:events';
import { createInterface } from 'node:readline';
import type { Row } from './tables';

/** The archive format this server writes and reads. */
export const ARCHIVE_FORMAT = 1;

/** What the archive holds, written last as manifest.json. */
export interface Manifest {
  format: number;
  /** The organization's ID and subdomain on the exporting server. */
  realm_id: number;
  string_id: string;
  /** When the export was made, in UNIX seconds. */
  exported_at: number;
  /** Per exported table: its rows and the range of its `id` column, if it has one. */
  tables: Record<string, { rows: number; min_id: number | null; max_id: number | null }>;
  /** Files in the archive: uploads by path ID, emoji and avatar images by file name. */
  uploads: string[];
  emoji: string[];
  /** Absent from archives made before avatars could be uploaded. */
  avatars?: string[];
  /** Files the store did not have when the export ran. */
  missing_files: string[];
}

/** Where a table's rows sit in the archive. */
export const tableFile = (model: string) => `tables/${model}.jsonl`;

/** One row as a line of JSON; dates become {"$date": ISO string}. */
export function encodeRow(row: Row): string {
  const out: Row = {};
  for (const [name, value] of Object.entries(row))
    out[name] = value instanceof Date ? { $date: value.toISOString() } : value;
  return JSON.stringify(out);
}

/** A line of JSON back into a row. */
export function decodeRow(line: string): Row {
  const row = JSON.parse(line) as Row;
  for (const [name, value] of Object.entries(row)) {
    if (value && typeof value === 'object' && '$date' in value)
      row[name] = new Date((value as { $date: string }).$date);
  }
  return row;
}

/** Writes lines to a file, waiting whenever the file's buffer is full. */
export class LineWriter {
  private readonly stream: WriteStream;
  constructor(path: string) {
    this.stream = createWriteStream(path);
  }
  /** Appends one line. */
  async write(line: string): Promise<void> {
    if (!this.stream.write(`${line}\n`)) await once(this.stream, 'drain');
  }
  /** Flushes and closes the file. */
  async close(): Promise<void> {
    this.stream.end();
    await once(this.stream, 'finish');
  }
}

/** The rows of a table file, in batches of at most `size`. */
export async function* readBatches(path: string, size: number): AsyncGenerator<Row[]> {
  const lines = createInterface({ input: createReadStream(path), crlfDelay: Infinity });
  let batch: Row[] = [];
  for await (const line of lines) {
    if (line === '') continue;
    batch.push(decodeRow(line));
    if (batch.length >= size) {
      yield batch;
      batch = [];
    }
  }
  if (batch.length > 0) yield batch;
}
