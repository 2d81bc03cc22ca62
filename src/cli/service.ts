// What the service commands need, loaded by main.ts on first use (see there).
export { openDatabase, openMap, startApp } from '../app.js';
export { closePool, configurePool } from '../compute/pool.js';
export { ensureDemoUser } from '../dashboard/demo.js';
export { startGeocoding } from '../geocoding/runner.js';
export { startJobRunner } from '../job-kinds.js';
export { runMapBuild } from '../map/build.js';
export { ensureDemoKey } from './demo.js';
export { importCommand } from './import-command.js';
export { activateMap, MAP_WATCH_MS, MapSwaps } from '../ops/map-swap.js';
