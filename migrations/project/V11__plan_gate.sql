-- The plan gate and untrusted content (issue 34).

-- The paths a turn declared with `HARNESS_PLAN:` (JSON array, capped), when it was last declared,
-- how many paths the declarations named before the cap, and the `HARNESS_PLAN_DEVIATION:` lines
-- of the plan's window (JSON array of {path, reason, at}; a refused one has no reason).
ALTER TABLE turns ADD COLUMN plan TEXT;
ALTER TABLE turns ADD COLUMN plan_at TEXT;
ALTER TABLE turns ADD COLUMN plan_named INTEGER NOT NULL DEFAULT 0;
ALTER TABLE turns ADD COLUMN deviations TEXT NOT NULL DEFAULT '[]';

-- What a session read from outside the repository: whether the current turn was framed already
-- (cleared at each prompt), and in `untrustedContent.mode = "enforce"` the last 64,000
-- characters of it, whitespace collapsed, with the source of each part (JSON array of
-- {source, bytes}, oldest first).
CREATE TABLE untrusted_content (
    provider   TEXT NOT NULL,
    session_id TEXT NOT NULL,
    framed     INTEGER NOT NULL DEFAULT 0,
    content    TEXT NOT NULL DEFAULT '',
    sources    TEXT NOT NULL DEFAULT '[]',
    updated_at TEXT NOT NULL,
    PRIMARY KEY (provider, session_id)
);
