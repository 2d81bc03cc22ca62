-- PostgreSQL raises "value out of range: underflow" when float arithmetic rounds a non-zero result to
-- zero, so a coordinate such as 5e-324 (a subnormal a client may send, or a CSV cell with 330 zeros)
-- made every distance query that met it fail: the request that sent it, and afterwards every distance
-- list of its team. Differences and latitudes closer to zero than 1e-100 degrees (1e-95 m) are taken
-- as zero; every other input gives the same result as before, bit for bit, so the in-process distance
-- (src/pois/team-positions.ts) still agrees with it. Still a single SQL expression: it is inlined.
CREATE OR REPLACE FUNCTION great_circle_m(lat1 double precision, lon1 double precision, lat2 double precision, lon2 double precision)
RETURNS double precision LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
  SELECT 12742017.6 * asin(least(1.0, sqrt(
    power(sin(radians(CASE WHEN abs(lat2 - lat1) < 1e-100 THEN 0 ELSE lat2 - lat1 END) / 2), 2)
    + cos(radians(CASE WHEN abs(lat1) < 1e-100 THEN 0 ELSE lat1 END))
      * cos(radians(CASE WHEN abs(lat2) < 1e-100 THEN 0 ELSE lat2 END))
      * power(sin(radians(CASE WHEN abs(lon2 - lon1) < 1e-100 THEN 0 ELSE lon2 - lon1 END) / 2), 2))))
$$;
