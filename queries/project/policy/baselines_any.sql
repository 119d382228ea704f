-- Whether any session has been baselined yet (`tlc status`: "not yet baselined" before the first).
SELECT EXISTS (SELECT 1 FROM policy_baselines)
