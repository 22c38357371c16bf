// Narrows: which messages the view shows, as the page's address (#narrow/...)
// and as the narrow terms GET /messages takes.

/** What the view shows. */
export type Narrow =
  | { kind: 'all' }
  | { kind: 'channel'; streamId: number }
  | { kind: 'topic'; streamId: number; topic: string }
  | { kind: 'dm'; userIds: number[] }
  | { kind: 'mentions' }
  | { kind: 'starred' }
  | { kind: 'search'; query: string };

/** The narrow terms of GET /messages. */
export function narrowTerms(
  narrow: Narrow,
): { operator: string; operand: string | number | number[] }[] {
  switch (narrow.kind) {
    case 'all':
      return [];
    case 'channel':
      return [{ operator: 'channel', operand: narrow.streamId }];
    case 'topic':
      return [
        { operator: 'channel', operand: narrow.streamId },
        { operator: 'topic', operand: narrow.topic },
      ];
    case 'dm':
      return [{ operator: 'dm', operand: narrow.userIds }];
    case 'mentions':
      return [{ operator: 'is', operand: 'mentioned' }];
    case 'starred':
      return [{ operator: 'is', operand: 'starred' }];
    case 'search':
      return [{ operator: 'search', operand: narrow.query }];
  }
}

/** The page address of a narrow. */
export function narrowHash(narrow: Narrow): string {
  const e = encodeURIComponent;
  switch (narrow.kind) {
    case 'all':
      return '#feed';
    case 'channel':
      return `#narrow/channel/${narrow.streamId}`;
    case 'topic':
      return `#narrow/channel/${narrow.streamId}/topic/${e(narrow.topic)}`;
    case 'dm':
      return `#narrow/dm/${narrow.userIds.join(',')}`;
    case 'mentions':
      return '#narrow/is/mentioned';
    case 'starred':
      return '#narrow/is/starred';
    case 'search':
      return `#narrow/search/${e(narrow.query)}`;
  }
}

/** The narrow a page address names (the combined feed for anything else). */
export function parseHash(hash: string): Narrow {
  const parts = hash.replace(/^#/, '').split('/').map(decodeURIComponent);
  if (parts[0] !== 'narrow') return { kind: 'all' };
  if (parts[1] === 'channel' && /^\d+$/.test(parts[2] ?? '')) {
    const streamId = Number(parts[2]);
    return parts[3] === 'topic' && parts[4] !== undefined
      ? { kind: 'topic', streamId, topic: parts[4] }
      : { kind: 'channel', streamId };
  }
  if (parts[1] === 'dm' && parts[2])
    return { kind: 'dm', userIds: parts[2].split(',').map(Number).filter(Number.isInteger) };
  if (parts[1] === 'is' && parts[2] === 'mentioned') return { kind: 'mentions' };
  if (parts[1] === 'is' && parts[2] === 'starred') return { kind: 'starred' };
  if (parts[1] === 'search' && parts[2]) return { kind: 'search', query: parts[2] };
  return { kind: 'all' };
}
