-- One row per session: activity, decisions, gates, tokens and estimated cost.
-- The counting subqueries name their own table's columns unqualified (they bind to it before the
-- outer `s`): every connection parses this view when it opens the database, a hook's included.
CREATE VIEW session_rollup AS
SELECT
    s.session_id,
    s.provider,
    s.first_seen AS started_at,
    s.last_seen AS updated_at,
    s.ended_at,
    s.model AS session_model,
    CAST((SELECT group_concat(model, ',') FROM (
        SELECT DISTINCT model FROM events
        WHERE session_id = s.session_id AND provider = s.provider AND model IS NOT NULL
        UNION SELECT s.model WHERE s.model IS NOT NULL)) AS TEXT) AS models,
    CAST((SELECT count(*) FROM events WHERE session_id = s.session_id AND kind = 'prompt.submit' AND provider = s.provider) AS INTEGER) AS prompts,
    CAST((SELECT count(*) FROM events WHERE session_id = s.session_id AND kind = 'agent.response' AND provider = s.provider
        AND json_extract(attrs, '$.continues_response') IS NOT 1) AS INTEGER) AS responses,
    CAST((SELECT count(*) FROM events WHERE session_id = s.session_id AND kind = 'agent.thought' AND provider = s.provider) AS INTEGER) AS thoughts,
    CAST((SELECT count(*) FROM events WHERE session_id = s.session_id AND kind = 'compact' AND provider = s.provider) AS INTEGER) AS compactions,
    CAST((SELECT count(*) FROM events WHERE session_id = s.session_id AND kind = 'generation.end' AND provider = s.provider) AS INTEGER) AS generations,
    CAST((SELECT count(*) FROM decisions WHERE session_id = s.session_id AND provider = s.provider AND permission = 'deny') AS INTEGER) AS denials,
    CAST((SELECT count(*) FROM decisions WHERE session_id = s.session_id AND provider = s.provider AND subject = 'shell' AND permission = 'allow') AS INTEGER) AS shell_allow,
    CAST((SELECT count(*) FROM decisions WHERE session_id = s.session_id AND provider = s.provider AND subject = 'shell' AND permission = 'ask') AS INTEGER) AS shell_ask,
    CAST((SELECT count(*) FROM decisions WHERE session_id = s.session_id AND provider = s.provider AND subject = 'shell' AND permission = 'deny') AS INTEGER) AS shell_deny,
    CAST((SELECT count(*) FROM gate_runs WHERE session_id = s.session_id AND verdict = 'pass') AS INTEGER) AS gates_pass,
    CAST((SELECT count(*) FROM gate_runs WHERE session_id = s.session_id AND verdict IN ('fail', 'config')) AS INTEGER) AS gates_fail,
    CAST((SELECT count(*) FROM gate_runs WHERE session_id = s.session_id) AS INTEGER) AS gate_runs,
    CAST((SELECT count(*) FROM gate_runs WHERE session_id = s.session_id AND reused = 1) AS INTEGER) AS gate_reused,
    CAST((SELECT CAST(total(duration_ms) AS INTEGER) FROM gate_runs WHERE session_id = s.session_id) AS INTEGER) AS gate_total_ms,
    CAST((SELECT coalesce(max(duration_ms), 0) FROM gate_runs WHERE session_id = s.session_id) AS INTEGER) AS gate_worst_ms,
    t.input_tokens,
    t.output_tokens,
    t.cache_read_tokens,
    t.cache_write_tokens,
    t.cache_write_1h_tokens,
    t.estimated_cost_usd,
    t.cost_incomplete,
    CAST((SELECT count(*) > 0 FROM events WHERE session_id = s.session_id AND kind = 'cost.session_alert' AND provider = s.provider) AS INTEGER) AS cost_alert_sent,
    CAST((SELECT count(*) FROM gate_runs WHERE session_id = s.session_id AND verdict = 'skipped') AS INTEGER) AS gates_deferred,
    CAST((SELECT json_extract(attrs, '$.context_tokens') FROM events WHERE session_id = s.session_id AND kind = 'session.start' AND provider = s.provider
        AND json_extract(attrs, '$.context_tokens') IS NOT NULL ORDER BY id DESC LIMIT 1) AS INTEGER) AS context_tokens
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
