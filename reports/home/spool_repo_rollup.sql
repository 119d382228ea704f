-- One row per repository in the spool: sessions, events, prompts, failures, denials, tokens, cost.
CREATE VIEW spool_repo_rollup AS
SELECT
    repo_path,
    project,
    count(DISTINCT session_id) AS sessions,
    count(*) AS events,
    sum(kind = 'prompt.submit') AS prompts,
    sum(kind = 'tool.fail') AS tool_fails,
    sum(json_extract(record, '$.attrs.decision') = 'deny') AS denials,
    coalesce(sum(input_tokens), 0) AS input_tokens,
    coalesce(sum(output_tokens), 0) AS output_tokens,
    sum(cost_usd) AS cost_usd,
    min(ts) AS first_at,
    max(ts) AS last_at
FROM spool
GROUP BY repo_path, project;
