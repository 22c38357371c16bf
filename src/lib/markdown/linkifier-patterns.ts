// Linkifier patterns: the organization writes them in the RE2 syntax Zulip
// uses (Python-style named groups `(?P<name>...)`, `\pL`, inline flags), and
// they run here as JavaScript regular expressions. This file checks a pattern
// the way RE2 would refuse it (with RE2's messages) and translates it.

/** A pattern that cannot be used; `message` reads like RE2's own. */
export class PatternError extends Error {}

/** A pattern translated to JavaScript: its source, its flags and its named groups. */
export interface TranslatedPattern {
  source: string;
  flags: string;
  groupNames: string[];
}

const SYNTAX_CHARS = '^$\\.*+?()[]{}|/';
const POSIX_CLASSES: Record<string, string> = {
  alnum: '0-9A-Za-z',
  alpha: 'A-Za-z',
  ascii: '\\x00-\\x7F',
  blank: '\\t ',
  cntrl: '\\x00-\\x1F\\x7F',
  digit: '0-9',
  graph: '!-~',
  lower: 'a-z',
  print: ' -~',
  punct: '!-\\/:-@\\[-`{-~',
  space: '\\t\\n\\v\\f\\r ',
  upper: 'A-Z',
  word: '0-9A-Za-z_',
  xdigit: '0-9A-Fa-f',
};
// RE2's \s is ASCII whitespace only.
const RE2_SPACE = '\\t\\n\\f\\r ';

/** Translates the RE2 `pattern` to JavaScript, or throws a PatternError. */
export function translatePattern(pattern: string): TranslatedPattern {
  const t = new Translator(pattern);
  return t.run();
}

class Translator {
  private i = 0;
  private out = '';
  private flags = new Set<string>();
  private groupNames: string[] = [];
  // Open groups, each remembering whether it is a flag-only group to drop.
  private depth = 0;
  // Whether the last thing emitted can take a repetition operator.
  private repeatable = false;

  constructor(private readonly src: string) {}

  run(): TranslatedPattern {
    while (this.i < this.src.length) this.step();
    if (this.depth > 0) throw new PatternError(`missing ): ${this.src}`);
    const flags = [...this.flags].filter((f) => 'ims'.includes(f)).join('');
    return { source: this.out, flags, groupNames: this.groupNames };
  }

  private step(): void {
    const c = this.src[this.i];
    switch (c) {
      case '\\':
        this.out += this.escape(false);
        this.repeatable = true;
        return;
      case '[':
        this.out += this.charClass();
        this.repeatable = true;
        return;
      case '(':
        this.openGroup();
        return;
      case ')':
        if (this.depth === 0) throw new PatternError(`unexpected ): ${this.src}`);
        this.depth--;
        this.out += ')';
        this.i++;
        this.repeatable = true;
        return;
      case '|':
        this.out += '|';
        this.i++;
        this.repeatable = false;
        return;
      case '*':
      case '+':
      case '?':
        this.repetition();
        return;
      case '{': {
        if (/^\{\d+(,\d*)?\}/.test(this.src.slice(this.i))) {
          this.repetition();
          return;
        }
        this.out += '\\{';
        this.i++;
        this.repeatable = true;
        return;
      }
      case '}':
      case ']':
        this.out += `\\${c}`;
        this.i++;
        this.repeatable = true;
        return;
      default:
        this.out += c;
        this.i++;
        this.repeatable = c !== '^' && c !== '$';
    }
  }

  // A run of repetition operators: one operator, optionally made lazy by `?`.
  private repetition(): void {
    const start = this.i;
    const ops: string[] = [];
    for (;;) {
      const rest = this.src.slice(this.i);
      const m = /^(?:[*+?]|\{\d+(?:,\d*)?\})/.exec(rest);
      if (!m) break;
      ops.push(m[0]);
      this.i += m[0].length;
    }
    const run = this.src.slice(start, this.i);
    if (!this.repeatable)
      throw new PatternError(`missing argument to repetition operator: ${ops[0]}`);
    if (ops.length > 2 || (ops.length === 2 && ops[1] !== '?'))
      throw new PatternError(`bad repetition operator: ${run}`);
    for (const op of ops) {
      const counts = /^\{(\d+)(?:,(\d*))?\}$/.exec(op);
      if (!counts) continue;
      const [min, max] = [Number(counts[1]), counts[2] ? Number(counts[2]) : undefined];
      if (min > 1000 || (max !== undefined && (max > 1000 || max < min)))
        throw new PatternError(`bad repetition operator: ${op}`);
    }
    this.out += run;
    this.repeatable = false;
  }

