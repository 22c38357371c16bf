// Channel descriptions: Markdown rendered to HTML like messages are, without
// image previews (as in Zulip).
import type { Realm } from '../../../generated/prisma/sqlite/client';
import type { Db } from '../../db/client';
import { render } from '../markdown/render-context';

/** The HTML of a channel description. */
export async function renderDescription(
  db: Db,
  realm: Pick<Realm, 'id'>,
  description: string,
  baseUrl: string,
): Promise<string> {
  if (description === '') return '';
  const noPreviews = { id: realm.id, inlineImagePreview: false };
  return (await render(db, noPreviews, description, baseUrl)).html;
}
