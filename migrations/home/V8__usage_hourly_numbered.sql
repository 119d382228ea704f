-- `usage_hourly` keyed by numbers (issue 13): the import's hourly sums cost a tenth of it (issue 16's
-- 222,546 rows for the bench's 900,000 responses, 30 MB keyed by four texts). Keyed by numbers and
-- holding each row's first and last response as milliseconds into its hour, the same rows are 11.5 MB
-- and take about 40% less time to write.
--
-- 1. `usage_names`: each project and model `usage_hourly` sums, numbered once.
-- 2. `usage_hourly` again, from `usage`:
--    - `hour`: a time of the stored form (`2026-11-20T09:14:07.123Z`, minutes and seconds below 60)
--      is summed under its UTC hour as the number its digits spell (2026112009), `first_ms` and
--      `last_ms` holding the first and last response as milliseconds into that hour (847123);
--    - any other time (none that tlc or Claude Code writes) under its first 13 characters as text,
--      `first_ms` and `last_ms` holding the times' text. SQLite orders every number before every text.
--    - `at_hour`, the sums and what the rows mean are as in V7; the view `cost_hourly_rows` shows
--      the rows with their texts as before (`reports/home/cost_hourly_rows.sql`).
-- 3. The insert and delete triggers of `usage` again (as in V7 for the other rollups).
--
-- The stored form's key, for a time `ts`, is written out where it is needed below (SQLite has no
-- function a trigger could call); `src/cost/usage.rs` (`stored_form`) and
-- `queries/home/cost/hourly_rebuild.sql` compute the same.

CREATE TABLE usage_names (
    id   INTEGER PRIMARY KEY,
    name TEXT NOT NULL UNIQUE
);

DROP TABLE usage_hourly;

-- `hour`, `first_ms` and `last_ms` have no declared type, so that each keeps the number or the text
-- it is given.
CREATE TABLE usage_hourly (
    hour                  NOT NULL,
    at_hour               INTEGER NOT NULL,
    project_id            INTEGER NOT NULL,
    model_id              INTEGER NOT NULL,
    responses             INTEGER NOT NULL,
    priced                INTEGER NOT NULL,
    input_tokens          INTEGER NOT NULL,
    output_tokens         INTEGER NOT NULL,
    cache_read_tokens     INTEGER NOT NULL,
    cache_write_tokens    INTEGER NOT NULL,
    cache_write_1h_tokens INTEGER NOT NULL,
    cost_usd              REAL NOT NULL,
    first_ms              NOT NULL,
    last_ms               NOT NULL,
    PRIMARY KEY (hour, at_hour, project_id, model_id)
) WITHOUT ROWID;

INSERT INTO usage_names (name) SELECT project FROM usage UNION SELECT model FROM usage;

INSERT INTO usage_hourly (hour, at_hour, project_id, model_id, responses, priced, input_tokens, output_tokens,
                          cache_read_tokens, cache_write_tokens, cache_write_1h_tokens, cost_usd, first_ms, last_ms)
SELECT k.hour, k.at_hour, p.id, m.id, count(*), count(k.cost_usd), sum(k.input_tokens), sum(k.output_tokens),
       sum(k.cache_read_tokens), sum(k.cache_write_tokens), sum(k.cache_write_1h_tokens),
       coalesce(sum(k.cost_usd), 0.0), min(k.ms), max(k.ms)
FROM (SELECT CASE WHEN stored THEN CAST(substr(ts, 1, 4) || substr(ts, 6, 2) || substr(ts, 9, 2) || substr(ts, 12, 2) AS INTEGER)
                  ELSE substr(ts, 1, 13) END AS hour,
             substr(ts, 15) = '00:00.000Z' AS at_hour,
             CASE WHEN stored THEN substr(ts, 15, 2) * 60000 + substr(ts, 18, 2) * 1000 + substr(ts, 21, 3)
                  ELSE ts END AS ms,
             project, model, cost_usd, input_tokens, output_tokens, cache_read_tokens, cache_write_tokens,
             cache_write_1h_tokens
      FROM (SELECT *, length(CAST(ts AS BLOB)) = 24 AND ts GLOB '[0-9][0-9][0-9][0-9]-[0-9][0-9]-[0-9][0-9]T[0-9][0-9]:[0-5][0-9]:[0-5][0-9].[0-9][0-9][0-9]Z' AS stored FROM usage)) AS k
JOIN usage_names AS p ON p.name = k.project
JOIN usage_names AS m ON m.name = k.model
GROUP BY 1, 2, 3, 4;

