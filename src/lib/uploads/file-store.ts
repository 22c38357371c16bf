// Where uploaded bytes live: one interface over the local folder and an
// S3-compatible object store, chosen by configuration at start-up. Keys are
// relative paths made by this server (a file's path id, or
// `<realm_id>/emoji/images/<name>` for custom emoji); every upload, download
// and deletion goes through it.
import type { Readable } from 'node:stream';

/** A stored file opened for reading. */
export interface StoredFile {
  /** Its length in bytes. */
  size: number;
  /** Its bytes. */
  body: Readable;
}

/** The store of uploaded files. */
export interface FileStore {
  /** `local` or `s3`, for logs and /ready. */
  readonly kind: 'local' | 's3';
  /** Stores the file at `localPath` (left in place) under `key`, replacing any file there. */
  put(key: string, localPath: string, contentType: string): Promise<void>;
  /** Opens the file of `key`, or undefined when there is none. */
  get(key: string): Promise<StoredFile | undefined>;
  /** Removes the file of `key`; removing a missing file is not an error. */
  delete(key: string): Promise<void>;
  /** Releases connections; the store is not used afterwards. */
  close(): Promise<void>;
}

/**
 * Whether `key` is a relative path this server could have made: segments of
 * letters, digits, `.`, `_` and `-`, none of them `.` or `..`.
 */
export function isSafeKey(key: string): boolean {
  const parts = key.split('/');
  return parts.every((part) => /^[A-Za-z0-9_.-]+$/.test(part) && part !== '.' && part !== '..');
}
