-- Every stop outcome (allow, block, advisory, capped, paused, deferred) counted by the rule that
-- decided it.
CREATE VIEW stop_outcomes_by_rule AS
SELECT
    rule,
    outcome,
    count(*) AS stops,
    count(DISTINCT session_id) AS sessions,
    min(ts) AS first_at,
    max(ts) AS last_at
FROM stop_outcomes
GROUP BY rule, outcome;
