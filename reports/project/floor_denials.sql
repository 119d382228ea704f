-- Every denial by a floor rule: kept apart from the interruption rate (`rm -rf /` never reaches a
-- policy layer, so it says nothing about how the posture is calibrated).
CREATE VIEW floor_denials AS
SELECT id, ts, provider, session_id, subject, posture, rule, reason, detail
FROM decisions
WHERE permission = 'deny'
  AND rule IN ('outside-project-destruction', 'unprovable-destruction', 'secret-access', 'history-rewrite',
               'machine-control', 'unprovable-execution', 'policy-surface-write');
