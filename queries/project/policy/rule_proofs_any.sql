-- Proofs of kind ?1 whose value contains ?2, anywhere and at any HEAD (what a denial says ran
-- outside its window); newest first, at most ?3.
SELECT value, provider, session_id, head FROM rule_proofs
WHERE kind = ?1 AND instr(value, ?2) > 0
ORDER BY id DESC LIMIT ?3
