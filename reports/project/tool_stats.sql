-- Per session and tool: calls, successful ends, failures and the time between start and end.
CREATE VIEW tool_stats AS
SELECT
    session_id,
    provider,
    tool,
    sum(phase = 'start') AS calls,
    sum(phase = 'end') AS ok,
    sum(phase = 'fail') AS fail,
    coalesce(sum(duration_ms), 0) AS total_ms,
    max(duration_ms) AS worst_ms,
    min(ts) AS first_at,
    max(ts) AS last_at
FROM events
WHERE tool IS NOT NULL AND phase IS NOT NULL
GROUP BY session_id, provider, tool;
