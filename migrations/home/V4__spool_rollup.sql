-- Per repository and session sums of the spool, kept by triggers, so that `tlc obs report
-- --all-repos` over millions of spool rows reads one row per session instead of parsing every
-- record. `tlc obs prune` rebuilds it after dropping spool rows.

CREATE TABLE spool_rollup (
    repo_path     TEXT NOT NULL,
    project       TEXT NOT NULL,
    session_id    TEXT NOT NULL,
    events        INTEGER NOT NULL,
    prompts       INTEGER NOT NULL,
    tool_fails    INTEGER NOT NULL,
    denials       INTEGER NOT NULL,
    input_tokens  INTEGER NOT NULL,
    output_tokens INTEGER NOT NULL,
    cost_usd      REAL,
    first_at      TEXT NOT NULL,
    last_at       TEXT NOT NULL,
    PRIMARY KEY (repo_path, project, session_id)
) WITHOUT ROWID;

INSERT INTO spool_rollup
SELECT repo_path, project, coalesce(session_id, ''), count(*), sum(kind = 'prompt.submit'), sum(kind = 'tool.fail'),
       sum(CASE WHEN stream = 'signal' AND kind IN ('shell.start', 'mcp.start', 'tool.start', 'file.read')
                THEN coalesce(json_extract(record, '$.attrs.decision') = 'deny', 0) ELSE 0 END),
       coalesce(sum(input_tokens), 0), coalesce(sum(output_tokens), 0), sum(cost_usd), min(ts), max(ts)
FROM spool
GROUP BY repo_path, project, coalesce(session_id, '');

CREATE TRIGGER spool_rollup_insert AFTER INSERT ON spool
BEGIN
    INSERT INTO spool_rollup (repo_path, project, session_id, events, prompts, tool_fails, denials, input_tokens,
                              output_tokens, cost_usd, first_at, last_at)
    VALUES (NEW.repo_path, NEW.project, coalesce(NEW.session_id, ''), 1, NEW.kind = 'prompt.submit', NEW.kind = 'tool.fail',
            CASE WHEN NEW.stream = 'signal' AND NEW.kind IN ('shell.start', 'mcp.start', 'tool.start', 'file.read')
                 THEN coalesce(json_extract(NEW.record, '$.attrs.decision') = 'deny', 0) ELSE 0 END,
            coalesce(NEW.input_tokens, 0), coalesce(NEW.output_tokens, 0), NEW.cost_usd, NEW.ts, NEW.ts)
    ON CONFLICT (repo_path, project, session_id) DO UPDATE SET
        events        = events + 1,
        prompts       = prompts + excluded.prompts,
        tool_fails    = tool_fails + excluded.tool_fails,
        denials       = denials + excluded.denials,
        input_tokens  = input_tokens + excluded.input_tokens,
        output_tokens = output_tokens + excluded.output_tokens,
        cost_usd      = CASE WHEN excluded.cost_usd IS NULL THEN cost_usd ELSE coalesce(cost_usd, 0.0) + excluded.cost_usd END,
        first_at      = min(first_at, excluded.first_at),
        last_at       = max(last_at, excluded.last_at);
END;
