-- Gate runs per UTC day and gate: how many ran, passed, failed (fail or config), reused an earlier
-- verdict, and their total and worst time. `tlc serve`'s pass rate over time reads it.
CREATE VIEW gate_runs_by_day AS
SELECT
    CAST(substr(started_at, 1, 10) AS TEXT) AS day,
    gate,
    CAST(count(*) AS INTEGER) AS runs,
    CAST(sum(verdict = 'pass') AS INTEGER) AS passed,
    CAST(sum(verdict IN ('fail', 'config')) AS INTEGER) AS failed,
    CAST(sum(reused) AS INTEGER) AS reused,
    CAST(total(duration_ms) AS INTEGER) AS total_ms,
    CAST(coalesce(max(duration_ms), 0) AS INTEGER) AS worst_ms
FROM gate_runs
GROUP BY day, gate;
