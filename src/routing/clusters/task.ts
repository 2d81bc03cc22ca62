import { clusterPoints, type ClusterOptions, type Clustering, type LatLon } from './kmeans.js';

/** Pool task `clusters`: the same as clusterPoints, with one payload object. */
export function clustersTask(input: { points: LatLon[]; options: ClusterOptions }): Clustering {
  return clusterPoints(input.points, input.options);
}
