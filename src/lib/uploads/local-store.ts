// The file store on the local disk: each key is a file under one folder.
import { createReadStream } from 'node:fs';
import { copyFile, mkdir, rename, rm, rmdir, stat } from 'node:fs/promises';
import { dirname, relative, resolve, sep } from 'node:path';
import { isSafeKey, type FileStore, type StoredFile } from './file-store';

/** Files under `root`, one per key. */
export class LocalFileStore implements FileStore {
  readonly kind = 'local';
  private readonly root: string;

  constructor(root: string) {
    this.root = resolve(root);
  }

  /** The file of `key`, or undefined when the key would lead outside the folder. */
  pathOf(key: string): string | undefined {
    if (!isSafeKey(key)) return undefined;
    const full = resolve(this.root, key);
    const rel = relative(this.root, full);
    if (rel === '' || rel.startsWith('..') || rel.startsWith(sep)) return undefined;
    return full;
  }

  async put(key: string, localPath: string): Promise<void> {
    const target = this.pathOf(key);
    if (!target) throw new Error(`file key ${key} falls outside the upload folder`);
    await mkdir(dirname(target), { recursive: true });
    // Copied beside the target then renamed, so that no reader sees half a file.
    const partial = `${target}.partial`;
    await copyFile(localPath, partial);
    await rename(partial, target);
  }

  async get(key: string): Promise<StoredFile | undefined> {
    const path = this.pathOf(key);
    const info = path ? await stat(path).catch(() => undefined) : undefined;
    if (!path || !info?.isFile()) return undefined;
    return { size: info.size, body: createReadStream(path) };
  }

  async delete(key: string): Promise<void> {
    const path = this.pathOf(key);
    if (!path) return;
    await rm(path, { force: true });
    // Folders left empty go too, up to the store's root.
    for (let dir = dirname(path); dir !== this.root && dir.startsWith(this.root);) {
      const removed = await rmdir(dir).then(
        () => true,
        () => false,
      );
      if (!removed) break;
      dir = dirname(dir);
    }
  }

  async close(): Promise<void> {}
}
