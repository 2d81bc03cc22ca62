import { loadGeocoder, type Address, type Geocoder } from './reverse.js';

// One geocoder per map directory per worker: map directories are versioned, so a path never changes content.
const geocoders = new Map<string, Promise<Geocoder>>();

/** Worker task `geocode`: reverse-geocodes a batch of points against the map in `mapDir`. */
export async function geocodeTask(input: { mapDir: string; points: Array<{ lat: number; lon: number }> }): Promise<Address[]> {
  let geocoder = geocoders.get(input.mapDir);
  if (!geocoder) {
    geocoder = loadGeocoder(input.mapDir);
    geocoders.set(input.mapDir, geocoder);
    // Forgotten so the next batch tries again; the failure itself reaches the caller through the await below.
    geocoder.catch(() => geocoders.delete(input.mapDir));
  }
  const g = await geocoder;
  return input.points.map((p) => g.reverseGeocode(p.lat, p.lon));
}
