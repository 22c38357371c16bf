// The one question every area asks: does this user hold this permission? A
// permission is a group-setting value, stored as the ID of a user group; a user
// holds it when they are a member of that group directly or through any depth
// of subgroups. System groups nest by role, so role checks are group checks too.
import type { Db } from '../db/client';

/** The IDs of every group `userId` belongs to, directly or through subgroups. */
export async function groupsOfUser(db: Db, userId: number): Promise<Set<number>> {
  const rows = await db.$queryRaw<{ id: number | bigint }[]>`
    WITH RECURSIVE member_of(id) AS (
      SELECT "groupId" FROM "UserGroupMember" WHERE "userId" = ${userId}
      UNION
      SELECT s."supergroupId" FROM "UserGroupSubgroup" s JOIN member_of m ON s."subgroupId" = m.id
    )
    SELECT id FROM member_of`;
  return new Set(rows.map((r) => Number(r.id)));
}

/** The IDs of every user in `groupId`, directly or through subgroups. */
export async function membersOfGroup(db: Db, groupId: number): Promise<Set<number>> {
  const rows = await db.$queryRaw<{ userId: number | bigint }[]>`
    WITH RECURSIVE within(id) AS (
      SELECT ${groupId}
      UNION
      SELECT s."subgroupId" FROM "UserGroupSubgroup" s JOIN within w ON s."supergroupId" = w.id
    )
    SELECT DISTINCT m."userId" AS "userId" FROM "UserGroupMember" m JOIN within w ON m."groupId" = w.id`;
  return new Set(rows.map((r) => Number(r.userId)));
}

/** Answers permission questions for one user, reading their groups once. */
export class Permissions {
  private groups: Promise<Set<number>> | undefined;

  constructor(
    private readonly db: Db,
    readonly userId: number,
  ) {}

  /** Whether the user belongs to `groupId` (directly or through subgroups). */
  async holds(groupId: number): Promise<boolean> {
    this.groups ??= groupsOfUser(this.db, this.userId);
    return (await this.groups).has(groupId);
  }
}