DROP TRIGGER IF EXISTS usage_rollup_insert;
CREATE TRIGGER usage_rollup_insert AFTER INSERT ON usage
WHEN NEW.source <> 'transcript'
BEGIN
    INSERT INTO usage_rollup (day, project, session_id, model, responses, priced, input_tokens,
                              output_tokens, cache_read_tokens, cache_write_tokens, cost_usd,
                              cache_write_1h_tokens, last_ts)
    VALUES (substr(NEW.ts, 1, 10), NEW.project, NEW.session_id, NEW.model, 1,
            NEW.cost_usd IS NOT NULL, NEW.input_tokens, NEW.output_tokens, NEW.cache_read_tokens,
            NEW.cache_write_tokens, coalesce(NEW.cost_usd, 0.0), NEW.cache_write_1h_tokens, NEW.ts)
    ON CONFLICT (session_id, day, project, model) DO UPDATE SET
        responses             = responses + 1,
        priced                = priced + (NEW.cost_usd IS NOT NULL),
        input_tokens          = input_tokens + NEW.input_tokens,
        output_tokens         = output_tokens + NEW.output_tokens,
        cache_read_tokens     = cache_read_tokens + NEW.cache_read_tokens,
        cache_write_tokens    = cache_write_tokens + NEW.cache_write_tokens,
        cache_write_1h_tokens = cache_write_1h_tokens + NEW.cache_write_1h_tokens,
        cost_usd              = cost_usd + coalesce(NEW.cost_usd, 0.0),
        last_ts               = max(last_ts, NEW.ts);
    INSERT INTO usage_daily (day, project, model, responses, priced, input_tokens,
                             output_tokens, cache_read_tokens, cache_write_tokens, cost_usd,
                             cache_write_1h_tokens)
    VALUES (substr(NEW.ts, 1, 10), NEW.project, NEW.model, 1,
            NEW.cost_usd IS NOT NULL, NEW.input_tokens, NEW.output_tokens, NEW.cache_read_tokens,
            NEW.cache_write_tokens, coalesce(NEW.cost_usd, 0.0), NEW.cache_write_1h_tokens)
    ON CONFLICT (day, project, model) DO UPDATE SET
        responses             = responses + 1,
        priced                = priced + (NEW.cost_usd IS NOT NULL),
        input_tokens          = input_tokens + NEW.input_tokens,
        output_tokens         = output_tokens + NEW.output_tokens,
        cache_read_tokens     = cache_read_tokens + NEW.cache_read_tokens,
        cache_write_tokens    = cache_write_tokens + NEW.cache_write_tokens,
        cache_write_1h_tokens = cache_write_1h_tokens + NEW.cache_write_1h_tokens,
        cost_usd              = cost_usd + coalesce(NEW.cost_usd, 0.0);
    -- An upsert clause, not OR IGNORE: in a trigger an OR clause gives way to the outer statement's
    -- (an INSERT OR ROLLBACK into usage would fail on a name already numbered, OR REPLACE renumber it).
    INSERT INTO usage_names (name) VALUES (NEW.project), (NEW.model) ON CONFLICT (name) DO NOTHING;
    INSERT INTO usage_hourly (hour, at_hour, project_id, model_id, responses, priced, input_tokens,
                              output_tokens, cache_read_tokens, cache_write_tokens,
                              cache_write_1h_tokens, cost_usd, first_ms, last_ms)
    SELECT k.hour, substr(NEW.ts, 15) = '00:00.000Z', (SELECT id FROM usage_names WHERE name = NEW.project),
           (SELECT id FROM usage_names WHERE name = NEW.model), 1, NEW.cost_usd IS NOT NULL, NEW.input_tokens,
           NEW.output_tokens, NEW.cache_read_tokens, NEW.cache_write_tokens, NEW.cache_write_1h_tokens,
           coalesce(NEW.cost_usd, 0.0), k.ms, k.ms
    FROM (SELECT CASE WHEN stored THEN CAST(substr(NEW.ts, 1, 4) || substr(NEW.ts, 6, 2) || substr(NEW.ts, 9, 2) || substr(NEW.ts, 12, 2) AS INTEGER)
                     ELSE substr(NEW.ts, 1, 13) END AS hour,
                CASE WHEN stored THEN substr(NEW.ts, 15, 2) * 60000 + substr(NEW.ts, 18, 2) * 1000 + substr(NEW.ts, 21, 3)
                     ELSE NEW.ts END AS ms
         FROM (SELECT length(CAST(NEW.ts AS BLOB)) = 24 AND NEW.ts GLOB '[0-9][0-9][0-9][0-9]-[0-9][0-9]-[0-9][0-9]T[0-9][0-9]:[0-5][0-9]:[0-5][0-9].[0-9][0-9][0-9]Z' AS stored)) AS k
    WHERE true
    ON CONFLICT (hour, at_hour, project_id, model_id) DO UPDATE SET
        responses             = responses + 1,
        priced                = priced + (NEW.cost_usd IS NOT NULL),
        input_tokens          = input_tokens + NEW.input_tokens,
        output_tokens         = output_tokens + NEW.output_tokens,
        cache_read_tokens     = cache_read_tokens + NEW.cache_read_tokens,
        cache_write_tokens    = cache_write_tokens + NEW.cache_write_tokens,
        cache_write_1h_tokens = cache_write_1h_tokens + NEW.cache_write_1h_tokens,
        cost_usd              = cost_usd + coalesce(NEW.cost_usd, 0.0),
        first_ms              = min(first_ms, excluded.first_ms),
        last_ms               = max(last_ms, excluded.last_ms);
END;

