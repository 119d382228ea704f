-- The home database: what tlc keeps for the whole machine.
-- Timestamps are UTC RFC 3339 text with milliseconds (2026-11-29T13:56:42.123Z) everywhere.

CREATE TABLE tlc_meta (
    key   TEXT PRIMARY KEY,
    value TEXT NOT NULL
);

-- The price catalog: planes `override`, one per provider (`claude`, `cursor`, ...) and `litellm`.
-- Prices are USD per 1,000,000 tokens.
CREATE TABLE prices (
    plane                   TEXT NOT NULL,
    model_key               TEXT NOT NULL,
    provider                TEXT,
    display_name            TEXT,
    input                   REAL,
    output                  REAL,
    cache_read              REAL,
    cache_write             REAL,
    input_above_200k        REAL,
    output_above_200k       REAL,
    cache_read_above_200k   REAL,
    cache_write_above_200k  REAL,
    context_window          INTEGER,
    pool                    TEXT,
    billing                 TEXT,
    PRIMARY KEY (plane, model_key)
) WITHOUT ROWID;

CREATE TABLE price_refreshes (
    id          INTEGER PRIMARY KEY,
    plane       TEXT NOT NULL,
    source      TEXT NOT NULL,
    entry_count INTEGER NOT NULL,
    ts          TEXT NOT NULL,
    outcome     TEXT NOT NULL,
    detail      TEXT
);
CREATE INDEX price_refreshes_plane ON price_refreshes (plane, id);

-- One row per API response (generation), from every repository: imported transcripts,
-- spooled hook records and imported JSONL. `dedup_key` makes every import idempotent.
CREATE TABLE usage (
    id                 INTEGER PRIMARY KEY,
    dedup_key          TEXT NOT NULL UNIQUE,
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
CREATE INDEX usage_ts ON usage (ts);

-- Per day, project, session and model sums of `usage`, kept by triggers so that cost
-- reports over millions of responses read thousands of rows.
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
    PRIMARY KEY (day, project, session_id, model)
) WITHOUT ROWID;

CREATE TRIGGER usage_rollup_insert AFTER INSERT ON usage
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

-- How far each transcript file has been imported.
CREATE TABLE transcript_files (
    path            TEXT PRIMARY KEY,
    project         TEXT NOT NULL,
    file_id         TEXT,
    head_hash       TEXT,
    offset          INTEGER NOT NULL DEFAULT 0,
    malformed_lines INTEGER NOT NULL DEFAULT 0,
    generations     INTEGER NOT NULL DEFAULT 0,
    imported_at     TEXT NOT NULL
);

-- The cross-repository spool: every record a project wrote, tagged with where it came from.
CREATE TABLE spool (
    id                 INTEGER PRIMARY KEY,
    ts                 TEXT NOT NULL,
    repo_path          TEXT NOT NULL,
    project            TEXT NOT NULL,
    stream             TEXT NOT NULL,
    kind               TEXT,
    provider           TEXT,
    session_id         TEXT,
    model              TEXT,
    duration_ms        INTEGER,
    input_tokens       INTEGER,
    output_tokens      INTEGER,
    cache_read_tokens  INTEGER,
    cache_write_tokens INTEGER,
    cost_usd           REAL,
    record             TEXT NOT NULL,
    dedup_key          TEXT UNIQUE
);
CREATE INDEX spool_ts ON spool (ts);
CREATE INDEX spool_project ON spool (project, session_id);

-- Global lessons (the machine tier).
CREATE TABLE lessons (
    id          TEXT PRIMARY KEY,
    instruction TEXT NOT NULL,
    gate        TEXT,
    tokens      TEXT NOT NULL DEFAULT '[]',
    avoid       TEXT,
    ref         TEXT,
    until       TEXT,
    source      TEXT NOT NULL,
    category    TEXT,
    status      TEXT NOT NULL DEFAULT 'active',
    weight      REAL NOT NULL DEFAULT 1.0,
    hits        INTEGER NOT NULL DEFAULT 0,
    created_at  TEXT NOT NULL,
    updated_at  TEXT NOT NULL
);
