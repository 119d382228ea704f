-- The gate lock's holder, if any.
SELECT session_id, pid, host, acquired_at, provider, pid_start FROM gate_lock WHERE id = 1
