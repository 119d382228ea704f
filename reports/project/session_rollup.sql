-- One row per session: activity, decisions, gates, tokens and estimated cost.
CREATE VIEW session_rollup AS
SELECT
    s.session_id,
    s.provider,
    s.first_seen AS started_at,
    s.last_seen AS updated_at,
    s.ended_at,
    s.model AS session_model,
    (SELECT group_concat(model, ',') FROM (
        SELECT DISTINCT e.model FROM events e
        WHERE e.session_id = s.session_id AND e.provider = s.provider AND e.model IS NOT NULL
        UNION SELECT s.model WHERE s.model IS NOT NULL)) AS models,
    (SELECT count(*) FROM events e WHERE e.session_id = s.session_id AND e.kind = 'prompt.submit' AND e.provider = s.provider) AS prompts,
    (SELECT count(*) FROM events e WHERE e.session_id = s.session_id AND e.kind = 'agent.response' AND e.provider = s.provider
        AND json_extract(e.attrs, '$.continues_response') IS NOT 1) AS responses,
    (SELECT count(*) FROM events e WHERE e.session_id = s.session_id AND e.kind = 'agent.thought' AND e.provider = s.provider) AS thoughts,
    (SELECT count(*) FROM events e WHERE e.session_id = s.session_id AND e.kind = 'compact' AND e.provider = s.provider) AS compactions,
    (SELECT count(*) FROM events e WHERE e.session_id = s.session_id AND e.kind = 'generation.end' AND e.provider = s.provider) AS generations,
    (SELECT count(*) FROM decisions d WHERE d.session_id = s.session_id AND d.provider = s.provider AND d.permission = 'deny') AS denials,
    (SELECT count(*) FROM decisions d WHERE d.session_id = s.session_id AND d.provider = s.provider AND d.subject = 'shell' AND d.permission = 'allow') AS shell_allow,
    (SELECT count(*) FROM decisions d WHERE d.session_id = s.session_id AND d.provider = s.provider AND d.subject = 'shell' AND d.permission = 'ask') AS shell_ask,
    (SELECT count(*) FROM decisions d WHERE d.session_id = s.session_id AND d.provider = s.provider AND d.subject = 'shell' AND d.permission = 'deny') AS shell_deny,
    (SELECT count(*) FROM gate_runs g WHERE g.session_id = s.session_id AND g.verdict = 'pass') AS gates_pass,
    (SELECT count(*) FROM gate_runs g WHERE g.session_id = s.session_id AND g.verdict IN ('fail', 'config')) AS gates_fail,
    (SELECT count(*) FROM gate_runs g WHERE g.session_id = s.session_id) AS gate_runs,
    (SELECT count(*) FROM gate_runs g WHERE g.session_id = s.session_id AND g.reused = 1) AS gate_reused,
    (SELECT coalesce(sum(g.duration_ms), 0) FROM gate_runs g WHERE g.session_id = s.session_id) AS gate_total_ms,
    (SELECT coalesce(max(g.duration_ms), 0) FROM gate_runs g WHERE g.session_id = s.session_id) AS gate_worst_ms,
    t.input_tokens,
    t.output_tokens,
    t.cache_read_tokens,
    t.cache_write_tokens,
    t.cache_write_1h_tokens,
    t.estimated_cost_usd,
    t.cost_incomplete,
    (SELECT count(*) > 0 FROM events e WHERE e.session_id = s.session_id AND e.kind = 'cost.session_alert' AND e.provider = s.provider) AS cost_alert_sent
FROM sessions s
JOIN (
    SELECT s2.provider, s2.session_id,
           coalesce(sum(g.input_tokens), 0) AS input_tokens,
           coalesce(sum(g.output_tokens), 0) AS output_tokens,
           coalesce(sum(g.cache_read_tokens), 0) AS cache_read_tokens,
           coalesce(sum(g.cache_write_tokens), 0) AS cache_write_tokens,
           coalesce(sum(g.cache_write_1h_tokens), 0) AS cache_write_1h_tokens,
           sum(g.cost_usd) AS estimated_cost_usd,
           coalesce(sum(g.id IS NOT NULL AND g.cost_usd IS NULL), 0) > 0 AS cost_incomplete
    FROM sessions s2
    LEFT JOIN events g ON g.session_id = s2.session_id AND g.kind = 'generation.end' AND g.provider = s2.provider
    GROUP BY s2.provider, s2.session_id
) t ON t.provider = s.provider AND t.session_id = s.session_id;
