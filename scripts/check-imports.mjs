// The import graph of src/: every relative import and re-export, checked for
// circles and for imports that run back up the layers. Layers, top to bottom:
//
//   start-up   main.ts, cluster.ts, server.ts, startup.ts, cli/   builds the services, starts background work
//   http       the Koa app, routes, parameters, the error envelope
//   handlers   one function per operationId
//   actions    the only code that writes
//   services   services.ts: the type of the long-lived objects passed down
//   lib        reads, rules and presenters, by area (lib/<area>/; lib/*.ts are shared by all)
//   db events  the database; event queues and the bus
//   base       config, log, errors, paths
//
// An import may point to its own layer or any layer below. Inside lib/, the
// area folders must not import each other in a circle, and the shared files at
// lib/'s root import no area. Type-only imports count like the others.
//
// Only actions/ write: outside it (and the few files of allowedWriters), no
// file opens a transaction, calls a Prisma write method or runs SQL that
// changes rows. Each such call is named by file and line.
//
//   node scripts/check-imports.mjs          check; exits 1 on a problem
//   node scripts/check-imports.mjs --draw   also print the drawing of the layers
import { readFileSync, readdirSync, statSync, existsSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const src = join(root, 'src');

/** Layers from the top; a file belongs to the first layer one of whose patterns matches it. */
const layers = [
  { name: 'start-up', match: ['main.ts', 'cluster.ts', 'server.ts', 'startup.ts', 'cli/'] },
  { name: 'http', match: ['http/'] },
  { name: 'handlers', match: ['handlers/'] },
  { name: 'actions', match: ['actions/'] },
  { name: 'services', match: ['services.ts'] },
  { name: 'lib', match: ['lib/'] },
  { name: 'db events', match: ['db/', 'events/'] },
  { name: 'base', match: ['config.ts', 'log.ts', 'errors.ts', 'paths.ts'] },
];

/**
 * Imports allowed to run back up a layer (at most two), each with its reason.
 * An entry that no longer matches an import fails the check, so the list
 * cannot outlive its reason.
 */
const allowedUpward = [
  // The Services type names the request counters the HTTP layer builds and
  // uses (only the login counter is also read, by the fetch_api_key handler).
  // A type-only import: nothing below http runs rate-limit code.
  { from: 'services.ts', to: 'http/rate-limit.ts' },
];

/** The relative path of every .ts file under `dir`. */
function sourceFiles(dir) {
  const out = [];
  for (const name of readdirSync(dir)) {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) out.push(...sourceFiles(path));
    else if (name.endsWith('.ts') && !name.endsWith('.d.ts'))
      out.push(relative(src, path).split(sep).join('/'));
  }
  return out.sort();
}

/** The source without comments (lines kept); strings and template literals are kept as they are. */
function stripComments(text) {
  let out = '';
  let i = 0;
  while (i < text.length) {
    const c = text[i];
    const next = text[i + 1];
    if (c === '/' && next === '/') {
      while (i < text.length && text[i] !== '\n') i++;
    } else if (c === '/' && next === '*') {
      const end = text.indexOf('*/', i + 2);
      const stop = end < 0 ? text.length : end + 2;
      // The comment's line breaks are kept, so that line numbers stay right.
      out += text.slice(i, stop).replace(/[^\n]/g, '');
      i = stop;
    } else if (c === "'" || c === '"' || c === '`') {
      let j = i + 1;
      while (j < text.length && text[j] !== c) j += text[j] === '\\' ? 2 : 1;
      out += text.slice(i, j + 1);
      i = j + 1;
    } else {
      out += c;
      i++;
    }
  }
  return out;
}

const statement =
  /(?:^|[;}\n])\s*(import|export)\s+(type\s+)?([^;'"]*?)\s*from\s*['"]([^'"]+)['"]/g;
const bare = /(?:^|[;}\n])\s*import\s*['"]([^'"]+)['"]/g;
const dynamic = /\b(?:import|require)\s*\(\s*['"]([^'"]+)['"]\s*\)/g;

