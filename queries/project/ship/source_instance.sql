-- This database's random id (ship_source, one row).
SELECT instance FROM ship_source WHERE id = 1
