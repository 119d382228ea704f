-- Every interruption the hooks made (ask or deny), per session, rule and subject.
CREATE VIEW interruptions_by_rule AS
SELECT
    session_id,
    provider,
    rule,
    subject,
    posture,
    sum(permission = 'ask') AS asks,
    sum(permission = 'deny') AS denials,
    count(*) AS interruptions,
    min(ts) AS first_at,
    max(ts) AS last_at
FROM decisions
WHERE permission <> 'allow'
GROUP BY session_id, provider, rule, subject, posture;
