-- Kept by the statements that insert and delete POIs, so the team POI limit is checked and taken in
-- one atomic row update, exact under concurrency.
ALTER TABLE teams ADD COLUMN poi_count integer NOT NULL DEFAULT 0 CHECK (poi_count >= 0);
