// One-off tool: joins spec-parts/*.yaml (or the files named on the command line,
// always with 00-base.yaml first) into ../openapi.yaml, textually, keeping comments.
import { readFileSync, writeFileSync, readdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
const here = dirname(fileURLToPath(import.meta.url));
const args = process.argv.slice(2);
const files = ['00-base.yaml', ...(args.length ? args : readdirSync(here).filter((f) => f.endsWith('.yaml') && f !== '00-base.yaml').sort())];
const header = [];
const paths = [];
const comps = new Map(); // subsection name -> lines
for (const f of files) {
  const lines = readFileSync(join(here, f), 'utf8').split('\n');
  let top = null; let sub = null;
  for (const line of lines) {
    if (/^\S/.test(line) && !line.startsWith('#')) {
      top = line.replace(/:.*$/, ''); sub = null;
      if (top !== 'paths' && top !== 'components' && f === '00-base.yaml') header.push(line);
      continue;
    }
    if (top === 'paths') { if (line.trim()) paths.push(line); continue; }
    if (top === 'components') {
      const m = /^  (\w+):\s*$/.exec(line);
      if (m) { sub = m[1]; if (!comps.has(sub)) comps.set(sub, []); continue; }
      if (sub && line.trim()) comps.get(sub).push(line);
      continue;
    }
    if (f === '00-base.yaml' && top) header.push(line);
  }
}
const out = [...header.filter((l, i, a) => !(l.trim() === '' && i === a.length - 1))];
out.push(paths.length ? 'paths:' : 'paths: {}', ...paths, 'components:');
for (const [name, body] of comps) out.push(`  ${name}:`, ...body);
writeFileSync(process.env.OUT || join(here, '..', 'openapi.yaml'), out.join('\n').replace(/\n{3,}/g, '\n\n') + '\n');
console.log(`merged ${files.join(', ')} into openapi.yaml`);
