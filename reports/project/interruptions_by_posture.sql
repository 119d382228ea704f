-- The interruptions of `interruptions_by_rule` summed over sessions: per rule, subject and the
-- posture that decided, how many asks and denials, in how many sessions, first and last.
CREATE VIEW interruptions_by_posture AS
SELECT
    rule,
    subject,
    posture,
    CAST(sum(asks) AS INTEGER) AS asks,
    CAST(sum(denials) AS INTEGER) AS denials,
    CAST(sum(interruptions) AS INTEGER) AS interruptions,
    CAST(count(DISTINCT session_id) AS INTEGER) AS sessions,
    CAST(min(first_at) AS TEXT) AS first_at,
    CAST(max(last_at) AS TEXT) AS last_at
FROM interruptions_by_rule
GROUP BY rule, subject, posture;
