-- Floor denials counted by rule and subject: how often each floor rule refused, in how many
-- sessions, first and last.
CREATE VIEW floor_denials_by_rule AS
SELECT
    rule,
    subject,
    CAST(count(*) AS INTEGER) AS denials,
    CAST(count(DISTINCT session_id) AS INTEGER) AS sessions,
    CAST(min(ts) AS TEXT) AS first_at,
    CAST(max(ts) AS TEXT) AS last_at
FROM floor_denials
GROUP BY rule, subject;