/** The imports of one file: the specifier and whether only types are imported. */
function importsOf(text) {
  const code = stripComments(text);
  const found = [];
  for (const m of code.matchAll(statement)) {
    const clause = m[3].trim();
    // `import { type A, type B }` imports only types too.
    const names = /^\{([^}]*)\}$/
      .exec(clause)?.[1]
      .split(',')
      .map((s) => s.trim())
      .filter(Boolean);
    const typeOnly =
      Boolean(m[2]) ||
      (names !== undefined && names.length > 0 && names.every((n) => n.startsWith('type ')));
    found.push({ spec: m[4], typeOnly });
  }
  for (const m of code.matchAll(bare)) found.push({ spec: m[1], typeOnly: false });
  for (const m of code.matchAll(dynamic)) found.push({ spec: m[1], typeOnly: false });
  return found;
}

/** The file a relative specifier names, relative to src/, or null when it is outside src/ or not a module. */
function resolveSpec(from, spec) {
  if (!spec.startsWith('.')) return null;
  const base = resolve(src, dirname(from), spec);
  for (const candidate of [`${base}.ts`, join(base, 'index.ts')]) {
    if (existsSync(candidate)) {
      const rel = relative(src, candidate).split(sep).join('/');
      return rel.startsWith('..') ? null : rel;
    }
  }
  if (!relative(src, base).startsWith('..'))
    throw new Error(`src/${from}: cannot resolve '${spec}'`);
  return null;
}

function layerOf(file) {
  const index = layers.findIndex((l) =>
    l.match.some((p) => (p.endsWith('/') ? file.startsWith(p) : file === p)),
  );
  return index;
}

/** The area of a lib file: its folder under lib/, or '(shared)' for lib's own files. */
function areaOf(file) {
  const parts = file.split('/');
  return parts.length > 2 ? parts[1] : '(shared)';
}

/** Strongly connected components of a graph given as Map<node, Set<node>> (Tarjan). */
function components(graph) {
  let index = 0;
  const stack = [];
  const info = new Map();
  const out = [];
  const visit = (node) => {
    info.set(node, { index, low: index, onStack: true });
    index++;
    stack.push(node);
    for (const next of graph.get(node) ?? []) {
      if (!info.has(next)) {
        visit(next);
        info.get(node).low = Math.min(info.get(node).low, info.get(next).low);
      } else if (info.get(next).onStack) {
        info.get(node).low = Math.min(info.get(node).low, info.get(next).index);
      }
    }
    if (info.get(node).low === info.get(node).index) {
      const component = [];
      let member;
      do {
        member = stack.pop();
        info.get(member).onStack = false;
        component.push(member);
      } while (member !== node);
      out.push(component);
    }
  };
  for (const node of graph.keys()) if (!info.has(node)) visit(node);
  return out;
}

/** One circle through `members`, found by walking edges inside the component. */
function circleIn(graph, members) {
  const inside = new Set(members);
  const start = members.sort()[0];
  const path = [start];
  const seen = new Set([start]);
  for (;;) {
    const here = path[path.length - 1];
    const nexts = [...(graph.get(here) ?? [])].filter((n) => inside.has(n)).sort();
    if (nexts.includes(start)) return [...path, start];
    const next = nexts.find((n) => !seen.has(n)) ?? nexts[0];
    if (seen.has(next)) return [...path.slice(path.indexOf(next)), next];
    seen.add(next);
    path.push(next);
  }
}

/**
 * Files outside actions/ allowed to write, each with its reason. An entry
 * whose file no longer writes fails the check, so the list cannot outlive
 * its reason.
 */
const allowedWriters = [
  // The door every action writes through: Database.write opens the
  // transaction ($transaction), executeRows runs the raw statements actions
  // give it ($executeRaw), and a new SQLite connection gets its PRAGMAs.
  { file: 'db/client.ts' },
  // Migrations run before any Prisma client is opened, through the drivers,
  // and record each migration applied in the _prisma_migrations ledger.
  { file: 'db/migrate.ts' },
];

/** The Prisma client's name of each model's delegate (`UserMessage` is `userMessage`). */
const delegates = [
  ...readFileSync(join(root, 'prisma', 'schema.prisma'), 'utf8').matchAll(/^model\s+(\w+)/gm),
].map((m) => m[1][0].toLowerCase() + m[1].slice(1));
const writeMethods =
  'create|createMany|createManyAndReturn|update|updateMany|updateManyAndReturn|upsert|delete|deleteMany';