-- Deletes take a response's sums back out; first and last times stay as they were (a bound).
DROP TRIGGER IF EXISTS usage_rollup_delete;
CREATE TRIGGER usage_rollup_delete AFTER DELETE ON usage
BEGIN
    UPDATE usage_rollup SET
        responses             = responses - 1,
        priced                = priced - (OLD.cost_usd IS NOT NULL),
        input_tokens          = input_tokens - OLD.input_tokens,
        output_tokens         = output_tokens - OLD.output_tokens,
        cache_read_tokens     = cache_read_tokens - OLD.cache_read_tokens,
        cache_write_tokens    = cache_write_tokens - OLD.cache_write_tokens,
        cache_write_1h_tokens = cache_write_1h_tokens - OLD.cache_write_1h_tokens,
        cost_usd              = cost_usd - coalesce(OLD.cost_usd, 0.0)
    WHERE session_id = OLD.session_id AND day = substr(OLD.ts, 1, 10) AND project = OLD.project
      AND model = OLD.model;
    DELETE FROM usage_rollup
    WHERE session_id = OLD.session_id AND day = substr(OLD.ts, 1, 10) AND project = OLD.project
      AND model = OLD.model AND responses <= 0;
    UPDATE usage_daily SET
        responses             = responses - 1,
        priced                = priced - (OLD.cost_usd IS NOT NULL),
        input_tokens          = input_tokens - OLD.input_tokens,
        output_tokens         = output_tokens - OLD.output_tokens,
        cache_read_tokens     = cache_read_tokens - OLD.cache_read_tokens,
        cache_write_tokens    = cache_write_tokens - OLD.cache_write_tokens,
        cache_write_1h_tokens = cache_write_1h_tokens - OLD.cache_write_1h_tokens,
        cost_usd              = cost_usd - coalesce(OLD.cost_usd, 0.0)
    WHERE day = substr(OLD.ts, 1, 10) AND project = OLD.project AND model = OLD.model;
    DELETE FROM usage_daily
    WHERE day = substr(OLD.ts, 1, 10) AND project = OLD.project AND model = OLD.model AND responses <= 0;
    UPDATE usage_hourly SET
        responses             = responses - 1,
        priced                = priced - (OLD.cost_usd IS NOT NULL),
        input_tokens          = input_tokens - OLD.input_tokens,
        output_tokens         = output_tokens - OLD.output_tokens,
        cache_read_tokens     = cache_read_tokens - OLD.cache_read_tokens,
        cache_write_tokens    = cache_write_tokens - OLD.cache_write_tokens,
        cache_write_1h_tokens = cache_write_1h_tokens - OLD.cache_write_1h_tokens,
        cost_usd              = cost_usd - coalesce(OLD.cost_usd, 0.0)
    WHERE (hour, at_hour, project_id, model_id) =
          (SELECT k.hour, substr(OLD.ts, 15) = '00:00.000Z', (SELECT id FROM usage_names WHERE name = OLD.project),
                  (SELECT id FROM usage_names WHERE name = OLD.model)
           FROM (SELECT CASE WHEN stored THEN CAST(substr(OLD.ts, 1, 4) || substr(OLD.ts, 6, 2) || substr(OLD.ts, 9, 2) || substr(OLD.ts, 12, 2) AS INTEGER)
                     ELSE substr(OLD.ts, 1, 13) END AS hour,
                CASE WHEN stored THEN substr(OLD.ts, 15, 2) * 60000 + substr(OLD.ts, 18, 2) * 1000 + substr(OLD.ts, 21, 3)
                     ELSE OLD.ts END AS ms
         FROM (SELECT length(CAST(OLD.ts AS BLOB)) = 24 AND OLD.ts GLOB '[0-9][0-9][0-9][0-9]-[0-9][0-9]-[0-9][0-9]T[0-9][0-9]:[0-5][0-9]:[0-5][0-9].[0-9][0-9][0-9]Z' AS stored)) AS k);
    DELETE FROM usage_hourly
    WHERE (hour, at_hour, project_id, model_id) =
          (SELECT k.hour, substr(OLD.ts, 15) = '00:00.000Z', (SELECT id FROM usage_names WHERE name = OLD.project),
                  (SELECT id FROM usage_names WHERE name = OLD.model)
           FROM (SELECT CASE WHEN stored THEN CAST(substr(OLD.ts, 1, 4) || substr(OLD.ts, 6, 2) || substr(OLD.ts, 9, 2) || substr(OLD.ts, 12, 2) AS INTEGER)
                     ELSE substr(OLD.ts, 1, 13) END AS hour,
                CASE WHEN stored THEN substr(OLD.ts, 15, 2) * 60000 + substr(OLD.ts, 18, 2) * 1000 + substr(OLD.ts, 21, 3)
                     ELSE OLD.ts END AS ms
         FROM (SELECT length(CAST(OLD.ts AS BLOB)) = 24 AND OLD.ts GLOB '[0-9][0-9][0-9][0-9]-[0-9][0-9]-[0-9][0-9]T[0-9][0-9]:[0-5][0-9]:[0-5][0-9].[0-9][0-9][0-9]Z' AS stored)) AS k)
      AND responses <= 0;
END;
