-- The highest usage id: the bulk import numbers its rows on from here, under its write lock.
SELECT coalesce(max(id), 0) FROM usage
