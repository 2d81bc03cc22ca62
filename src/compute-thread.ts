// The Piscina worker: each named export is one task. Keep the exports thin; the logic lives in its domain.
export { warmUpTask as warmUp, collectGarbageTask as collectGarbage } from './engine/warm-up.js';
export { clustersTask as clusters } from './engine/kmeans/task.js';
export { vrpTask as vrp } from './engine/vrp/solver.js';
export { geocodeTask as geocode, geoSearchTask as geoSearch, geoSearchManyTask as geoSearchMany } from './engine/geocoder/task.js';
export {
  routeTask as route,
  routeJsonTask as routeJson,
  matrixTask as matrix,
  matrixJsonTask as matrixJson,
  farTask as far,
  isochroneTask as isochrone,
  travelTimesTask as travelTimes,
  nearestTask as nearest,
} from './engine/route-task.js';
