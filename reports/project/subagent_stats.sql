-- Subagents started and ended per session and type, and the tool calls made inside them (tool
-- starts whose payload named the subagent: `parent_span_id` is its id).
CREATE VIEW subagent_stats AS
SELECT
    session_id,
    provider,
    coalesce(json_extract(attrs, '$.agent_type'), json_extract(attrs, '$.subagent_type'), 'unknown') AS subagent_type,
    sum(kind = 'subagent.start') AS started,
    sum(kind = 'subagent.end') AS ended,
    sum(phase IS 'start') AS tool_calls,
    min(ts) AS first_at,
    max(ts) AS last_at
FROM events
WHERE kind IN ('subagent.start', 'subagent.end') OR (phase = 'start' AND parent_span_id IS NOT NULL)
GROUP BY session_id, provider, subagent_type;
