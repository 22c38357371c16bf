// POST /user_uploads, GET /user_uploads/{realm_id_str}/{filename} (a
// temporary URL), GET /attachments and DELETE /attachments/{attachment_id}.
import { doGetServerSecret } from '../actions/users/server-secrets';
import { doDeleteAttachment, doUploadFile } from '../actions/uploads/uploads';
import { ApiError } from '../errors';
import { attachmentForUser, attachmentsOf, uploadSpaceUsed } from '../lib/uploads/attachments';
import { temporaryUrl, UPLOAD_URL_SECRET } from '../lib/uploads/temporary-urls';
import { MAX_FILE_UPLOAD_SIZE_MIB, fileTooLarge } from '../lib/uploads/uploads';
import type { Handler, HandlerMap } from './types';

/** Stores the one file of the request and answers its URL. */
export const uploadFile: Handler<'upload-file'> = async ({ services, user, realm, files }) => {
  const all = Object.values(files);
  if (all.length === 0) throw new ApiError('You must specify a file to upload');
  if (all.length > 1) throw new ApiError('You may only upload one file at a time');
  if (all[0].size > MAX_FILE_UPLOAD_SIZE_MIB * 1024 * 1024)
    throw fileTooLarge(MAX_FILE_UPLOAD_SIZE_MIB);
  const { pathId, fileName } = await doUploadFile(services, realm, user, all[0]);
  const url = `/user_uploads/${pathId}`;
  return { uri: url, url, filename: fileName };
};

/** Lists the requester's uploads and the organization's upload space used. */
export const getAttachments: Handler<'get-attachments'> = async ({ services, user, realm }) =>
  services.db.read(async (db) => ({
    attachments: await attachmentsOf(db, user.id),
    upload_space_used: await uploadSpaceUsed(db, realm.id),
  }));

/** Deletes one of the requester's uploads. */
export const removeAttachment: Handler<'remove-attachment'> = async ({
  params,
  services,
  user,
}) => {
  await doDeleteAttachment(services, user, params.attachment_id);
  return {};
};

/** A URL that serves a file the requester may see, without credentials, for a short time. */
export const getFileTemporaryUrl: Handler<'get-file-temporary-url'> = async ({
  params,
  services,
  user,
}) => {
  const pathId = `${params.realm_id_str}/${params.filename}`;
  const found = await services.db.read((db) => attachmentForUser(db, user, pathId));
  if (!found.attachment)
    throw new ApiError('This file does not exist or has been deleted.', 'NOT_FOUND', 404);
  if (!found.readable)
    throw new ApiError('You are not authorized to view this file.', 'BAD_REQUEST', 403);
  const secret = await doGetServerSecret(services, UPLOAD_URL_SECRET);
  return { url: temporaryUrl(secret, found.attachment.pathId) };
};

/** The operations of this area, by operationId. */
export const uploadHandlers = {
  'upload-file': uploadFile,
  'get-attachments': getAttachments,
  'remove-attachment': removeAttachment,
  'get-file-temporary-url': getFileTemporaryUrl,
} satisfies Partial<HandlerMap>;
