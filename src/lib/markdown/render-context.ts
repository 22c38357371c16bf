// The lookups the Markdown renderer needs (users, groups, channels, custom
// emoji and uploaded files named in the content), fetched in a few queries
// before rendering so that rendering itself stays synchronous.
import { Prisma, type Realm } from '../../../generated/prisma/sqlite/client';
import { queryRows, type Db } from '../../db/client';
import { mentionCandidates, renderMarkdown, type RenderContext, type RenderResult } from '.';
import { compileLinkifier } from './linkifiers';

type Named = { id: number; name: string };

// Image types that get a preview when uploaded (those Zulip makes thumbnails of).
const PREVIEWED_IMAGE_TYPES = new Set([
  'image/avif',
  'image/gif',
  'image/heic',
  'image/jpeg',
  'image/png',
  'image/tiff',
  'image/webp',
]);

// Path ids after /user_uploads/ in the content (more than the links, never fewer).
const UPLOAD_PATH = /\/user_uploads\/([^\s()[\]<>"'?#]+)/g;
type Person = { id: number; fullName: string };

/** Builds the renderer's context for `content`, reading only what it names. */
export async function buildRenderContext(
  db: Db,
  realm: Pick<Realm, 'id' | 'inlineImagePreview'>,
  content: string,
  baseUrl: string,
): Promise<RenderContext> {
  const wanted = mentionCandidates(content);
  const lowerNames = [...new Set(wanted.userNames.map((n) => n.toLowerCase()))];
  const uploadPathIds = [...new Set(Array.from(content.matchAll(UPLOAD_PATH), (m) => m[1]))];
  const list = (values: (string | number)[]) => Prisma.sql`(${Prisma.join(values)})`;
  const [users, groups, streams, emoji, linkifiers, uploads] = await Promise.all([
    wanted.userNames.length || wanted.userIds.length
      ? queryRows<Person>(
          db,
          Prisma.sql`SELECT "id", "fullName" FROM "User" WHERE "realmId" = ${realm.id} AND "isActive" = true AND (${Prisma.join(
            [
              ...(wanted.userIds.length ? [Prisma.sql`"id" IN ${list(wanted.userIds)}`] : []),
              ...(lowerNames.length
                ? [Prisma.sql`"fullName" IN ${list([...new Set(wanted.userNames)])}`]
                : []),
            ],
            ' OR ',
          )})`,
        )
      : Promise.resolve([] as Person[]),
    wanted.groupNames.length
      ? queryRows<{ id: number; name: string | null }>(
          db,
          Prisma.sql`SELECT "id", "name" FROM "UserGroup" WHERE "realmId" = ${realm.id} AND "name" IN ${list(wanted.groupNames)} AND "deactivated" = false`,
        )
      : Promise.resolve([] as { id: number; name: string | null }[]),
    wanted.streamNames.length
      ? queryRows<Named>(
          db,
          Prisma.sql`SELECT "id", "name" FROM "Stream" WHERE "realmId" = ${realm.id} AND "nameLower" IN ${list(wanted.streamNames.map((n) => n.toLowerCase()))}`,
        )
      : Promise.resolve([] as Named[]),
    wanted.emojiNames.length
      ? queryRows<{ id: number; name: string; fileName: string }>(
          db,
          Prisma.sql`SELECT "id", "name", "fileName" FROM "RealmEmoji" WHERE "realmId" = ${realm.id} AND "name" IN ${list(wanted.emojiNames)} AND "deactivated" = false`,
        )
      : Promise.resolve([]),
    queryRows<{ pattern: string; urlTemplate: string }>(
      db,
      Prisma.sql`SELECT "pattern", "urlTemplate" FROM "Linkifier" WHERE "realmId" = ${realm.id} ORDER BY "order", "id"`,
    ),
    uploadPathIds.length
      ? queryRows<{ pathId: string; contentType: string }>(
          db,
          Prisma.sql`SELECT "pathId", "contentType" FROM "Attachment" WHERE "realmId" = ${realm.id} AND "pathId" IN ${list(uploadPathIds)}`,
        )
      : Promise.resolve([] as { pathId: string; contentType: string }[]),
  ]);
  // Names are matched case-insensitively; a second query catches other casings.
  const found = new Set(users.map((u) => u.fullName.toLowerCase()));
  if (lowerNames.some((n) => !found.has(n))) {
    const all = await queryRows<Person>(
      db,
      Prisma.sql`SELECT "id", "fullName" FROM "User" WHERE "realmId" = ${realm.id} AND "isActive" = true`,
    );
    for (const u of all)
      if (lowerNames.includes(u.fullName.toLowerCase()) && !users.some((x) => x.id === u.id))
        users.push(u);
  }
  const byName = new Map(users.map((u) => [u.fullName.toLowerCase(), u]));
  const byId = new Map(users.map((u) => [u.id, u]));
  const groupByName = new Map(
    groups.filter((g) => g.name !== null).map((g) => [g.name!, { id: g.id, name: g.name! }]),
  );
  const streamByName = new Map(streams.map((s) => [s.name.toLowerCase(), s]));
  const emojiByName = new Map(
    emoji.map((e) => [
      e.name,
      { id: e.id, name: e.name, url: `/user_avatars/${realm.id}/emoji/images/${e.fileName}` },
    ]),
  );
  const uploadedImages = new Set(
    uploads
      .filter((u) => PREVIEWED_IMAGE_TYPES.has(u.contentType.split(';', 1)[0].trim().toLowerCase()))
      .map((u) => u.pathId),
  );
  return {
    userByName: (name) => byName.get(name.toLowerCase()),
    userById: (id) => byId.get(id),
    groupByName: (name) => groupByName.get(name),
    streamByName: (name) => streamByName.get(name.toLowerCase()),
    realmEmojiByName: (name) => emojiByName.get(name),
    baseUrl,
    inlineImagePreview: realm.inlineImagePreview,
    isUploadedImage: (pathId) => uploadedImages.has(pathId),
    linkifiers: linkifiers
      .map((l) => compileLinkifier({ pattern: l.pattern, url_template: l.urlTemplate }))
      .filter((l) => l !== null),
  };
}

/** Renders `content` for `realm`. */
export async function render(
  db: Db,
  realm: Pick<Realm, 'id' | 'inlineImagePreview'>,
  content: string,
  baseUrl: string,
): Promise<RenderResult> {
  return renderMarkdown(content, await buildRenderContext(db, realm, content, baseUrl));
}
