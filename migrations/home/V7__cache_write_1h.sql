-- Cost to the bill (issue 16).
--
-- 1. The 1-hour cache writes: Claude Code writes its prompt cache with the 1-hour TTL, billed at 2x
--    the input rate rather than the 5-minute 1.25x. `cache_write_tokens` stays every write;
--    `cache_write_1h_tokens` is the part written for an hour. Rows stored before this migration
--    have 0 there (they count as 5-minute) until `tlc obs import transcripts --rescan` re-reads
--    their files. The rollups and the spool carry it too; the price planes keep a 1-hour rate and
--    its long-context rate.
-- 2. `usage_rollup.last_ts`: the latest response of each (session, day, project, model), for the
--    by-session report's last activity.
-- 3. `usage_hourly`: sums per UTC hour (`YYYY-MM-DDTHH`), project and model, with the first and last
--    response time of each. `at_hour` is 1 for responses stamped exactly on the hour
--    (`HH:00:00.000`) and 0 for the rest of the hour: the 5-hour billing blocks start at an hour
--    and a response exactly 5 hours after a block's start still belongs to it, so those few
--    responses are kept apart; with them apart no block boundary falls inside a row, and reports
--    grouped by a local day (whole-hour offsets) are exact. What `obs cost --by block`, `--timezone`
--    and `tlc statusline` read: a few rows per active hour instead of one per response.
--
-- The rollups are rebuilt from `usage` (their new columns cannot be filled row by row cheaply).

ALTER TABLE usage ADD COLUMN cache_write_1h_tokens INTEGER NOT NULL DEFAULT 0;
ALTER TABLE usage_rollup ADD COLUMN cache_write_1h_tokens INTEGER NOT NULL DEFAULT 0;
ALTER TABLE usage_rollup ADD COLUMN last_ts TEXT NOT NULL DEFAULT '';
ALTER TABLE usage_daily ADD COLUMN cache_write_1h_tokens INTEGER NOT NULL DEFAULT 0;
ALTER TABLE spool ADD COLUMN cache_write_1h_tokens INTEGER;
ALTER TABLE prices ADD COLUMN cache_write_1h REAL;
ALTER TABLE prices ADD COLUMN cache_write_1h_above_200k REAL;

CREATE TABLE usage_hourly (
    hour                  TEXT NOT NULL,
    at_hour               INTEGER NOT NULL,
    project               TEXT NOT NULL,
    model                 TEXT NOT NULL,
    responses             INTEGER NOT NULL,
    priced                INTEGER NOT NULL,
    input_tokens          INTEGER NOT NULL,
    output_tokens         INTEGER NOT NULL,
    cache_read_tokens     INTEGER NOT NULL,
    cache_write_tokens    INTEGER NOT NULL,
    cache_write_1h_tokens INTEGER NOT NULL,
    cost_usd              REAL NOT NULL,
    first_ts              TEXT NOT NULL,
    last_ts               TEXT NOT NULL,
    PRIMARY KEY (hour, at_hour, project, model)
) WITHOUT ROWID;

DELETE FROM usage_rollup;
INSERT INTO usage_rollup (day, project, session_id, model, responses, priced, input_tokens, output_tokens,
                          cache_read_tokens, cache_write_tokens, cost_usd, cache_write_1h_tokens, last_ts)
SELECT substr(ts, 1, 10), project, session_id, model, count(*), count(cost_usd), sum(input_tokens),
       sum(output_tokens), sum(cache_read_tokens), sum(cache_write_tokens), coalesce(sum(cost_usd), 0.0),
       sum(cache_write_1h_tokens), max(ts)
FROM usage
GROUP BY 1, 2, 3, 4;

INSERT INTO usage_hourly (hour, at_hour, project, model, responses, priced, input_tokens, output_tokens,
                          cache_read_tokens, cache_write_tokens, cache_write_1h_tokens, cost_usd, first_ts, last_ts)
SELECT substr(ts, 1, 13), substr(ts, 15) = '00:00.000Z', project, model, count(*), count(cost_usd),
       sum(input_tokens), sum(output_tokens), sum(cache_read_tokens), sum(cache_write_tokens),
       sum(cache_write_1h_tokens), coalesce(sum(cost_usd), 0.0), min(ts), max(ts)
FROM usage
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
    INSERT INTO usage_hourly (hour, at_hour, project, model, responses, priced, input_tokens,
                              output_tokens, cache_read_tokens, cache_write_tokens,
                              cache_write_1h_tokens, cost_usd, first_ts, last_ts)
    VALUES (substr(NEW.ts, 1, 13), substr(NEW.ts, 15) = '00:00.000Z', NEW.project, NEW.model, 1,
            NEW.cost_usd IS NOT NULL, NEW.input_tokens, NEW.output_tokens, NEW.cache_read_tokens,
            NEW.cache_write_tokens, NEW.cache_write_1h_tokens, coalesce(NEW.cost_usd, 0.0), NEW.ts, NEW.ts)
    ON CONFLICT (hour, at_hour, project, model) DO UPDATE SET
        responses             = responses + 1,
        priced                = priced + (NEW.cost_usd IS NOT NULL),
        input_tokens          = input_tokens + NEW.input_tokens,
        output_tokens         = output_tokens + NEW.output_tokens,
        cache_read_tokens     = cache_read_tokens + NEW.cache_read_tokens,
        cache_write_tokens    = cache_write_tokens + NEW.cache_write_tokens,
        cache_write_1h_tokens = cache_write_1h_tokens + NEW.cache_write_1h_tokens,
        cost_usd              = cost_usd + coalesce(NEW.cost_usd, 0.0),
        first_ts              = min(first_ts, NEW.ts),
        last_ts               = max(last_ts, NEW.ts);
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
    WHERE hour = substr(OLD.ts, 1, 13) AND at_hour = (substr(OLD.ts, 15) = '00:00.000Z')
      AND project = OLD.project AND model = OLD.model;
    DELETE FROM usage_hourly
    WHERE hour = substr(OLD.ts, 1, 13) AND at_hour = (substr(OLD.ts, 15) = '00:00.000Z')
      AND project = OLD.project AND model = OLD.model AND responses <= 0;
END;
