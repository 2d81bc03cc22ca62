-- No extension: PostGIS was created here until no query used it (012); a database that has it keeps it.

-- Great-circle distance in meters (mean Earth radius): within 0.5% of the geodesic, and a plain
-- inlinable SQL expression, several times cheaper per row than geography's spheroid functions.
CREATE FUNCTION great_circle_m(lat1 double precision, lon1 double precision, lat2 double precision, lon2 double precision)
RETURNS double precision LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
  SELECT 12742017.6 * asin(least(1.0, sqrt(
    power(sin(radians(lat2 - lat1) / 2), 2) + cos(radians(lat1)) * cos(radians(lat2)) * power(sin(radians(lon2 - lon1) / 2), 2))))
$$;

CREATE TABLE teams (
  id          text PRIMARY KEY,
  name        text NOT NULL CHECK (length(name) BETWEEN 1 AND 255),
  plan        text NOT NULL CHECK (plan IN ('basic', 'pro', 'enterprise')),
  plan_active boolean NOT NULL DEFAULT true,
  poi_limit   integer CHECK (poi_limit >= 0),
  rate_limit  integer CHECK (rate_limit >= 0),
  created_at  timestamptz NOT NULL DEFAULT now()
);

CREATE TABLE api_keys (
  id           text PRIMARY KEY,
  team_id      text NOT NULL REFERENCES teams(id) ON DELETE CASCADE,
  name         text NOT NULL,
  digest       bytea NOT NULL UNIQUE,
  last_four    text NOT NULL,
  permissions  smallint[] NOT NULL,
  expires_at   timestamptz,
  is_active    boolean NOT NULL DEFAULT true,
  last_used_at timestamptz,
  created_at   timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX api_keys_team ON api_keys (team_id, id);

-- One row per team and minute; the rolling hour is the sum of the last 60 rows.
CREATE TABLE rate_counters (
  team_id text NOT NULL REFERENCES teams(id) ON DELETE CASCADE,
  minute  timestamptz NOT NULL,
  count   integer NOT NULL,
  PRIMARY KEY (team_id, minute)
);

CREATE TABLE key_usage (
  key_id   text NOT NULL REFERENCES api_keys(id) ON DELETE CASCADE,
  minute   timestamptz NOT NULL,
  method   text NOT NULL,
  endpoint text NOT NULL,
  count    integer NOT NULL,
  PRIMARY KEY (key_id, minute, method, endpoint)
);

CREATE TABLE categories (
  id         text PRIMARY KEY,
  team_id    text NOT NULL REFERENCES teams(id) ON DELETE CASCADE,
  name       text NOT NULL CHECK (length(name) BETWEEN 1 AND 255),
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now(),
  UNIQUE (team_id, name)
);
CREATE INDEX categories_team ON categories (team_id, id);

CREATE TABLE attributes (
  id         text PRIMARY KEY,
  team_id    text NOT NULL REFERENCES teams(id) ON DELETE CASCADE,
  name       text NOT NULL CHECK (name ~ '^[A-Za-z0-9_]{1,255}$' AND name NOT IN ('limit', 'cursor')),
  type       text NOT NULL CHECK (type IN ('string', 'number', 'boolean')),
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now(),
  UNIQUE (team_id, name)
);
CREATE INDEX attributes_team ON attributes (team_id, id);

-- Places are shared by every team; their ids never change once assigned.
CREATE TABLE countries (
  id   uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  name text NOT NULL UNIQUE
);
CREATE TABLE cities (
  id         uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  country_id uuid REFERENCES countries(id),
  name       text NOT NULL,
  UNIQUE NULLS NOT DISTINCT (country_id, name)
);
CREATE TABLE zipcodes (
  id         uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  country_id uuid REFERENCES countries(id),
  code       text NOT NULL,
  UNIQUE NULLS NOT DISTINCT (country_id, code)
);

CREATE TABLE pois (
  id           text PRIMARY KEY,
  team_id      text NOT NULL REFERENCES teams(id) ON DELETE CASCADE,
  name         text NOT NULL CHECK (length(name) BETWEEN 1 AND 255),
  latitude     double precision NOT NULL CHECK (latitude BETWEEN -90 AND 90),
  longitude    double precision NOT NULL CHECK (longitude BETWEEN -180 AND 180),
  category_id  text REFERENCES categories(id) ON DELETE SET NULL,
  -- attribute values keyed by attribute id, so a rename keeps them
  attrs        jsonb NOT NULL DEFAULT '{}',
  street       text,
  display_name text,
  city_id      uuid REFERENCES cities(id),
  country_id   uuid REFERENCES countries(id),
  zipcode_id   uuid REFERENCES zipcodes(id),
  geocoded_at  timestamptz,
  -- set on create and move; cleared by the geocoding job
  geocode_pending boolean NOT NULL DEFAULT true,
  import_id    text,
  created_at   timestamptz NOT NULL DEFAULT now(),
  updated_at   timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX pois_team ON pois (team_id, id);
CREATE INDEX pois_attrs ON pois USING gin (attrs jsonb_path_ops);
CREATE INDEX pois_category ON pois (category_id);
CREATE INDEX pois_geocode_pending ON pois (id) WHERE geocode_pending;
CREATE INDEX pois_team_country ON pois (team_id, country_id);
CREATE INDEX pois_team_city ON pois (team_id, city_id);
CREATE INDEX pois_team_zipcode ON pois (team_id, zipcode_id);
