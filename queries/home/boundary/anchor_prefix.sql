-- The anchored values of a project and kind whose key starts with ?3 (a session's baselines).
SELECT key, hash, content FROM anchors WHERE project = ?1 AND kind = ?2 AND substr(key, 1, length(?3)) = ?3
