// The Piscina worker: each named export is one task. Keep the exports thin; the logic lives in its domain.
export { distancesTask as distances } from './geodesy-task.js';
export { clustersTask as clusters } from '../routing/clusters/task.js';
export { vrpTask as vrp } from '../routing/optimize/solver.js';
export { geocodeTask as geocode } from '../geo/geocode-task.js';
export { routeTask as route, routeJsonTask as routeJson, matrixTask as matrix, farTask as far } from '../routing/route-task.js';
