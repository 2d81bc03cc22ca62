/** A position in degrees: what the engine snaps and routes between, and what k-means clusters. The API
 *  spells it `{latitude, longitude}`; its routes turn one into the other at the edge. */
export interface LatLon {
  lat: number;
  lon: number;
}
