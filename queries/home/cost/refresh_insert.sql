-- One history row per refresh attempt: outcome is 'ok', 'refused' or 'failed'.
INSERT INTO price_refreshes (plane, source, entry_count, ts, outcome, detail)
VALUES (?1, ?2, ?3, ?4, ?5, ?6)
