// The Piscina worker: each named export is one task. Keep the exports thin; the logic lives in its domain.
export { distancesTask as distances } from './geodesy-task.js';
