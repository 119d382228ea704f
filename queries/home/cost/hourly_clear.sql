DELETE FROM usage_hourly
