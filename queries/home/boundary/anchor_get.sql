-- One anchored value (?1 project state folder, ?2 kind, ?3 key): hash, content, seq.
SELECT hash, content, seq FROM anchors WHERE project = ?1 AND kind = ?2 AND key = ?3
