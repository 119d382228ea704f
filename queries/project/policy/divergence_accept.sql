-- Marks every open divergence of one source accepted (?1 source, ?2 accepted_at); the rows stay.
UPDATE policy_divergences SET accepted_at = ?2 WHERE source = ?1 AND accepted_at IS NULL
