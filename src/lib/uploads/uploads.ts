// Uploaded files' names and path ids: safe file names, new path ids, and
// recognising the path ids this server makes.
import { randomBytes } from 'node:crypto';
import { extname } from 'node:path';
import { ApiError } from '../../errors';

/** A file of a multipart request, as the body parser left it in a temporary location. */
export interface UploadedFile {
  path: string;
  name: string;
  size: number;
  type: string;
}

/** Largest file a user may upload, in MiB (also enforced by the body parser). */
export const MAX_FILE_UPLOAD_SIZE_MIB = 25;

/**
 * A file name safe to store and to put in a URL: accents are dropped, then
 * anything but ASCII letters, digits, `.`, `_` and `-` is removed, and runs of
 * spaces and dashes become one dash (as Zulip's sanitize_name, but ASCII only,
 * so that the name never needs escaping in a link). Never `.` or `..`.
 */
export function sanitizeFileName(name: string): string {
  const base = name.split(/[\\/]/).pop() ?? '';
  const ascii = base.normalize('NFKD').replace(/[\u0300-\u036f]/g, '');
  const cleaned = ascii
    .replace(/[^A-Za-z0-9_.\s-]/g, '')
    .trim()
    .replace(/[-\s]+/g, '-')
    .replace(/^\.+/, '');
  return cleaned === '' ? 'uploaded-file' : cleaned.slice(-200);
}

/** A new path id for a file of `realmId`: `<realm_id>/<24 random hex>/<sanitized name>`. */
export function newPathId(realmId: number, fileName: string): string {
  return `${realmId}/${randomBytes(12).toString('hex')}/${sanitizeFileName(fileName)}`;
}

/** Whether `pathId` has the shape of one this server makes (and so no `..`, no absolute path). */
export function isWellFormedPathId(pathId: string): boolean {
  return (
    /^\d+\/[0-9a-f]{24}\/[A-Za-z0-9_.-]+$/.test(pathId) &&
    !pathId.split('/').some((part) => part === '.' || part === '..')
  );
}

/** The refusal of a file over the size limit, in Zulip's words. */
export function fileTooLarge(limitMib: number): ApiError {
  return new ApiError(`Uploaded file is larger than the allowed limit of ${limitMib} MiB`);
}

const typesByExtension: Record<string, string> = {
  '.png': 'image/png',
  '.jpg': 'image/jpeg',
  '.jpeg': 'image/jpeg',
  '.gif': 'image/gif',
  '.webp': 'image/webp',
  '.avif': 'image/avif',
  '.txt': 'text/plain',
  '.pdf': 'application/pdf',
};

/** The content type to store: the one the client sent, or a guess from the name. */
export function contentTypeOf(declared: string, fileName: string): string {
  if (declared && declared !== 'application/octet-stream') return declared;
  return typesByExtension[extname(fileName).toLowerCase()] ?? 'application/octet-stream';
}
