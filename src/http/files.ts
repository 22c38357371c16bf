// Downloads outside /api/v1: uploaded files at /user_uploads/<path_id> (HTTP
// basic credentials, as the API; only for users allowed to see the file) and
// custom emoji images at /user_avatars/<realm_id>/emoji/images/<file> (public).
// Path ids are checked against the shape this server makes, and every path is
// resolved inside the upload store, so no request can read outside it.
import { createReadStream } from 'node:fs';
import { stat } from 'node:fs/promises';
import type Koa from 'koa';
import { ApiError } from '../errors';
import { readableAttachment } from '../lib/uploads/attachments';
import { inside, storedFilePath } from '../lib/uploads/uploads';
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
  path: string | undefined,
  contentType: string,
  downloadName?: string,
): Promise<void> {
  const info = path ? await stat(path).catch(() => undefined) : undefined;
  if (!path || !info?.isFile()) throw notFound();
  const inline = inlineTypes.test(contentType);
  ctx.status = 200;
  ctx.type = inline ? contentType : 'application/octet-stream';
  ctx.length = info.size;
  ctx.set('X-Content-Type-Options', 'nosniff');
  ctx.set('Content-Security-Policy', "default-src 'none'");
  if (downloadName !== undefined) {
    const ascii = downloadName.replace(/[^\x20-\x7e]|["\\]/g, '_');
    ctx.set(
      'Content-Disposition',
      `${inline ? 'inline' : 'attachment'}; filename="${ascii}"; filename*=UTF-8''${encodeURIComponent(downloadName)}`,
    );
  }
  ctx.body = createReadStream(path);
}

/** Koa middleware serving uploaded files and custom emoji images; other paths pass through. */
export function fileServing(services: Services): Koa.Middleware {
  const { uploadsDir } = services.config;
  return async (ctx, next) => {
    const upload = /^\/user_uploads\/(.+)$/.exec(ctx.path);
    const emoji =
      /^\/user_avatars\/(\d+)\/emoji\/images\/([0-9a-f]+\.(png|gif|jpg|webp|avif))$/.exec(ctx.path);
    if (!upload && !emoji) return next();
    if (ctx.method !== 'GET' && ctx.method !== 'HEAD')
      throw new ApiError('Method Not Allowed', 'BAD_REQUEST', 405);
    if (emoji)
      return sendFile(
        ctx,
        inside(uploadsDir, `${emoji[1]}/emoji/images/${emoji[2]}`),
        emojiTypes[emoji[3]],
      );
    const { user } = await services.auth.authenticate(ctx.get('authorization') || undefined);
    let pathId: string;
    try {
      pathId = decodeURIComponent(upload![1]);
    } catch {
      throw notFound();
    }
    const attachment = storedFilePath(uploadsDir, pathId)
      ? await services.db.read((db) => readableAttachment(db, user, pathId))
      : undefined;
    if (!attachment) throw notFound();
    await sendFile(
      ctx,
      storedFilePath(uploadsDir, attachment.pathId),
      attachment.contentType,
      attachment.fileName,
    );
  };
}
