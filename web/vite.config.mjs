// Builds the web client into web/dist: the page, and its files under
// /web-assets/ (the address the server serves them at, see src/http/web.ts).
import preact from '@preact/preset-vite';
import { defineConfig } from 'vite';

export default defineConfig({
  root: import.meta.dirname,
  base: '/',
  plugins: [preact()],
  build: {
    outDir: 'dist',
    assetsDir: 'web-assets',
    emptyOutDir: true,
    // No source maps: the server serves what the build wrote and nothing else.
    sourcemap: false,
  },
});
