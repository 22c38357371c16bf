// Who is in a user group and which groups it contains, directly or through
// subgroups of any depth: the reads behind GET /user_groups/{id}/members,
// /members/{user_id} and /subgroups. Deactivated users are never members.
import { Prisma } from '../../../generated/prisma/sqlite/client';
import { queryRows, type Db } from '../../db/client';

/** The group itself and every group nested in it, at any depth. */
function withNested(groupId: number) {
  return Prisma.sql`
    WITH RECURSIVE within(id) AS (
      SELECT "id" FROM "UserGroup" WHERE "id" = ${groupId}
      UNION
      SELECT s."subgroupId" FROM "UserGroupSubgroup" s JOIN within w ON s."supergroupId" = w.id
    )`;
}

/** The active users of group `groupId`: its direct members, or also those of its subgroups. */
export async function groupMemberIds(
  db: Db,
  groupId: number,
  directOnly: boolean,
): Promise<number[]> {
  const rows = directOnly
    ? await queryRows<{ userId: number | bigint }>(
        db,
        Prisma.sql`
        SELECT m."userId" AS "userId" FROM "UserGroupMember" m JOIN "User" u ON u."id" = m."userId"
        WHERE m."groupId" = ${groupId} AND u."isActive" = true
        ORDER BY m."userId"`,
      )
    : await queryRows<{ userId: number | bigint }>(
        db,
        Prisma.sql`${withNested(groupId)}
        SELECT DISTINCT m."userId" AS "userId" FROM "UserGroupMember" m
        JOIN within w ON m."groupId" = w.id JOIN "User" u ON u."id" = m."userId"
        WHERE u."isActive" = true
        ORDER BY m."userId"`,
      );
  return rows.map((r) => Number(r.userId));
}

/** The subgroups of group `groupId`: its direct ones, or all nested ones (never itself). */
export async function subgroupIds(db: Db, groupId: number, directOnly: boolean): Promise<number[]> {
  const rows = directOnly
    ? await queryRows<{ id: number | bigint }>(
        db,
        Prisma.sql`
        SELECT "subgroupId" AS id FROM "UserGroupSubgroup" WHERE "supergroupId" = ${groupId}
        ORDER BY "subgroupId"`,
      )
    : await queryRows<{ id: number | bigint }>(
        db,
        Prisma.sql`${withNested(groupId)}
        SELECT id FROM within WHERE id <> ${groupId} ORDER BY id`,
      );
  return rows.map((r) => Number(r.id));
}
