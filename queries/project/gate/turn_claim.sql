-- A ship claim seen in the agent's response (Cursor's afterAgentResponse).
UPDATE turns SET claim = ?3, claim_at = ?4, updated_at = ?4 WHERE provider = ?1 AND session_id = ?2
