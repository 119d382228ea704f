-- Per session and gate: runs, reused verdicts, verdicts, total and worst time.
CREATE VIEW gate_time AS
SELECT
    session_id,
    gate,
    count(*) AS runs,
    sum(reused) AS reused,
    sum(verdict = 'pass') AS passed,
    sum(verdict IN ('fail', 'config')) AS failed,
    coalesce(sum(duration_ms), 0) AS total_ms,
    coalesce(max(duration_ms), 0) AS worst_ms,
    min(started_at) AS first_at,
    max(started_at) AS last_at
FROM gate_runs
GROUP BY session_id, gate;
