-- The `spans` stream: model responses, finished tool calls, subagent ends and session ends after
-- row ?1, oldest first, at most ?2. A subagent end carries its start time; a session end the
-- session's first sight.
SELECT e.id, e.ts, e.provider, e.kind, e.session_id, e.span_id, e.parent_span_id, e.model, e.tool, e.phase,
       e.duration_ms, e.input_tokens, e.output_tokens, e.cache_read_tokens, e.cache_write_tokens,
       e.cost_usd, e.cost_source, e.dedup_key, e.attrs,
       CASE e.kind
           WHEN 'session.end' THEN s.first_seen
           WHEN 'subagent.end' THEN (
               SELECT min(x.ts) FROM events x
               WHERE x.session_id = e.session_id AND x.kind = 'subagent.start' AND x.provider = e.provider
                 AND x.span_id = e.span_id)
       END AS started_at
FROM events e
LEFT JOIN sessions s ON s.provider = e.provider AND s.session_id = e.session_id
WHERE e.id > ?1
  AND (e.kind IN ('generation.end', 'subagent.end', 'session.end') OR e.phase IN ('end', 'fail'))
ORDER BY e.id
LIMIT ?2
