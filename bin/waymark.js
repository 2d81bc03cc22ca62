#!/usr/bin/env node
// The CLI runs from the compiled output: `npm run build` first. Exit codes: 0 done, 1 failed, 2 usage.
import('../dist/cli/main.js').then(
  async (m) => {
    const code = await m.main(process.argv.slice(2));
    // Long-running commands (serve, start, worker) keep the process alive and exit on their signal.
    if (code !== 0) process.exit(code);
  },
  (err) => {
    console.error(`waymark: ${err?.message ?? err} (run npm run build first?)`);
    process.exit(1);
  },
);
