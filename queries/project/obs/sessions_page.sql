-- `tlc serve`'s session list: ?1 sessions, last active first, after skipping ?2, each with the
-- columns of `session_rollup` a list shows (computed the same way, for these sessions only: the
-- sessions_last_seen index picks them, the events_session index counts them).
WITH page AS (
    SELECT id, provider, session_id, first_seen, last_seen, ended_at, model
    FROM sessions
    ORDER BY last_seen DESC, session_id
    LIMIT ?1 OFFSET ?2
)
SELECT
    p.session_id,
    p.provider,
    p.first_seen AS started_at,
    p.last_seen AS updated_at,
    p.ended_at,
    p.model AS session_model,
    CAST((SELECT count(*) FROM events e WHERE e.session_id = p.session_id AND e.kind = 'prompt.submit' AND e.provider = p.provider) AS INTEGER) AS prompts,
    CAST(count(g.id) AS INTEGER) AS generations,
    CAST((SELECT count(*) FROM decisions d WHERE d.session_id = p.session_id AND d.provider = p.provider AND d.permission = 'deny') AS INTEGER) AS denials,
    CAST(total(g.input_tokens) AS INTEGER) AS input_tokens,
    CAST(total(g.output_tokens) AS INTEGER) AS output_tokens,
    CAST(total(g.cache_read_tokens) AS INTEGER) AS cache_read_tokens,
    CAST(total(g.cache_write_tokens) AS INTEGER) AS cache_write_tokens,
    CAST(sum(g.cost_usd) AS REAL) AS estimated_cost_usd,
    CAST(coalesce(sum(g.id IS NOT NULL AND g.cost_usd IS NULL), 0) > 0 AS INTEGER) AS cost_incomplete
FROM page p
LEFT JOIN events g ON g.session_id = p.session_id AND g.kind = 'generation.end' AND g.provider = p.provider
GROUP BY p.id
ORDER BY p.last_seen DESC, p.session_id
