-- The latest successful refresh of each plane.
SELECT plane, source, entry_count, ts, detail
FROM price_refreshes
WHERE id IN (SELECT max(id) FROM price_refreshes WHERE outcome = 'ok' GROUP BY plane)
ORDER BY plane
