// Reads request bodies before routing: urlencoded forms and JSON objects with
// our own small parsers (so that repeated names and the number of fields are
// kept), multipart forms with koa-body (formidable), which also stores
// uploaded files (a part with a file name is a file even without a
// Content-Type). A body in any other type is kept unread and refused with 415
// by the route, which knows the types its operation accepts. Every failure to
// read a body is a 400 (malformed) or a 413 (too large) naming the limit.
import { tmpdir } from 'node:os';
import type Koa from 'koa';
import { ApiError, badRequest } from '../errors';
import { MAX_FILE_UPLOAD_SIZE_MIB, fileTooLarge } from '../lib/uploads/uploads';
import { MAX_FIELDS, parseUrlencoded, type FormFields } from './form';

/** Largest urlencoded or JSON body, and largest total of a multipart body's text fields, in MiB. */
export const MAX_FORM_SIZE_MIB = 10;

/** The three body types the API reads. */
export const JSON_TYPE = 'application/json';
export const URLENCODED_TYPE = 'application/x-www-form-urlencoded';
export const MULTIPART_TYPE = 'multipart/form-data';

/** A request body as read: form fields (urlencoded or multipart), a JSON object, or a type the API does not read. */
export type RequestBody =
  | { type: typeof URLENCODED_TYPE | typeof MULTIPART_TYPE; fields: FormFields }
  | { type: typeof JSON_TYPE; value: Record<string, unknown> }
  | { type: string; unread: true };

// Bodies of GET and HEAD are ignored, as Zulip ignores them.
const methodsWithBody = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);

/** 413 PAYLOAD_TOO_LARGE. */
function tooLarge(message: string): ApiError {
  return new ApiError(message, 'PAYLOAD_TOO_LARGE', 413);
}

function bodyTooLarge(): ApiError {
  return tooLarge(`Request body is larger than the limit of ${MAX_FORM_SIZE_MIB} MiB`);
}

/** 415 UNSUPPORTED_MEDIA_TYPE for a body of `type`, naming the types that are accepted. */
export function unsupportedMediaType(type: string, accepted: string[]): ApiError {
  const sent = type === '' ? 'A request body without a Content-Type' : `Content-Type ${type}`;
  return new ApiError(
    `${sent} is not supported here; send ${accepted.join(', ')}`,
    'UNSUPPORTED_MEDIA_TYPE',
    415,
  );
}

/** Whether the request carries a body at all (a length above zero, or chunks). */
function hasBody(req: Koa.Request['req']): boolean {
  const length = req.headers['content-length'];
  return req.headers['transfer-encoding'] !== undefined || (length !== undefined && length !== '0');
}

/** Whether `bodyReader` reads the request's body (a method that takes one, and a body sent). */
export function readsBody(ctx: Koa.Context): boolean {
  return methodsWithBody.has(ctx.method) && hasBody(ctx.req);
}

/** The body's bytes as UTF-8 text, refusing more than the form limit. */
async function readText(ctx: Koa.Context): Promise<string> {
  const limit = MAX_FORM_SIZE_MIB * 1024 * 1024;
  if (Number(ctx.get('content-length')) > limit) throw bodyTooLarge();
  const charset = ctx.request.charset.toLowerCase();
  if (charset !== '' && charset !== 'utf-8' && charset !== 'utf8')
    throw new ApiError(
      `Charset ${charset} is not supported; send UTF-8`,
      'UNSUPPORTED_MEDIA_TYPE',
      415,
    );
  const chunks = await new Promise<Buffer[]>((resolve, reject) => {
    const received: Buffer[] = [];
    let size = 0;
    const onData = (chunk: Buffer) => {
      size += chunk.length;
      if (size <= limit) return void received.push(chunk);
      // Stop keeping the body but let it drain, so that the client reads the answer.
      ctx.req.off('data', onData);
      ctx.req.resume();
      ctx.set('Connection', 'close');
      reject(bodyTooLarge());
    };
    const failed = () =>
      reject(badRequest('Malformed request body: the connection closed before its end'));
    ctx.req.on('data', onData);
    ctx.req.once('end', () => {
      // Every request closes after its end; an error built then would be thrown away.
      ctx.req.off('close', failed);
      resolve(received);
    });
    ctx.req.once('error', failed);
    ctx.req.once('close', failed);
  });
  try {
    return new TextDecoder('utf-8', { fatal: true }).decode(Buffer.concat(chunks));
  } catch {
    throw badRequest('Malformed request body: not valid UTF-8');
  }
}

