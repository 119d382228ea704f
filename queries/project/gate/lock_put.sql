-- Takes (or reclaims) the gate lock.
INSERT OR REPLACE INTO gate_lock (id, session_id, pid, host, acquired_at, provider, pid_start) VALUES (1, ?1, ?2, ?3, ?4, ?5, ?6)
