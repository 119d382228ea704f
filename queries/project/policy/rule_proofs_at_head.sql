-- Proofs of kind ?1 whose value contains ?2, stamped with HEAD ?3; newest first, at most ?4.
SELECT value, provider, session_id, head FROM rule_proofs
WHERE kind = ?1 AND head = ?3 AND instr(value, ?2) > 0
ORDER BY id DESC LIMIT ?4
