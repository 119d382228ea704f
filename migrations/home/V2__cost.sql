-- Bulk transcript imports and fast cost reports (issue 4). Measured on 900,000 responses:
--
-- 1. The dedup key's uniqueness moves from an inline UNIQUE constraint to the named unique index
--    `usage_dedup`, so that a large import can drop `usage_dedup` and `usage_ts` inside its one
--    transaction and rebuild them by sorting at the end (random-order inserts into both indexes were
--    most of an import's time). Other writers see no difference: the index exists again at commit.
-- 2. The per-row rollup trigger skips rows of source 'transcript': their writer
--    (`cost::usage::UsageWriter`) adds their sums in the same transaction (the trigger cost about 40%
--    of an import). Rows of any other source (the hook's 'spool' rows, one at a time) are still
--    rolled up by the trigger. Deletes are rolled back out by the delete trigger, whatever the source.
-- 3. `usage_rollup` is rebuilt with the session first in its key, so `obs cost --by session` reads it
--    in order instead of sorting it; and `usage_daily` (day, project, model) is added, so reports by
--    day, week, month, model and project read a few thousand rows rather than one per session.
--    Both are kept by the same writers and triggers.
--
-- The tables are rebuilt by copy (no ALTER TABLE RENAME, which would trip over views naming them;
-- views are re-created from reports/ after every migration anyway).

CREATE TABLE usage_v1_copy AS SELECT * FROM usage;
DROP TABLE usage;

CREATE TABLE usage (
    id                 INTEGER PRIMARY KEY,
    dedup_key          TEXT NOT NULL,
    source             TEXT NOT NULL,
    project            TEXT NOT NULL DEFAULT '',
    repo_path          TEXT,
    session_id         TEXT NOT NULL DEFAULT '',
    provider           TEXT,
    ts                 TEXT NOT NULL,
    model              TEXT NOT NULL DEFAULT '',
    input_tokens       INTEGER NOT NULL DEFAULT 0,
    output_tokens      INTEGER NOT NULL DEFAULT 0,
    cache_read_tokens  INTEGER NOT NULL DEFAULT 0,
    cache_write_tokens INTEGER NOT NULL DEFAULT 0,
    cost_usd           REAL,
    cost_source        TEXT,
    cost_pool          TEXT
);
INSERT INTO usage SELECT * FROM usage_v1_copy;
DROP TABLE usage_v1_copy;
CREATE UNIQUE INDEX usage_dedup ON usage (dedup_key);
CREATE INDEX usage_ts ON usage (ts);

CREATE TABLE usage_rollup_v1_copy AS SELECT * FROM usage_rollup;
DROP TABLE usage_rollup;
CREATE TABLE usage_rollup (
    day                TEXT NOT NULL,
    project            TEXT NOT NULL,
    session_id         TEXT NOT NULL,
    model              TEXT NOT NULL,
    responses          INTEGER NOT NULL,
    priced             INTEGER NOT NULL,
    input_tokens       INTEGER NOT NULL,
    output_tokens      INTEGER NOT NULL,
    cache_read_tokens  INTEGER NOT NULL,
    cache_write_tokens INTEGER NOT NULL,
    cost_usd           REAL NOT NULL,
    PRIMARY KEY (session_id, day, project, model)
) WITHOUT ROWID;
INSERT INTO usage_rollup SELECT * FROM usage_rollup_v1_copy;
DROP TABLE usage_rollup_v1_copy;

CREATE TABLE usage_daily (
    day                TEXT NOT NULL,
    project            TEXT NOT NULL,
    model              TEXT NOT NULL,
    responses          INTEGER NOT NULL,
    priced             INTEGER NOT NULL,
    input_tokens       INTEGER NOT NULL,
    output_tokens      INTEGER NOT NULL,
    cache_read_tokens  INTEGER NOT NULL,
    cache_write_tokens INTEGER NOT NULL,
    cost_usd           REAL NOT NULL,
    PRIMARY KEY (day, project, model)
) WITHOUT ROWID;
INSERT INTO usage_daily
SELECT day, project, model, sum(responses), sum(priced), sum(input_tokens), sum(output_tokens),
       sum(cache_read_tokens), sum(cache_write_tokens), sum(cost_usd)
FROM usage_rollup
GROUP BY day, project, model;

CREATE TRIGGER usage_rollup_insert AFTER INSERT ON usage
WHEN NEW.source <> 'transcript'
BEGIN
    INSERT INTO usage_rollup (day, project, session_id, model, responses, priced, input_tokens,
                              output_tokens, cache_read_tokens, cache_write_tokens, cost_usd)
    VALUES (substr(NEW.ts, 1, 10), NEW.project, NEW.session_id, NEW.model, 1,
            NEW.cost_usd IS NOT NULL, NEW.input_tokens, NEW.output_tokens, NEW.cache_read_tokens,
            NEW.cache_write_tokens, coalesce(NEW.cost_usd, 0.0))
    ON CONFLICT (session_id, day, project, model) DO UPDATE SET
        responses          = responses + 1,
        priced             = priced + (NEW.cost_usd IS NOT NULL),
        input_tokens       = input_tokens + NEW.input_tokens,
        output_tokens      = output_tokens + NEW.output_tokens,
        cache_read_tokens  = cache_read_tokens + NEW.cache_read_tokens,
        cache_write_tokens = cache_write_tokens + NEW.cache_write_tokens,
        cost_usd           = cost_usd + coalesce(NEW.cost_usd, 0.0);
    INSERT INTO usage_daily (day, project, model, responses, priced, input_tokens,
                             output_tokens, cache_read_tokens, cache_write_tokens, cost_usd)
    VALUES (substr(NEW.ts, 1, 10), NEW.project, NEW.model, 1,
            NEW.cost_usd IS NOT NULL, NEW.input_tokens, NEW.output_tokens, NEW.cache_read_tokens,
            NEW.cache_write_tokens, coalesce(NEW.cost_usd, 0.0))
    ON CONFLICT (day, project, model) DO UPDATE SET
        responses          = responses + 1,
        priced             = priced + (NEW.cost_usd IS NOT NULL),
        input_tokens       = input_tokens + NEW.input_tokens,
        output_tokens      = output_tokens + NEW.output_tokens,
        cache_read_tokens  = cache_read_tokens + NEW.cache_read_tokens,
        cache_write_tokens = cache_write_tokens + NEW.cache_write_tokens,
        cost_usd           = cost_usd + coalesce(NEW.cost_usd, 0.0);
END;

CREATE TRIGGER usage_rollup_delete AFTER DELETE ON usage
BEGIN
    UPDATE usage_rollup SET
        responses          = responses - 1,
        priced             = priced - (OLD.cost_usd IS NOT NULL),
        input_tokens       = input_tokens - OLD.input_tokens,
        output_tokens      = output_tokens - OLD.output_tokens,
        cache_read_tokens  = cache_read_tokens - OLD.cache_read_tokens,
        cache_write_tokens = cache_write_tokens - OLD.cache_write_tokens,
        cost_usd           = cost_usd - coalesce(OLD.cost_usd, 0.0)
    WHERE session_id = OLD.session_id AND day = substr(OLD.ts, 1, 10) AND project = OLD.project
      AND model = OLD.model;
    DELETE FROM usage_rollup
    WHERE session_id = OLD.session_id AND day = substr(OLD.ts, 1, 10) AND project = OLD.project
      AND model = OLD.model AND responses <= 0;
    UPDATE usage_daily SET
        responses          = responses - 1,
        priced             = priced - (OLD.cost_usd IS NOT NULL),
        input_tokens       = input_tokens - OLD.input_tokens,
        output_tokens      = output_tokens - OLD.output_tokens,
        cache_read_tokens  = cache_read_tokens - OLD.cache_read_tokens,
        cache_write_tokens = cache_write_tokens - OLD.cache_write_tokens,
        cost_usd           = cost_usd - coalesce(OLD.cost_usd, 0.0)
    WHERE day = substr(OLD.ts, 1, 10) AND project = OLD.project AND model = OLD.model;
    DELETE FROM usage_daily
    WHERE day = substr(OLD.ts, 1, 10) AND project = OLD.project AND model = OLD.model AND responses <= 0;
END;
