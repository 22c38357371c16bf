// Uploaded avatars: the limits on an upload, the two square sizes made of it,
// where they are stored and the public address they are served at.
//
// An avatar is stored as two PNG images, `<realm_id>/avatars/<hash>.png`
// (100 pixels) and `<hash>-medium.png` (500 pixels), and served without
// credentials at /user_avatars/<realm_id>/<hash>.png, as Zulip serves them.
// The hash is random and new for each upload, so that nobody can list
// people's pictures by counting, and an address never shows another picture.
//
// The images are made with sharp (libvips). Its prebuilt binaries come as
// packages of the npm registry (@img/sharp-<platform>), so installing it
// downloads nothing else, and it decodes and resizes on libuv's thread pool,
// where a pure-JavaScript decoder would hold the event loop for the second a
// large photograph takes; it also reads WebP and AVIF and turns a photograph
// upright by its EXIF orientation. Storing the upload as given was the other
// choice: every message row would then load a picture of up to 5 MiB.
import { randomBytes } from 'node:crypto';
import { ApiError } from '../../errors';

/** Largest avatar upload, in MiB (Zulip's MAX_AVATAR_FILE_SIZE_MIB). */
export const MAX_AVATAR_FILE_SIZE_MIB = 5;

/** The side of the avatar shown beside messages, in pixels (Zulip's DEFAULT_AVATAR_SIZE). */
export const AVATAR_SIZE = 100;

/** The side of the larger avatar of profiles, in pixels (Zulip's MEDIUM_AVATAR_SIZE). */
export const MEDIUM_AVATAR_SIZE = 500;

/** Largest image accepted, in pixels: bounds the memory a small file that decodes huge may take. */
const MAX_AVATAR_PIXELS = 50_000_000;

/** Declared types of the images accepted. */
const acceptedTypes = new Set(['image/png', 'image/jpeg', 'image/gif', 'image/webp', 'image/avif']);

/**
 * The formats libvips may find in them: any of these, whatever the declared
 * type (a photograph saved as .png is still read), but nothing else (no SVG).
 */
const acceptedFormats = new Set(['png', 'jpeg', 'gif', 'webp', 'heif']);

/** A new random name for the images of an upload. */
export function newAvatarHash(): string {
  return randomBytes(20).toString('hex');
}

/** The file-store key of an uploaded avatar's image, small or medium. */
export function avatarImageKey(realmId: number, hash: string, medium: boolean): string {
  return `${realmId}/avatars/${hash}${medium ? '-medium' : ''}.png`;
}

/** The URL path an uploaded avatar's image is served at, small or medium. */
export function avatarImagePath(realmId: number, hash: string, medium: boolean): string {
  return `/user_avatars/${realmId}/${hash}${medium ? '-medium' : ''}.png`;
}

/** The file-store key of an avatar's URL path, or undefined when the path is not one. */
export function avatarImageKeyOfPath(path: string): string | undefined {
  const match = /^\/user_avatars\/(\d+)\/([0-9a-f]{40})(-medium)?\.png$/.exec(path);
  return match ? avatarImageKey(Number(match[1]), match[2], match[3] !== undefined) : undefined;
}

/** Zulip's refusal of an image it cannot use (code BAD_IMAGE). */
function badImage(message: string): ApiError {
  return new ApiError(message, 'BAD_IMAGE');
}

/**
 * Writes the square avatars of the image at `source` (of the declared
 * `contentType`) to `small` and `medium`, cropped to the centre and always
 * PNG; an animated image gives its first frame. Refuses other types with
 * "Invalid image format", and files that are not images of their type with
 * "Could not decode image; did you upload an image file?".
 */
export async function makeAvatarImages(
  source: string,
  contentType: string,
  targets: { small: string; medium: string },
): Promise<void> {
  if (!acceptedTypes.has(contentType.toLowerCase())) throw badImage('Invalid image format');
  const undecodable = () => badImage('Could not decode image; did you upload an image file?');
  // Loaded at the first image (a fifth of a second): most processes make none.
  const { default: sharp } = await import('sharp');
  const image = sharp(source, { limitInputPixels: MAX_AVATAR_PIXELS, failOn: 'error' });
  const format = await image.metadata().then(
    (metadata) => metadata.format,
    () => undefined,
  );
  if (!format || !acceptedFormats.has(format)) throw undecodable();
  try {
    for (const [size, target] of [
      [AVATAR_SIZE, targets.small],
      [MEDIUM_AVATAR_SIZE, targets.medium],
    ] as const)
      await image.clone().autoOrient().resize(size, size, { fit: 'cover' }).png().toFile(target);
  } catch {
    throw undecodable();
  }
}
