-- Refresh history, newest first.
SELECT id, plane, source, entry_count, ts, outcome, detail
FROM price_refreshes
ORDER BY id DESC
LIMIT ?1
