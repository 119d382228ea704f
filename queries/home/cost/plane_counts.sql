-- Entries stored per plane.
SELECT plane, count(*) FROM prices GROUP BY plane ORDER BY plane
