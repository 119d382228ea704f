DELETE FROM usage_daily