  private openGroup(): void {
    const rest = this.src.slice(this.i);
    const named = /^\(\?P?<([^>]*)>/.exec(rest);
    if (named && !/^\(\?<[=!]/.test(rest)) {
      const name = named[1];
      if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(name) || this.groupNames.includes(name))
        throw new PatternError(`invalid named capture group: ${named[0]}`);
      this.groupNames.push(name);
      this.out += `(?<${name}>`;
      this.i += named[0].length;
    } else if (rest.startsWith('(?:')) {
      this.out += '(?:';
      this.i += 3;
    } else if (rest.startsWith('(?')) {
      const flags = /^\(\?(-?[imsU]+(?:-[imsU]*)?)?([:)])/.exec(rest);
      if (!flags || !flags[1])
        throw new PatternError(`invalid or unsupported Perl syntax: ${rest.slice(0, 3)}`);
      // JavaScript has no inline flags: they apply to the whole pattern.
      const [on] = flags[1].split('-');
      for (const f of on) this.flags.add(f);
      this.i += flags[0].length;
      if (flags[2] === ')') return;
      this.out += '(?:';
    } else {
      this.out += '(';
      this.i++;
    }
    this.depth++;
    this.repeatable = false;
  }

  // An escape outside or inside a character class, as JavaScript text.
  private escape(inClass: boolean): string {
    const next = this.src[this.i + 1];
    if (next === undefined) throw new PatternError('trailing \\');
    this.i += 2;
    if (/[1-9]/.test(next)) throw new PatternError(`invalid escape sequence: \\${next}`);
    switch (next) {
      case 'd':
      case 'D':
      case 'w':
      case 'W':
      case 'n':
      case 't':
      case 'r':
      case 'f':
      case 'v':
        return `\\${next}`;
      case 's':
        return inClass ? RE2_SPACE : `[${RE2_SPACE}]`;
      case 'S':
        if (inClass) throw new PatternError('invalid escape sequence: \\S');
        return `[^${RE2_SPACE}]`;
      case 'a':
        return '\\x07';
      case '0':
        return '\\x00';
      case 'b':
      case 'B':
        if (inClass) throw new PatternError(`invalid escape sequence: \\${next}`);
        return `\\${next}`;
      case 'A':
        if (inClass) throw new PatternError('invalid escape sequence: \\A');
        return '^';
      case 'z':
        if (inClass) throw new PatternError('invalid escape sequence: \\z');
        return '$';
      case 'x':
        return this.hexEscape();
      case 'p':
      case 'P':
        return this.unicodeClass(next);
      case 'Q': {
        const end = this.src.indexOf('\\E', this.i);
        const text = this.src.slice(this.i, end < 0 ? undefined : end);
        this.i = end < 0 ? this.src.length : end + 2;
        return [...text].map((ch) => literal(ch, inClass)).join('');
      }
    }
    if (/[A-Za-z]/.test(next)) throw new PatternError(`invalid escape sequence: \\${next}`);
    return literal(next, inClass);
  }

  private hexEscape(): string {
    const rest = this.src.slice(this.i);
    const braced = /^\{([0-9A-Fa-f]{1,8})\}/.exec(rest);
    if (braced) {
      this.i += braced[0].length;
      const code = parseInt(braced[1], 16);
      if (code > 0x10ffff) throw new PatternError(`invalid escape sequence: \\x${braced[0]}`);
      return `\\u{${code.toString(16)}}`;
    }
    const plain = /^[0-9A-Fa-f]{2}/.exec(rest);
    if (!plain) throw new PatternError(`invalid escape sequence: \\x${rest.slice(0, 2)}`);
    this.i += 2;
    return `\\x${plain[0]}`;
  }

  private unicodeClass(kind: string): string {
    const rest = this.src.slice(this.i);
    const m = /^(?:\{(\^?)([A-Za-z_]+)\}|([A-Za-z]))/.exec(rest);
    if (!m) throw new PatternError(`invalid character class range: \\${kind}${rest.slice(0, 1)}`);
    this.i += m[0].length;
    const negated = (kind === 'P') !== (m[1] === '^');
    const name = m[2] ?? m[3];
    const property = name === 'Any' ? undefined : name.length <= 2 ? name : `Script=${name}`;
    const text = property
      ? `\\${negated ? 'P' : 'p'}{${property}}`
      : negated
        ? '[^\\s\\S]'
        : '[\\s\\S]';
    try {
      new RegExp(text, 'u');
    } catch {
      throw new PatternError(`invalid character class range: \\${kind}${m[0]}`);
    }
    return text;
  }

  // A bracketed class, from `[` to its `]`, as JavaScript text.
  private charClass(): string {
    const start = this.i;
    this.i++;
    let out = '[';
    if (this.src[this.i] === '^') {
      out += '^';
      this.i++;
    }
    let first = true;
    // The last single character, and whether a `-` after it asks for a range.
    let previous: string | undefined;
    let rangeFrom: string | undefined;
    while (this.i < this.src.length) {
      const c = this.src[this.i];
      if (c === ']' && !first) {
        this.i++;
        return out + ']';
      }
      first = false;
      const posix = /^\[:(\^?)([a-z]+):\]/.exec(this.src.slice(this.i));
      if (posix) {
        const chars = POSIX_CLASSES[posix[2]];
        if (!chars || posix[1])
          throw new PatternError(`invalid character class range: ${posix[0]}`);
        out += chars;
        this.i += posix[0].length;
        previous = rangeFrom = undefined;
        continue;
      }
      if (c === '-' && previous !== undefined && this.src[this.i + 1] !== ']') {
        rangeFrom = previous;
        previous = undefined;
        out += '-';
        this.i++;
        continue;
      }
      let single: string | undefined;
      if (c === '\\') {
        const before = this.i;
        out += this.escape(true);
        const escaped = this.src.slice(before, this.i);
        single = /^\\[^A-Za-z0-9]$/.test(escaped) ? escaped[1] : undefined;
      } else {
        this.i++;
        out += literal(c, true);
        single = c;
      }
      if (rangeFrom !== undefined && single !== undefined) {
        if (rangeFrom.codePointAt(0)! > single.codePointAt(0)!)
          throw new PatternError(`invalid character class range: ${rangeFrom}-${single}`);
        single = undefined;
      }
      previous = single;
      rangeFrom = undefined;
    }
    throw new PatternError(`missing ]: ${this.src.slice(start)}`);
  }
}

// One character as literal JavaScript pattern text (escaped when it has a meaning).
function literal(ch: string, inClass: boolean): string {
  if (inClass) return '\\^-[]'.includes(ch) ? `\\${ch}` : ch;
  return SYNTAX_CHARS.includes(ch) ? `\\${ch}` : ch;
}
