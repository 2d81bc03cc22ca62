#!/usr/bin/env node
// The CLI runs from the compiled output: `npm run build` first.
import('../dist/cli/main.js').then((m) => m.main(process.argv.slice(2))).catch((err) => {
  console.error(err?.message ?? err);
  process.exit(1);
});
