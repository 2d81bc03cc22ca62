-- Takes up to p_want units of a team's hourly quota in one round trip. The advisory lock serialises
-- takers of one team across every process, which is what makes the limit exact.
CREATE FUNCTION rate_take(p_team text, p_want integer, p_limit integer)
RETURNS TABLE (granted integer, used integer, oldest timestamptz, minute timestamptz)
LANGUAGE plpgsql AS $$
#variable_conflict use_column
DECLARE
  m timestamptz := date_trunc('minute', clock_timestamp());
  u integer;
  o timestamptz;
  g integer;
BEGIN
  PERFORM pg_advisory_xact_lock(hashtext('rate:' || p_team));
  -- Minutes that left the rolling hour go, so a team holds at most about 61 rows.
  DELETE FROM rate_counters c WHERE c.team_id = p_team AND c.minute <= m - interval '60 minutes';
  SELECT coalesce(sum(c.count), 0), min(c.minute) INTO u, o
    FROM rate_counters c WHERE c.team_id = p_team AND c.minute > m - interval '60 minutes' AND c.count > 0;
  g := least(p_want, greatest(p_limit - u, 0));
  IF g > 0 THEN
    INSERT INTO rate_counters AS r (team_id, minute, count) VALUES (p_team, m, g)
      ON CONFLICT (team_id, minute) DO UPDATE SET count = r.count + g;
    u := u + g;
    o := coalesce(o, m);
  END IF;
  RETURN QUERY SELECT g, u, o, m;
END $$;

-- Gives back leased units a process did not use.
CREATE FUNCTION rate_give(p_team text, p_minute timestamptz, p_units integer) RETURNS void
LANGUAGE plpgsql AS $$
BEGIN
  PERFORM pg_advisory_xact_lock(hashtext('rate:' || p_team));
  UPDATE rate_counters SET count = greatest(count - p_units, 0) WHERE team_id = p_team AND minute = p_minute;
END $$;