function parseJson(text: string): Record<string, unknown> {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw badRequest('Malformed JSON in the request body');
  }
  if (value === null || typeof value !== 'object' || Array.isArray(value))
    throw badRequest('A JSON request body must be an object');
  const fields = Object.keys(value).length;
  if (fields > MAX_FIELDS)
    throw badRequest(`Too many fields in the request body (limit: ${MAX_FIELDS})`);
  return value as Record<string, unknown>;
}

/** Turns formidable's failures (which carry an internal `code`) into answers. */
function multipartError(error: unknown): ApiError {
  switch ((error as { code?: unknown }).code) {
    case 1007: // maxFieldsExceeded
      return badRequest(`Too many fields in the request body (limit: ${MAX_FIELDS})`);
    case 1006: // maxFieldsSizeExceeded
      return tooLarge(`Form fields are larger than the limit of ${MAX_FORM_SIZE_MIB} MiB`);
    case 1009: // biggerThanTotalMaxFileSize
    case 1016: // biggerThanMaxFileSize
      return tooLarge(fileTooLarge(MAX_FILE_UPLOAD_SIZE_MIB).message);
    default: // aborted, malformed, missing boundary, unknown transfer encoding, ...
      return badRequest('Malformed multipart request body');
  }
}

/** The body read by `bodyReader`, if the request had one the server reads. */
export function requestBody(ctx: Koa.Context): RequestBody | undefined {
  return ctx.state.requestBody as RequestBody | undefined;
}

/**
 * koa-body's multipart reader (formidable), made at the first multipart
 * request: loading koa-body costs a third of a second, and most processes
 * read no multipart body for a long while, or ever.
 */
let multipartReader: Promise<Koa.Middleware> | undefined;

function multipartMiddleware(): Promise<Koa.Middleware> {
  multipartReader ??= import('koa-body').then(({ HttpMethodEnum, koaBody }) =>
    koaBody({
      multipart: true,
      urlencoded: false,
      json: false,
      text: false,
      parsedMethods: [
        HttpMethodEnum.POST,
        HttpMethodEnum.PUT,
        HttpMethodEnum.PATCH,
        HttpMethodEnum.DELETE,
      ],
      formidable: {
        maxFields: MAX_FIELDS,
        maxFieldsSize: MAX_FORM_SIZE_MIB * 1024 * 1024,
        maxFileSize: MAX_FILE_UPLOAD_SIZE_MIB * 1024 * 1024,
        allowEmptyFiles: true,
        minFileSize: 0,
        uploadDir: tmpdir(),
        keepExtensions: true,
        onPart: (part, handlePart) => {
          // A part that names a file is a file, whatever its headers. Python's
          // requests sends file parts without a Content-Type, which formidable
          // would otherwise read as a text field; the stored type is then
          // guessed from the file name.
          if (
            part.originalFilename !== null &&
            part.originalFilename !== undefined &&
            !part.mimetype
          )
            part.mimetype = 'application/octet-stream';
          handlePart(part);
        },
      },
    }),
  );
  return multipartReader;
}

/** Koa middleware reading the request body (see the top of this file). */
export function bodyReader(): Koa.Middleware {
  const noop = async () => undefined;
  const read: Koa.Middleware = async (ctx, next) => {
    const encoding = ctx.get('content-encoding').toLowerCase();
    if (encoding !== '' && encoding !== 'identity')
      throw new ApiError(
        `Content-Encoding ${encoding} is not supported; send the body uncompressed`,
        'UNSUPPORTED_MEDIA_TYPE',
        415,
      );
    const type = ctx.request.type;
    let body: RequestBody;
    if (type === URLENCODED_TYPE) {
      body = { type, fields: parseUrlencoded(await readText(ctx), 'request body') };
    } else if (type === JSON_TYPE) {
      body = { type, value: parseJson(await readText(ctx)) };
    } else if (type === MULTIPART_TYPE) {
      const multipart = await multipartMiddleware();
      try {
        await multipart(ctx, noop);
      } catch (error) {
        // The client may still be sending: stop reading, and close the connection after the answer.
        ctx.set('Connection', 'close');
        throw multipartError(error);
      }
      body = { type, fields: (ctx.request.body ?? {}) as FormFields };
    } else {
      body = { type, unread: true };
    }
    ctx.state.requestBody = body;
    return next();
  };
  // A request without a body goes on at once, without an async frame of its own.
  return (ctx, next) => (readsBody(ctx) ? read(ctx, next) : next());
}
