-- When the price catalog was last refreshed, and how many refreshes there were.
SELECT max(ts), count(*) FROM price_refreshes
