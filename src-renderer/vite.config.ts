// Builds the cashier and back-office UI into src-renderer/dist, which the service serves at `/`.
// `npx vite src-renderer` serves it in development with /v1 proxied to a running `npm start`.
import { defineConfig } from 'vite';
import react from '@vitejs/plugin-react';

export default defineConfig({
  plugins: [react()],
  // Relative asset paths: the same build works from the service's `/` and from the Electron window.
  base: './',
  // public/index.html is the page the service shows when the UI has not been built; not part of the build.
  publicDir: false,
  build: { outDir: 'dist', emptyOutDir: true, sourcemap: false, chunkSizeWarningLimit: 1200 },
  server: {
    proxy: { '/v1': 'http://127.0.0.1:8787', '/healthz': 'http://127.0.0.1:8787' },
    fs: { allow: ['..'] },
  },
});
