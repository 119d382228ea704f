-- This database's random id, made by its migration (V2__ship).
SELECT value FROM tlc_meta WHERE key = 'instance'
