import { defineConfig } from 'vitest/config';

// Files whose assertions are about throughput or stalls under a fault storm run last and one at a time:
// beside a map build or a browser they measured the neighbour, not the service (database-loss counted 38
// answers in 4 s in CI with another file's work on both cores, 300+ alone).
const alone = ['test/faults/database-loss.test.ts'];

export default defineConfig({
  test: {
    globalSetup: ['test/global-setup.ts'],
    testTimeout: 60_000,
    hookTimeout: 180_000,
    pool: 'forks',
    maxWorkers: 2,
    reporters: ['default'],
    projects: [
      { extends: true, test: { name: 'suite', include: ['test/**/*.test.ts'], exclude: alone } },
      { extends: true, test: { name: 'alone', include: alone, fileParallelism: false, sequence: { groupOrder: 1 } } },
    ],
  },
});
