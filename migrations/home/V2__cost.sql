-- Bulk transcript imports (issue 4). Two changes to `usage`, measured on 900,000 responses:
--
-- 1. The dedup key's uniqueness moves from an inline UNIQUE constraint to the named unique index
--    `usage_dedup`, so that a large import can drop `usage_dedup` and `usage_ts` inside its one
--    transaction and rebuild them by sorting at the end (random-order inserts into both indexes were
--    most of an import's time). Other writers see no difference: the index exists again at commit.
-- 2. The per-row rollup trigger skips rows of source 'transcript': their writer
--    (`cost::usage::UsageWriter`) adds their sums to `usage_rollup` in the same transaction. Rows of
--    any other source (the hook's 'spool' rows, one at a time) are still rolled up by the trigger.
--    The delete trigger is unchanged.
--
-- The table is rebuilt by copy (no ALTER TABLE RENAME, which would trip over views naming `usage`;
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

CREATE TRIGGER usage_rollup_insert AFTER INSERT ON usage
WHEN NEW.source <> 'transcript'
BEGIN
    INSERT INTO usage_rollup (day, project, session_id, model, responses, priced, input_tokens,
                              output_tokens, cache_read_tokens, cache_write_tokens, cost_usd)
    VALUES (substr(NEW.ts, 1, 10), NEW.project, NEW.session_id, NEW.model, 1,
            NEW.cost_usd IS NOT NULL, NEW.input_tokens, NEW.output_tokens, NEW.cache_read_tokens,
            NEW.cache_write_tokens, coalesce(NEW.cost_usd, 0.0))
    ON CONFLICT (day, project, session_id, model) DO UPDATE SET
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
    WHERE day = substr(OLD.ts, 1, 10) AND project = OLD.project
      AND session_id = OLD.session_id AND model = OLD.model;
    DELETE FROM usage_rollup
    WHERE day = substr(OLD.ts, 1, 10) AND project = OLD.project
      AND session_id = OLD.session_id AND model = OLD.model AND responses <= 0;
END;
