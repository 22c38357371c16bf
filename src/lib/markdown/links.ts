// Which link targets a message may hold, and how they are rewritten. Follows
// Zulip's sanitize_url: a fixed list of schemes; no scheme means http://,
// except domain-relative paths, fragments and bare e-mail addresses.

/** URL schemes a message link may use (Zulip's list, without file:). */
export const ALLOWED_SCHEMES = [
  'http',
  'https',
  'ftp',
  'mailto',
  // The WHATWG "safelisted schemes".
  'bitcoin',
  'geo',
  'im',
  'irc',
  'ircs',
  'magnet',
  'matrix',
  'mms',
  'news',
  'nntp',
  'openpgp4fpr',
  'sip',
  'sms',
  'smsto',
  'ssh',
  'tel',
  'urn',
  'webcal',
  'wtai',
  'xmpp',
];

// File extensions Zulip treats as images.
const IMAGE_EXTENSIONS = ['.bmp', '.gif', '.jpe', '.jpeg', '.jpg', '.png', '.webp'];

// Top-level domains that are far more often file extensions ("views.py").
const FALSE_POSITIVE_TLDS = new Set(['java', 'md', 'mov', 'py', 'zip']);

const UPLOADS_PREFIX = '/user_uploads/';

/** The scheme of `url` in lowercase, or undefined when it has none. */
function schemeOf(url: string): string | undefined {
  const match = /^([a-zA-Z][a-zA-Z0-9+.-]*):/.exec(url);
  return match ? match[1].toLowerCase() : undefined;
}

/** Whether a link destination may become a link at all (markdown-it's validateLink hook). */
export function isAllowedLink(url: string): boolean {
  const trimmed = url.trim();
  if (trimmed === '') return false;
  const scheme = schemeOf(trimmed);
  return scheme === undefined || ALLOWED_SCHEMES.includes(scheme);
}

/** A link destination after rewriting: where it points and what it refers to. */
export interface ResolvedLink {
  /** The href to emit. */
  href: string;
  /** Whether it leaves the realm (it then opens in a new tab, without referrer). */
  external: boolean;
  /** The path id when it points to an uploaded file. */
  uploadPathId?: string;
  /** Whether it points to an uploaded image file. */
  isUploadedImage: boolean;
}

/**
 * Rewrites a link destination as Zulip does, or returns undefined when it may
 * not be a link. Links into the realm's own narrows and uploads become
 * relative (#narrow/..., user_uploads/...); /user_uploads/... stays as written.
 */
export function resolveLink(destination: string, baseUrl: string): ResolvedLink | undefined {
  let href = destination.trim();
  if (href === '' || !isAllowedLink(href)) return undefined;
  const base = baseUrl.replace(/\/+$/, '');

  if (schemeOf(href) === undefined) {
    if (href.startsWith('//')) {
      href = `http:${href}`;
    } else if (href.startsWith(UPLOADS_PREFIX)) {
      return uploadLink(href, href.slice(UPLOADS_PREFIX.length));
    } else if (href.startsWith('/') || href.startsWith('#')) {
      return { href, external: false, isUploadedImage: false };
    } else if (/^[^?#]*@/.test(href)) {
      return { href: `mailto:${href}`, external: true, isUploadedImage: false };
    } else {
      href = `http://${href}`;
    }
  }

  const local = sameRealmPath(href, base);
  if (local?.startsWith('/#'))
    return { href: local.slice(1), external: false, isUploadedImage: false };
  if (local?.startsWith(UPLOADS_PREFIX))
    return uploadLink(local.slice(1), local.slice(UPLOADS_PREFIX.length));
  return { href, external: local === undefined, isUploadedImage: false };
}

// The path (with query and fragment) of `href` when it is on the realm's own origin.
function sameRealmPath(href: string, base: string): string | undefined {
  if (base === '') return undefined;
  try {
    const url = new URL(href);
    if (url.origin !== new URL(base).origin) return undefined;
    return url.pathname + url.search + url.hash;
  } catch {
    return undefined;
  }
}

function uploadLink(href: string, rest: string): ResolvedLink {
  const pathId = rest.split(/[?#]/, 1)[0];
  if (pathId === '') return { href, external: false, isUploadedImage: false };
  const lower = pathId.toLowerCase();
  return {
    href,
    external: false,
    uploadPathId: pathId,
    isUploadedImage: IMAGE_EXTENSIONS.some((ext) => lower.endsWith(ext)),
  };
}

/** Whether a bare "name.tld" that linkify found is more likely a file name (views.py). */
export function isFalsePositiveFuzzyLink(text: string): boolean {
  if (schemeOf(text) !== undefined) return false;
  const host = text.split(/[/?#:]/, 1)[0];
  const tld = host.slice(host.lastIndexOf('.') + 1).toLowerCase();
  return FALSE_POSITIVE_TLDS.has(tld);
}
