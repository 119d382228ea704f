-- When the price catalog was last refreshed (any outcome); null when it never was.
SELECT max(ts) FROM price_refreshes