/** The ways code writes, each with what it is called in a problem. */
const writes = [
  // tx.user.update(...), db.realmExport.deleteMany(...), over line breaks too.
  {
    what: 'a Prisma write',
    pattern: new RegExp(
      `\\.\\s*(?:${delegates.join('|')})\\s*\\.\\s*(?:${writeMethods})\\s*\\(`,
      'g',
    ),
  },
  // Names only Prisma uses, whatever holds the delegate (delegateOf(tx, model), a variable).
  {
    what: 'a Prisma write',
    pattern:
      /\.\s*(?:createMany|createManyAndReturn|updateMany|updateManyAndReturn|upsert|deleteMany)\s*\(/g,
  },
  { what: 'a raw statement', pattern: /\$executeRaw(?:Unsafe)?\b|\bexecuteRows\s*\(/g },
  { what: 'a transaction', pattern: /\$transaction\s*\(/g },
  // Database.write(fn): the receiver is `db` or the callback is written in place
  // (a stream's write is given text, never a function).
  {
    what: 'a transaction (Database.write)',
    pattern: /\bdb\s*\.\s*write\s*\(|\.\s*write\s*\(\s*(?:async\b|\(|[A-Za-z_$][\w$]*\s*=>)/g,
  },
  // SQL that changes rows, handed to queryRows, $queryRaw or a driver.
  {
    what: 'SQL that changes rows',
    pattern: /\b(?:INSERT\s+INTO|DELETE\s+FROM|UPDATE\s+"?\w+"?\s+SET)\b/g,
  },
];

/** Where `file` writes: one entry per line, with what is written there. */
function writesOf(text) {
  const code = stripComments(text);
  const found = new Map();
  for (const { what, pattern } of writes)
    for (const m of code.matchAll(pattern)) {
      const line = code.slice(0, m.index).split('\n').length;
      if (!found.has(line)) found.set(line, what);
    }
  return [...found].sort((a, b) => a[0] - b[0]).map(([line, what]) => ({ line, what }));
}

const files = sourceFiles(src);
const graph = new Map(files.map((f) => [f, new Set()]));
const edges = [];
const problems = [];
for (const file of files) {
  for (const { spec, typeOnly } of importsOf(readFileSync(join(src, file), 'utf8'))) {
    const target = resolveSpec(file, spec);
    if (target === null) continue;
    graph.get(file).add(target);
    edges.push({ from: file, to: target, typeOnly });
  }
}

for (const file of files)
  if (layerOf(file) < 0)
    problems.push(
      `src/${file} belongs to no layer: add it to the layers of scripts/check-imports.mjs`,
    );

const usedAllowances = new Set();
const upward = [];
for (const edge of edges) {
  const from = layerOf(edge.from);
  const to = layerOf(edge.to);
  if (from < 0 || to < 0 || to >= from) continue;
  const allowance = allowedUpward.find((a) => a.from === edge.from && a.to === edge.to);
  if (allowance) {
    usedAllowances.add(allowance);
    upward.push(edge);
  } else {
    problems.push(
      `src/${edge.from} (${layers[from].name}) imports src/${edge.to} (${layers[to].name}), a layer above it`,
    );
  }
}
for (const allowance of allowedUpward) {
  if (!usedAllowances.has(allowance))
    problems.push(
      `allowed upward import src/${allowance.from} -> src/${allowance.to} no longer exists: remove it from the list`,
    );
}
if (allowedUpward.length > 2) problems.push('at most two upward imports may be allowed');

for (const component of components(graph)) {
  const selfLoop = component.length === 1 && graph.get(component[0]).has(component[0]);
  if (component.length > 1 || selfLoop)
    problems.push(
      `import circle among ${component.length} file(s), one of them: ${circleIn(graph, component)
        .map((f) => `src/${f}`)
        .join(' -> ')}`,
    );
}

// lib/: areas import each other without circles; the shared files import no area.
const libEdges = edges.filter((e) => e.from.startsWith('lib/') && e.to.startsWith('lib/'));
const areaGraph = new Map();
// Every area, those whose files import no other lib file included.
for (const file of files)
  if (file.startsWith('lib/') && !areaGraph.has(areaOf(file)))
    areaGraph.set(areaOf(file), new Set());
for (const e of libEdges) {
  const a = areaOf(e.from);
  const b = areaOf(e.to);
  if (!areaGraph.has(a)) areaGraph.set(a, new Set());
  if (!areaGraph.has(b)) areaGraph.set(b, new Set());
  if (a !== b) areaGraph.get(a).add(b);
  if (a === '(shared)' && b !== '(shared)')
    problems.push(`src/${e.from} is shared by every area but imports src/${e.to} of lib/${b}/`);
}
for (const component of components(areaGraph)) {
  if (component.length > 1)
    problems.push(
      `circle between lib areas: ${circleIn(areaGraph, component)
        .map((a) => `lib/${a}`)
        .join(' -> ')}`,
    );
}

// Only actions/ write.
const usedWriters = new Set();
let writeCount = 0;
for (const file of files) {
  const found = writesOf(readFileSync(join(src, file), 'utf8'));
  if (file.startsWith('actions/')) {
    writeCount += found.length;
    continue;
  }
  const allowance = allowedWriters.find((a) => a.file === file);
  if (allowance) {
    if (found.length > 0) usedWriters.add(allowance);
    continue;
  }
  for (const { line, what } of found)
    problems.push(
      `src/${file}:${line} writes (${what}) outside src/actions/: move it into an action`,
    );
}
for (const allowance of allowedWriters)
  if (!usedWriters.has(allowance))
    problems.push(
      `src/${allowance.file} is allowed to write but no longer does: remove it from allowedWriters`,
    );
if (writeCount === 0) problems.push('no write found in src/actions/: the write patterns are stale');

if (process.argv.includes('--draw')) draw();

if (problems.length > 0) {
  for (const p of problems) process.stderr.write(`check-imports: ${p}\n`);
  process.exit(1);
}
process.stdout.write(
  `check-imports: ${files.length} files, ${edges.length} imports, no circle, ${upward.length} allowed upward import(s), writes only in src/actions/ (and ${allowedWriters.length} allowed file(s))\n`,
);

/** Prints the layers top to bottom, with lib's areas in an order where each imports only those below it. */
function draw() {
  const lines = [];
  const groupOf = (file) => {
    const layer = layerOf(file);
    return layers[layer].name === 'lib'
      ? `lib/${areaOf(file) === '(shared)' ? '*.ts' : `${areaOf(file)}/`}`
      : layers[layer].name;
  };
  // lib's areas, highest first: an area is drawn above every area it imports.
  const areas = [...areaGraph.keys()];
  const depth = new Map();
  const depthOf = (a) => {
    if (depth.has(a)) return depth.get(a) ?? 0; // undefined: on a circle, reported above
    depth.set(a, undefined);
    depth.set(a, 1 + Math.max(-1, ...[...areaGraph.get(a)].map(depthOf)));
    return depth.get(a);
  };
  areas.sort((a, b) => depthOf(b) - depthOf(a) || a.localeCompare(b));
  const groups = [];
  for (const layer of layers) {
    if (layer.name === 'lib')
      for (const a of areas) groups.push(`lib/${a === '(shared)' ? '*.ts' : `${a}/`}`);
    else groups.push(layer.name);
  }
  const members = new Map(groups.map((g) => [g, []]));
  for (const f of files) if (layerOf(f) >= 0) members.get(groupOf(f)).push(f);
  const between = new Map();
  for (const e of edges) {
    const key = `${groupOf(e.from)} -> ${groupOf(e.to)}`;
    if (groupOf(e.from) !== groupOf(e.to)) between.set(key, (between.get(key) ?? 0) + 1);
  }
  const width = Math.max(...groups.map((g) => g.length));
  lines.push(
    'Imports of src/, top to bottom (each group imports only groups below it, except where marked):',
    '',
  );
  for (const g of groups) {
    const list = members.get(g);
    const shown = g.startsWith('lib/') ? list.map((f) => f.split('/').pop()) : list;
    lines.push(`${g.padEnd(width)}  ${list.length} file(s): ${shown.join(' ')}`);
    const targets = groups.filter((t) => between.has(`${g} -> ${t}`));
    if (targets.length)
      lines.push(
        `${''.padEnd(width)}    -> ${targets.map((t) => `${t} (${between.get(`${g} -> ${t}`)})`).join(', ')}`,
      );
  }
  lines.push('');
  if (upward.length === 0) lines.push('Upward imports: none.');
  else
    for (const e of upward)
      lines.push(
        `Upward import (allowed): src/${e.from} -> src/${e.to}${e.typeOnly ? ' (types only)' : ''}`,
      );
  process.stdout.write(`${lines.join('\n')}\n\n`);
}
