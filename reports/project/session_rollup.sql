-- One row per session: activity, decisions, gates, tokens and estimated cost.
CREATE VIEW session_rollup AS
SELECT
    s.session_id,
    s.provider,
    s.first_seen AS started_at,
    s.last_seen AS updated_at,
    s.ended_at,
    s.model AS session_model,
    CAST((SELECT group_concat(model, ',') FROM (
        SELECT DISTINCT e.model FROM events e
        WHERE e.session_id = s.session_id AND e.provider = s.provider AND e.model IS NOT NULL
        UNION SELECT s.model WHERE s.model IS NOT NULL)) AS TEXT) AS models,
    CAST((SELECT count(*) FROM events e WHERE e.session_id = s.session_id AND e.kind = 'prompt.submit' AND e.provider = s.provider) AS INTEGER) AS prompts,
    CAST((SELECT count(*) FROM events e WHERE e.session_id = s.session_id AND e.kind = 'agent.response' AND e.provider = s.provider
        AND json_extract(e.attrs, '$.continues_response') IS NOT 1) AS INTEGER) AS responses,
    CAST((SELECT count(*) FROM events e WHERE e.session_id = s.session_id AND e.kind = 'agent.thought' AND e.provider = s.provider) AS INTEGER) AS thoughts,
    CAST((SELECT count(*) FROM events e WHERE e.session_id = s.session_id AND e.kind = 'compact' AND e.provider = s.provider) AS INTEGER) AS compactions,
    CAST((SELECT count(*) FROM events e WHERE e.session_id = s.session_id AND e.kind = 'generation.end' AND e.provider = s.provider) AS INTEGER) AS generations,
    CAST((SELECT count(*) FROM decisions d WHERE d.session_id = s.session_id AND d.provider = s.provider AND d.permission = 'deny') AS INTEGER) AS denials,
    CAST((SELECT count(*) FROM decisions d WHERE d.session_id = s.session_id AND d.provider = s.provider AND d.subject = 'shell' AND d.permission = 'allow') AS INTEGER) AS shell_allow,
    CAST((SELECT count(*) FROM decisions d WHERE d.session_id = s.session_id AND d.provider = s.provider AND d.subject = 'shell' AND d.permission = 'ask') AS INTEGER) AS shell_ask,
    CAST((SELECT count(*) FROM decisions d WHERE d.session_id = s.session_id AND d.provider = s.provider AND d.subject = 'shell' AND d.permission = 'deny') AS INTEGER) AS shell_deny,
    CAST((SELECT count(*) FROM gate_runs g WHERE g.session_id = s.session_id AND g.verdict = 'pass') AS INTEGER) AS gates_pass,
    CAST((SELECT count(*) FROM gate_runs g WHERE g.session_id = s.session_id AND g.verdict IN ('fail', 'config')) AS INTEGER) AS gates_fail,
    CAST((SELECT count(*) FROM gate_runs g WHERE g.session_id = s.session_id) AS INTEGER) AS gate_runs,
    CAST((SELECT count(*) FROM gate_runs g WHERE g.session_id = s.session_id AND g.reused = 1) AS INTEGER) AS gate_reused,
    CAST((SELECT CAST(total(g.duration_ms) AS INTEGER) FROM gate_runs g WHERE g.session_id = s.session_id) AS INTEGER) AS gate_total_ms,
    CAST((SELECT coalesce(max(g.duration_ms), 0) FROM gate_runs g WHERE g.session_id = s.session_id) AS INTEGER) AS gate_worst_ms,
    t.input_tokens,
    t.output_tokens,
    t.cache_read_tokens,
    t.cache_write_tokens,
    t.cache_write_1h_tokens,
    t.estimated_cost_usd,
    t.cost_incomplete,
    CAST((SELECT count(*) > 0 FROM events e WHERE e.session_id = s.session_id AND e.kind = 'cost.session_alert' AND e.provider = s.provider) AS INTEGER) AS cost_alert_sent,
    CAST((SELECT count(*) FROM gate_runs g WHERE g.session_id = s.session_id AND g.verdict = 'skipped') AS INTEGER) AS gates_deferred
FROM sessions s
JOIN (
    SELECT s2.provider, s2.session_id,
           CAST(total(g.input_tokens) AS INTEGER) AS input_tokens,
           CAST(total(g.output_tokens) AS INTEGER) AS output_tokens,
           CAST(total(g.cache_read_tokens) AS INTEGER) AS cache_read_tokens,
           CAST(total(g.cache_write_tokens) AS INTEGER) AS cache_write_tokens,
           CAST(total(g.cache_write_1h_tokens) AS INTEGER) AS cache_write_1h_tokens,
           CAST(sum(g.cost_usd) AS REAL) AS estimated_cost_usd,
           CAST(coalesce(sum(g.id IS NOT NULL AND g.cost_usd IS NULL), 0) > 0 AS INTEGER) AS cost_incomplete
    FROM sessions s2
    LEFT JOIN events g ON g.session_id = s2.session_id AND g.kind = 'generation.end' AND g.provider = s2.provider
    GROUP BY s2.provider, s2.session_id
) t ON t.provider = s.provider AND t.session_id = s.session_id;
