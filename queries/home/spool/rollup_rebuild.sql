INSERT INTO spool_rollup
SELECT repo_path, project, coalesce(session_id, ''), count(*), sum(kind = 'prompt.submit'), sum(kind = 'tool.fail'),
       sum(CASE WHEN stream = 'signal' AND kind IN ('shell.start', 'mcp.start', 'tool.start', 'file.read')
                THEN coalesce(json_extract(record, '$.attrs.decision') = 'deny', 0) ELSE 0 END),
       CAST(total(input_tokens) AS INTEGER), CAST(total(output_tokens) AS INTEGER), sum(cost_usd), min(ts), max(ts)
FROM spool
GROUP BY repo_path, project, coalesce(session_id, '')
