-- One row per repository in the spool: sessions, events, prompts, failures, denials, tokens, cost.
CREATE VIEW spool_repo_rollup AS
SELECT
    repo_path,
    project,
    CAST(sum(session_id <> '') AS INTEGER) AS sessions,
    CAST(sum(events) AS INTEGER) AS events,
    CAST(sum(prompts) AS INTEGER) AS prompts,
    CAST(sum(tool_fails) AS INTEGER) AS tool_fails,
    CAST(sum(denials) AS INTEGER) AS denials,
    CAST(total(input_tokens) AS INTEGER) AS input_tokens,
    CAST(total(output_tokens) AS INTEGER) AS output_tokens,
    CAST(sum(cost_usd) AS REAL) AS cost_usd,
    CAST(min(first_at) AS TEXT) AS first_at,
    CAST(max(last_at) AS TEXT) AS last_at
FROM spool_rollup
GROUP BY repo_path, project;
