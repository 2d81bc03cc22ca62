-- Background geocoding: pending POIs are claimed in batches under a lease. A POI whose worker died is
-- claimed again once its lease ran out; one that failed `max attempts` times is finished with an empty
-- address, so no POI stays pending forever. A move resets both (src/pois/routes.ts).
ALTER TABLE pois
  ADD COLUMN geocode_lease_until timestamptz,
  ADD COLUMN geocode_attempts integer NOT NULL DEFAULT 0;

-- Place ids are looked up by name after an upsert; the unique indexes lead with country_id.
CREATE INDEX cities_name ON cities (name);
CREATE INDEX zipcodes_code ON zipcodes (code);
