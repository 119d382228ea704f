-- Every stop outcome (allow, block, advisory, capped, paused, deferred) counted by the rule that
-- decided it.
CREATE VIEW stop_outcomes_by_rule AS
SELECT
    rule,
    outcome,
    CAST(count(*) AS INTEGER) AS stops,
    CAST(count(DISTINCT session_id) AS INTEGER) AS sessions,
    CAST(min(ts) AS TEXT) AS first_at,
    CAST(max(ts) AS TEXT) AS last_at
FROM stop_outcomes
GROUP BY rule, outcome;
