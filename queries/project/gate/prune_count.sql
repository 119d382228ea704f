SELECT count(*) FROM gate_runs WHERE started_at < ?1
