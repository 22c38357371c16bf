// Group-setting values (Part 2.2): a setting holds the ID of a user group. A
// named group reads back as its ID; an anonymous group (no name) reads back as
// its direct members and subgroups.
import type { Db } from '../db/client';

/** A group-setting value as the API shows it. */
export type GroupSettingValue = number | { direct_members: number[]; direct_subgroups: number[] };

/** Reads the API form of each group ID in `groupIds`. */
export async function readGroupSettingValues(db: Db, groupIds: Iterable<number>): Promise<Map<number, GroupSettingValue>> {
  const ids = [...new Set(groupIds)];
  const groups = await db.userGroup.findMany({
    where: { id: { in: ids } },
    select: { id: true, name: true, members: { select: { userId: true } }, subgroups: { select: { subgroupId: true } } },
  });
  const out = new Map<number, GroupSettingValue>();
  for (const g of groups) {
    out.set(
      g.id,
      g.name !== null
        ? g.id
        : {
            direct_members: g.members.map((m) => m.userId).sort((a, b) => a - b),
            direct_subgroups: g.subgroups.map((s) => s.subgroupId).sort((a, b) => a - b),
          },
    );
  }
  return out;
}
