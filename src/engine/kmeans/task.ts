import { clusterPoints, type ClusterOptions, type Clustering } from './kmeans.js';
import type { LatLon } from '../../lib/lat-lon.js';

/** Pool task `clusters`: the same as clusterPoints, with one payload object. */
export function clustersTask(input: { points: LatLon[]; options: ClusterOptions }): Clustering {
  return clusterPoints(input.points, input.options);
}
