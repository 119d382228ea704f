-- Proofs of kind ?1 whose value contains ?2, observed in the session (?3, ?4); newest first, at most ?5.
SELECT value, provider, session_id, head FROM rule_proofs
WHERE kind = ?1 AND provider = ?3 AND session_id = ?4 AND instr(value, ?2) > 0
ORDER BY id DESC LIMIT ?5
