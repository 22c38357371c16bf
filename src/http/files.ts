// Downloads outside /api/v1: uploaded files at /user_uploads/<path_id> (HTTP
// basic credentials, as the API; only for users allowed to see the file), or
// without credentials at a temporary URL, /user_uploads/temporary/<token>/<name>, and
// custom emoji images at /user_avatars/<realm_id>/emoji/images/<file> (public),
// uploaded avatars at /user_avatars/<realm_id>/<random>[-medium].png (public,
// as in Zulip: the random part, new for each upload, keeps them from being listed),
// and organization exports at /user_avatars/exports/<realm_id>/<random>/<file>
// (public, as in Zulip: the random part is the secret; deleting the export
// removes the file).
// Path ids are checked against the shape this server makes before the file
// store (the upload folder or the object store) is asked, so no request can
// read outside it.
import type Koa from 'koa';
import { sessionUser } from './session';
import { ApiError } from '../errors';
import { readableAttachment } from '../lib/uploads/attachments';
import { pathIdOfToken, UPLOAD_URL_SECRET } from '../lib/uploads/temporary-urls';
import { emojiImageKey } from '../lib/emoji/realm-emoji';
import { isWellFormedPathId } from '../lib/uploads/uploads';
import { isExportKey } from '../lib/export/realm-exports';
import { avatarImageKeyOfPath } from '../lib/users/avatars';
import { doGetServerSecret } from '../actions/users/server-secrets';
import type { Services } from '../services';

const notFound = () => new ApiError('File not found', 'NOT_FOUND', 404);

// Types a browser may show in place; anything else is sent as a download.
const inlineTypes =
  /^(image\/(png|jpeg|gif|webp|avif|bmp)|audio\/[\w.+-]+|video\/[\w.+-]+|text\/plain|application\/pdf)$/;

const emojiTypes: Record<string, string> = {
  png: 'image/png',
  gif: 'image/gif',
  jpg: 'image/jpeg',
  webp: 'image/webp',
  avif: 'image/avif',
};

async function sendFile(
  ctx: Koa.Context,
  services: Services,
  key: string,
  contentType: string,
  downloadName?: string,
): Promise<void> {
  const file = await services.files.get(key);
  if (!file) throw notFound();
  const inline = inlineTypes.test(contentType);
  ctx.status = 200;
  ctx.type = inline ? contentType : 'application/octet-stream';
  ctx.length = file.size;
  ctx.set('X-Content-Type-Options', 'nosniff');
  ctx.set('Content-Security-Policy', "default-src 'none'");
  if (downloadName !== undefined) {
    const ascii = downloadName.replace(/[^\x20-\x7e]|["\\]/g, '_');
    ctx.set(
      'Content-Disposition',
      `${inline ? 'inline' : 'attachment'}; filename="${ascii}"; filename*=UTF-8''${encodeURIComponent(downloadName)}`,
    );
  }
  ctx.body = file.body;
}

/**
 * Serves the file of a temporary URL, without credentials: "Invalid token"
 * for a token that is malformed, forged, expired or names a deleted file, and
 * "Invalid filename" when the last part of the URL is not the file's name.
 */
async function serveTemporary(
  ctx: Koa.Context,
  services: Services,
  token: string,
  name: string,
): Promise<void> {
  const secret = await doGetServerSecret(services, UPLOAD_URL_SECRET);
  const pathId = pathIdOfToken(secret, token);
  if (pathId === undefined) throw new ApiError('Invalid token');
  let decoded: string;
  try {
    decoded = decodeURIComponent(name);
  } catch {
    throw new ApiError('Invalid filename');
  }
  if (pathId.split('/').pop() !== decoded) throw new ApiError('Invalid filename');
  const attachment = await services.db.read((db) =>
    db.attachment.findUnique({ where: { pathId } }),
  );
  if (!attachment) throw new ApiError('Invalid token');
  await sendFile(ctx, services, pathId, attachment.contentType, attachment.fileName);
}

/** Koa middleware serving uploaded files, avatars and custom emoji images; other paths pass through. */
export function fileServing(services: Services): Koa.Middleware {
  return async (ctx, next) => {
    const upload = /^\/user_uploads\/(.+)$/.exec(ctx.path);
    const emoji =
      /^\/user_avatars\/(\d+)\/emoji\/images\/([0-9a-f]+\.(png|gif|jpg|webp|avif))$/.exec(ctx.path);
    const exported = /^\/user_avatars\/(exports\/.+)$/.exec(ctx.path);
    const avatar = avatarImageKeyOfPath(ctx.path);
    if (!upload && !emoji && !exported && !avatar) return next();
    if (ctx.method !== 'GET' && ctx.method !== 'HEAD')
      throw new ApiError('Method Not Allowed', 'BAD_REQUEST', 405);
    if (emoji)
      return sendFile(
        ctx,
        services,
        emojiImageKey(Number(emoji[1]), emoji[2]),
        emojiTypes[emoji[3]],
      );
    if (avatar) return sendFile(ctx, services, avatar, 'image/png');
    if (exported) {
      if (!isExportKey(exported[1])) throw notFound();
      return sendFile(ctx, services, exported[1], 'application/gzip', exported[1].split('/').pop());
    }
    const temporary = /^temporary\/([^/]+)\/([^/]+)$/.exec(upload![1]);
    if (temporary) return serveTemporary(ctx, services, temporary[1], temporary[2]);
    // A browser signed in to the web client opens files with its session (session.ts).
    const session = ctx.get('authorization') ? null : await sessionUser(ctx, services);
    const { user } =
      session?.auth ?? (await services.auth.authenticate(ctx.get('authorization') || undefined));
    let pathId: string;
    try {
      pathId = decodeURIComponent(upload![1]);
    } catch {
      throw notFound();
    }
    const attachment = isWellFormedPathId(pathId)
      ? await services.db.read((db) => readableAttachment(db, user, pathId))
      : undefined;
    if (!attachment) throw notFound();
    await sendFile(ctx, services, attachment.pathId, attachment.contentType, attachment.fileName);
  };
}
