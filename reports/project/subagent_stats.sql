-- Subagents started and ended per session and type, and the tool calls made inside them (tool
-- starts whose payload named the subagent: `parent_span_id` is its id).
CREATE VIEW subagent_stats AS
SELECT
    session_id,
    provider,
    CAST(coalesce(json_extract(attrs, '$.agent_type'), json_extract(attrs, '$.subagent_type'), 'unknown') AS TEXT) AS subagent_type,
    CAST(sum(kind = 'subagent.start') AS INTEGER) AS started,
    CAST(sum(kind = 'subagent.end') AS INTEGER) AS ended,
    CAST(sum(phase IS 'start') AS INTEGER) AS tool_calls,
    CAST(min(ts) AS TEXT) AS first_at,
    CAST(max(ts) AS TEXT) AS last_at
FROM events
WHERE kind IN ('subagent.start', 'subagent.end') OR (phase = 'start' AND parent_span_id IS NOT NULL)
GROUP BY session_id, provider, subagent_type;
