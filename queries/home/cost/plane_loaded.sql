-- Whether a plane was ever refreshed successfully (the override plane is read from its file until then).
SELECT EXISTS (SELECT 1 FROM price_refreshes WHERE plane = ?1 AND outcome = 'ok')
