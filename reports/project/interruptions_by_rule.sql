-- Every interruption the rails made (ask or deny), per session, rule and subject. Floor denials
-- are not interruptions a posture chose: they are in `floor_denials` instead.
CREATE VIEW interruptions_by_rule AS
SELECT
    session_id,
    provider,
    rule,
    subject,
    posture,
    CAST(sum(permission = 'ask') AS INTEGER) AS asks,
    CAST(sum(permission = 'deny') AS INTEGER) AS denials,
    CAST(count(*) AS INTEGER) AS interruptions,
    CAST(min(ts) AS TEXT) AS first_at,
    CAST(max(ts) AS TEXT) AS last_at
FROM decisions
WHERE permission <> 'allow'
  AND rule NOT IN ('outside-project-destruction', 'unprovable-destruction', 'secret-access', 'history-rewrite',
                   'machine-control', 'unprovable-execution', 'policy-surface-write')
GROUP BY session_id, provider, rule, subject, posture;
