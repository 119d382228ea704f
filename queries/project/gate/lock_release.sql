-- Releases the gate lock if this process holds it (?1 pid, ?2 host).
DELETE FROM gate_lock WHERE id = 1 AND pid = ?1 AND host = ?2
