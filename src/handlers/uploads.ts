// POST /user_uploads and GET /attachments.
import { doUploadFile } from '../actions/uploads';
import { ApiError } from '../errors';
import { attachmentsOf, uploadSpaceUsed } from '../lib/uploads/attachments';
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

/** The operations of this area, by operationId. */
export const uploadHandlers = {
  'upload-file': uploadFile,
  'get-attachments': getAttachments,
} satisfies Partial<HandlerMap>;
