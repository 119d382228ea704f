-- Subagents started and ended per session and type.
CREATE VIEW subagent_stats AS
SELECT
    session_id,
    provider,
    coalesce(json_extract(attrs, '$.agent_type'), json_extract(attrs, '$.subagent_type'), 'unknown') AS subagent_type,
    sum(kind = 'subagent.start') AS started,
    sum(kind = 'subagent.end') AS ended,
    min(ts) AS first_at,
    max(ts) AS last_at
FROM events
WHERE kind IN ('subagent.start', 'subagent.end')
GROUP BY session_id, provider, subagent_type;
