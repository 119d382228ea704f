DELETE FROM policy_baselines WHERE recorded_at < ?1
