-- How many proofs `tlc obs prune` would drop at ?1.
SELECT count(*) FROM rule_proofs WHERE ts < ?1
