// URL templates (RFC 6570) as linkifiers use them: `{name}` expressions,
// with the operators of levels 2 and 3 (`+ # . / ; ? &`), lists of names and
// the `:N` and `*` modifiers, expanded with string values (the groups a
// linkifier pattern matched). Literal text is copied, percent-encoding what a
// URL may not hold; a `%` that does not begin an escape becomes `%25`.

/** One `{...}` expression: its operator and the names it expands. */
interface Expression {
  operator: string;
  variables: { name: string; prefix?: number }[];
}

/** A parsed template: literal text and expressions, in order. */
export type UrlTemplate = (string | Expression)[];

const OPERATORS = '+#./;?&';
// Operators RFC 6570 reserves for future use: a template holding one is invalid.
const RESERVED_OPERATORS = '=,!@|';
const VARNAME = /^(?:[A-Za-z0-9_]|%[0-9A-Fa-f]{2})+(?:\.(?:[A-Za-z0-9_]|%[0-9A-Fa-f]{2})+)*$/;
const PREFIX = /^[1-9][0-9]{0,3}$/;

/** Parses `template`, or returns undefined when it is not a valid URL template. */
export function parseUrlTemplate(template: string): UrlTemplate | undefined {
  const parts: UrlTemplate = [];
  let literal = '';
  let i = 0;
  while (i < template.length) {
    const c = template[i];
    if (c === '}') return undefined;
    if (c !== '{') {
      literal += c;
      i++;
      continue;
    }
    const end = template.indexOf('}', i + 1);
    if (end < 0) return undefined;
    const expression = parseExpression(template.slice(i + 1, end));
    if (!expression) return undefined;
    if (literal) parts.push(literal);
    literal = '';
    parts.push(expression);
    i = end + 1;
  }
  if (literal) parts.push(literal);
  return parts;
}

function parseExpression(body: string): Expression | undefined {
  if (body.includes('{')) return undefined;
  let operator = '';
  if (body && RESERVED_OPERATORS.includes(body[0])) return undefined;
  if (body && OPERATORS.includes(body[0])) {
    operator = body[0];
    body = body.slice(1);
  }
  const variables: Expression['variables'] = [];
  for (const spec of body.split(',')) {
    let name = spec;
    let prefix: number | undefined;
    if (name.endsWith('*')) {
      name = name.slice(0, -1);
    } else if (name.includes(':')) {
      const [base, length] = name.split(':');
      if (!PREFIX.test(length)) return undefined;
      name = base;
      prefix = Number(length);
    }
    if (!VARNAME.test(name)) return undefined;
    variables.push({ name, prefix });
  }
  return { operator, variables };
}

/** The names of the variables `template` uses. */
export function templateVariables(template: UrlTemplate): Set<string> {
  const names = new Set<string>();
  for (const part of template)
    if (typeof part !== 'string') for (const v of part.variables) names.add(v.name);
  return names;
}

const UNRESERVED = /[A-Za-z0-9\-._~]/;
const RESERVED = /[:/?#[\]@!$&'()*+,;=]/;

// Percent-encodes `text`, keeping unreserved characters and, when `allowReserved`,
// reserved characters and existing %XX escapes.
function encode(text: string, allowReserved: boolean): string {
  let out = '';
  for (let i = 0; i < text.length;) {
    const ch = String.fromCodePoint(text.codePointAt(i)!);
    if (allowReserved && ch === '%' && /^[0-9A-Fa-f]{2}$/.test(text.slice(i + 1, i + 3))) {
      out += text.slice(i, i + 3);
      i += 3;
      continue;
    }
    if (UNRESERVED.test(ch) || (allowReserved && RESERVED.test(ch))) out += ch;
    else
      for (const byte of Buffer.from(ch, 'utf8'))
        out += `%${byte.toString(16).toUpperCase().padStart(2, '0')}`;
    i += ch.length;
  }
  return out;
}

const operatorRules: Record<
  string,
  { first: string; separator: string; named: boolean; ifEmpty: string; reserved: boolean }
> = {
  '': { first: '', separator: ',', named: false, ifEmpty: '', reserved: false },
  '+': { first: '', separator: ',', named: false, ifEmpty: '', reserved: true },
  '#': { first: '#', separator: ',', named: false, ifEmpty: '', reserved: true },
  '.': { first: '.', separator: '.', named: false, ifEmpty: '', reserved: false },
  '/': { first: '/', separator: '/', named: false, ifEmpty: '', reserved: false },
  ';': { first: ';', separator: ';', named: true, ifEmpty: '', reserved: false },
  '?': { first: '?', separator: '&', named: true, ifEmpty: '=', reserved: false },
  '&': { first: '&', separator: '&', named: true, ifEmpty: '=', reserved: false },
};

/** Expands `template` with `values`; variables without a value are left out. */
export function expandUrlTemplate(
  template: UrlTemplate,
  values: Record<string, string | undefined>,
): string {
  let out = '';
  for (const part of template) {
    if (typeof part === 'string') {
      out += encode(part, true);
      continue;
    }
    const rule = operatorRules[part.operator];
    const pieces: string[] = [];
    for (const { name, prefix } of part.variables) {
      const value = values[name];
      if (value === undefined) continue;
      const cut = prefix === undefined ? value : [...value].slice(0, prefix).join('');
      const encoded = encode(cut, rule.reserved);
      if (!rule.named) pieces.push(encoded);
      else pieces.push(cut === '' ? name + rule.ifEmpty : `${name}=${encoded}`);
    }
    if (pieces.length > 0) out += rule.first + pieces.join(rule.separator);
  }
  return out;
}
