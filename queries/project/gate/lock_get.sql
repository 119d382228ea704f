-- The gate lock's holder, if any.
SELECT session_id, pid, host, acquired_at, provider FROM gate_lock WHERE id = 1
