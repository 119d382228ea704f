-- One proof an operator rule can name, as tlc observed it, stamped with HEAD (`policy::rules::ProofStore`).
INSERT INTO rule_proofs (ts, provider, session_id, kind, value, head) VALUES (?1, ?2, ?3, ?4, ?5, ?6)
