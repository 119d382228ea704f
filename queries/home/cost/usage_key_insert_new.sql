-- The keys of rows usage_insert_new.sql stored, added by the bulk import in (tail, id) order once its
-- rows are in: one sweep over `usage_key`. The writer repeats the VALUES row.
INSERT OR ROLLBACK INTO usage_key (tail, id) VALUES (?, ?)
