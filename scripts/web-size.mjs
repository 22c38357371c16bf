// Prints the size of the web client's first page as the browser loads it:
// every JavaScript and CSS file that web/dist/index.html names, raw and
// gzipped (the JavaScript must stay under 150 KB gzipped).
//   npm run build:web && npm run size:web
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { gzipSync } from 'node:zlib';

const dist = resolve(import.meta.dirname, '..', 'web', 'dist');
const page = readFileSync(join(dist, 'index.html'), 'utf8');
const files = [...page.matchAll(/(?:src|href)="\/(web-assets\/[^"]+\.(?:js|css))"/g)].map(
  (m) => m[1],
);
const totals = { js: { raw: 0, gzip: 0 }, css: { raw: 0, gzip: 0 } };
for (const file of files) {
  const body = readFileSync(join(dist, file));
  const gzip = gzipSync(body, { level: 9 }).length;
  const kind = file.endsWith('.js') ? 'js' : 'css';
  totals[kind].raw += body.length;
  totals[kind].gzip += gzip;
  console.log(
    `${file}: ${(body.length / 1024).toFixed(1)} KB, ${(gzip / 1024).toFixed(1)} KB gzipped`,
  );
}
console.log(
  `first page JavaScript: ${(totals.js.raw / 1024).toFixed(1)} KB, ${(totals.js.gzip / 1024).toFixed(1)} KB gzipped (limit 150 KB)`,
);
console.log(`first page CSS: ${(totals.css.gzip / 1024).toFixed(1)} KB gzipped`);
if (totals.js.gzip > 150 * 1024) process.exitCode = 1;
