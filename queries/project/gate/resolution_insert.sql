-- The files that changed between a failing run (?4) and the passing run after it (?5).
INSERT INTO gate_resolutions (fingerprint, gate, files, failing_run, passing_run, resolved_at) VALUES (?1, ?2, ?3, ?4, ?5, ?6)
