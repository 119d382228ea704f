-- Proofs observed before ?1 (`tlc obs prune`).
DELETE FROM rule_proofs WHERE ts < ?1
