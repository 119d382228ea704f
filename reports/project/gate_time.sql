-- Per session and gate: runs, reused verdicts, verdicts, total and worst time. A deferred run (the gate
-- lock was held by another session) is a run, neither passed nor failed, and took no time.
CREATE VIEW gate_time AS
SELECT
    session_id,
    gate,
    CAST(count(*) AS INTEGER) AS runs,
    CAST(sum(reused) AS INTEGER) AS reused,
    CAST(sum(verdict = 'pass') AS INTEGER) AS passed,
    CAST(sum(verdict IN ('fail', 'config')) AS INTEGER) AS failed,
    CAST(total(duration_ms) AS INTEGER) AS total_ms,
    CAST(coalesce(max(duration_ms), 0) AS INTEGER) AS worst_ms,
    CAST(min(started_at) AS TEXT) AS first_at,
    CAST(max(started_at) AS TEXT) AS last_at,
    CAST(sum(verdict = 'skipped') AS INTEGER) AS deferred
FROM gate_runs
GROUP BY session_id, gate;
