// Who may mention whom: wildcard mentions (@**all**, @**topic**) in large
// channels and topics need the organization's can_mention_many_users_group,
// and a group mention needs the group's can_mention_group.

/** Channels and topics with more subscribers or participants than this restrict wildcard mentions. */
export const WILDCARD_MENTION_THRESHOLD = 15;
