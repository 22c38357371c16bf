// A person's picture. An uploaded avatar is served by this server and shown
// as it is; any other address (Gravatar's, for people who uploaded none)
// would be blocked by the page's Content-Security-Policy and would tell
// another server who reads what, so those people get their initials on a
// colour of their own instead, and nothing is fetched from elsewhere.
import { state } from './store';

/** Whether `url` is an address on this server (a path, not another host). */
export function isLocalAvatar(url: string | null | undefined): url is string {
  return typeof url === 'string' && url.startsWith('/') && !url.startsWith('//');
}

/** Up to two initials of a name: the first letters of its first and last words. */
export function initials(name: string): string {
  const words = name.trim().split(/\s+/).filter(Boolean);
  const picked = words.length > 1 ? [words[0], words[words.length - 1]] : words;
  return (
    picked
      .map((word) => [...word][0])
      .join('')
      .toUpperCase() || '?'
  );
}

/**
 * The avatar of user `userId`: their current one as the organization's user
 * list has it, or `url` (a message's) for people not in it. Decorative: the
 * name is always written beside it.
 */
export function Avatar({
  userId,
  name,
  url,
  size = 24,
}: {
  userId: number;
  name: string;
  url?: string | null;
  size?: number;
}) {
  const src = state.users.get(userId)?.avatar_url ?? url;
  if (isLocalAvatar(src))
    return <img class="avatar" src={src} alt="" width={size} height={size} loading="lazy" />;
  return (
    <span
      class="avatar initials"
      aria-hidden="true"
      style={{
        width: `${size}px`,
        height: `${size}px`,
        fontSize: `${Math.round(size * 0.42)}px`,
        // Dark enough for white letters at any hue.
        background: `hsl(${(userId * 47) % 360} 45% 30%)`,
      }}
    >
      {initials(name)}
    </span>
  );
}
