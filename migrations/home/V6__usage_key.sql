-- A response's dedup key is found through `usage_key` (the key's last 16 characters and the row's id)
-- instead of a unique index on the whole key, and every insert compares the whole key itself
-- (queries/home/cost/usage_insert.sql, queries/home/spool/usage_insert.sql), so a key is still
-- stored once. The whole-key index was a quarter of the home database (67 MB of 269 MB for 900,000
-- imported responses); `usage_key` is about a third of that. Being a table rather than an index, it
-- lets a bulk import append its rows unindexed and then add all their keys in one sorted pass
-- (cost::import), instead of sweeping an index once per chunk. The tail is used rather than the
-- head because keys of one kind share their first characters (`msg_01…`, a file's path).
DROP INDEX IF EXISTS usage_dedup;

CREATE TABLE usage_key (
    tail TEXT NOT NULL,
    id   INTEGER NOT NULL,
    PRIMARY KEY (tail, id)
) WITHOUT ROWID;

INSERT INTO usage_key (tail, id) SELECT substr(dedup_key, -16), id FROM usage ORDER BY 1, 2;

CREATE TRIGGER usage_key_insert AFTER INSERT ON usage
BEGIN
    INSERT INTO usage_key (tail, id) VALUES (substr(NEW.dedup_key, -16), NEW.id);
END;

CREATE TRIGGER usage_key_delete AFTER DELETE ON usage
BEGIN
    DELETE FROM usage_key WHERE tail = substr(OLD.dedup_key, -16) AND id = OLD.id;
END;

CREATE TRIGGER usage_key_update AFTER UPDATE OF id, dedup_key ON usage
BEGIN
    DELETE FROM usage_key WHERE tail = substr(OLD.dedup_key, -16) AND id = OLD.id;
    INSERT INTO usage_key (tail, id) VALUES (substr(NEW.dedup_key, -16), NEW.id);
END;
