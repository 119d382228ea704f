-- One row per repository in the spool: sessions, events, prompts, failures, denials, tokens, cost.
CREATE VIEW spool_repo_rollup AS
SELECT
    repo_path,
    project,
    sum(session_id <> '') AS sessions,
    sum(events) AS events,
    sum(prompts) AS prompts,
    sum(tool_fails) AS tool_fails,
    sum(denials) AS denials,
    sum(input_tokens) AS input_tokens,
    sum(output_tokens) AS output_tokens,
    sum(cost_usd) AS cost_usd,
    min(first_at) AS first_at,
    max(last_at) AS last_at
FROM spool_rollup
GROUP BY repo_path, project;
