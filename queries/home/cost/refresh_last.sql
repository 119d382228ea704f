-- The latest refresh attempt of each plane, whatever its outcome.
SELECT plane, source, entry_count, ts, outcome, detail
FROM price_refreshes
WHERE id IN (SELECT max(id) FROM price_refreshes GROUP BY plane)
ORDER BY plane
