// Personal message flags: the one list of the names the API shows, from the
// flag columns of a user's row for a message, and which of them users may set
// through POST /messages/flags (the others the server sets).
import type { UserMessage } from '../../../generated/prisma/sqlite/client';

/** The flag columns of a user's row for a message, in a fixed order (bit positions of `flagsOfBits`). */
export const flagColumns = [
  'read',
  'starred',
  'mentioned',
  'streamWildcardMentioned',
  'topicWildcardMentioned',
  'hasAlertWord',
  'historical',
] as const satisfies readonly (keyof UserMessage)[];

/** The flag columns of a user's row for a message. */
export type FlagColumns = Pick<UserMessage, (typeof flagColumns)[number]>;

/** Every flag the API shows, in the order it lists them, and whether a row has it. */
const apiFlags: [name: string, holds: (row: Partial<FlagColumns>) => boolean | undefined][] = [
  ['read', (r) => r.read],
  ['starred', (r) => r.starred],
  ['mentioned', (r) => r.mentioned],
  ['wildcard_mentioned', (r) => r.streamWildcardMentioned || r.topicWildcardMentioned],
  ['stream_wildcard_mentioned', (r) => r.streamWildcardMentioned],
  ['topic_wildcard_mentioned', (r) => r.topicWildcardMentioned],
  ['has_alert_word', (r) => r.hasAlertWord],
  ['historical', (r) => r.historical],
];

/**
 * The flags of a row, as the API names them; columns left out count as
 * unset. A message the user has no row for reads as `read` and `historical`.
 */
export function flagList(row: Partial<FlagColumns> | null | undefined): string[] {
  if (!row) return ['read', 'historical'];
  const flags: string[] = [];
  for (const [name, holds] of apiFlags) if (holds(row)) flags.push(name);
  return flags;
}

/** The flag list of each combination of bits, and of no row (last); frozen, since they are shared. */
const listsOfBits: readonly string[][] = [
  ...Array.from({ length: 1 << flagColumns.length }, (_, bits) => {
    const row: Partial<FlagColumns> = {};
    flagColumns.forEach((column, bit) => (row[column] = (bits & (1 << bit)) !== 0));
    return flagList(row);
  }),
  flagList(null),
].map((list) => Object.freeze(list) as string[]);

/**
 * The flag list of flag columns packed as bits (bit i set: flagColumns[i]),
 * or of no row (null): one list per combination, shared and frozen.
 */
export function flagsOfBits(bits: number | null): string[] {
  return listsOfBits[bits === null ? listsOfBits.length - 1 : bits];
}

/** Flags users may set, and the column of each (`collapsed` is accepted but not stored). */
export const editableFlags: Record<string, 'read' | 'starred' | null> = {
  read: 'read',
  starred: 'starred',
  collapsed: null,
};

/** Whether users may set `flag`. */
export function isEditableFlag(flag: string): boolean {
  return Object.hasOwn(editableFlags, flag);
}

/** Whether `flag` is one the server sets (naming it gives "Flag not editable"). */
export function isServerFlag(flag: string): boolean {
  return !isEditableFlag(flag) && apiFlags.some(([name]) => name === flag);
}
