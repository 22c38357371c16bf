// The lookups the Markdown renderer needs (users, groups, channels and custom
// emoji named in the content), fetched in a few queries before rendering so
// that rendering itself stays synchronous.
import type { Realm } from '../../../generated/prisma/sqlite/client';
import type { Db } from '../../db/client';
import { mentionCandidates, renderMarkdown, type RenderContext, type RenderResult } from '.';

type Named = { id: number; name: string };
type Person = { id: number; fullName: string };

/** Builds the renderer's context for `content`, reading only what it names. */
export async function buildRenderContext(
  db: Db,
  realm: Pick<Realm, 'id'>,
  content: string,
  baseUrl: string,
): Promise<RenderContext> {
  const wanted = mentionCandidates(content);
  const lowerNames = [...new Set(wanted.userNames.map((n) => n.toLowerCase()))];
  const [users, groups, streams, emoji] = await Promise.all([
    wanted.userNames.length || wanted.userIds.length
      ? db.user.findMany({
          where: {
            realmId: realm.id,
            isActive: true,
            OR: [
              { id: { in: wanted.userIds } },
              ...(lowerNames.length ? [{ fullName: { in: [...new Set(wanted.userNames)] } }] : []),
            ],
          },
          select: { id: true, fullName: true },
        })
      : Promise.resolve([] as Person[]),
    wanted.groupNames.length
      ? db.userGroup.findMany({
          where: { realmId: realm.id, name: { in: wanted.groupNames }, deactivated: false },
          select: { id: true, name: true },
        })
      : Promise.resolve([] as { id: number; name: string | null }[]),
    wanted.streamNames.length
      ? db.stream.findMany({
          where: {
            realmId: realm.id,
            nameLower: { in: wanted.streamNames.map((n) => n.toLowerCase()) },
          },
          select: { id: true, name: true },
        })
      : Promise.resolve([] as Named[]),
    wanted.emojiNames.length
      ? db.realmEmoji.findMany({
          where: { realmId: realm.id, name: { in: wanted.emojiNames }, deactivated: false },
        })
      : Promise.resolve([]),
  ]);
  // Names are matched case-insensitively; a second query catches other casings.
  const found = new Set(users.map((u) => u.fullName.toLowerCase()));
  if (lowerNames.some((n) => !found.has(n))) {
    const all = await db.user.findMany({
      where: { realmId: realm.id, isActive: true },
      select: { id: true, fullName: true },
    });
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
  return {
    userByName: (name) => byName.get(name.toLowerCase()),
    userById: (id) => byId.get(id),
    groupByName: (name) => groupByName.get(name),
    streamByName: (name) => streamByName.get(name.toLowerCase()),
    realmEmojiByName: (name) => emojiByName.get(name),
    baseUrl,
  };
}

/** Renders `content` for `realm`. */
export async function render(
  db: Db,
  realm: Pick<Realm, 'id'>,
  content: string,
  baseUrl: string,
): Promise<RenderResult> {
  return renderMarkdown(content, await buildRenderContext(db, realm, content, baseUrl));
}
