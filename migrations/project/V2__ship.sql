-- Shipping the record to an OpenTelemetry collector (issue 20, `tlc obs ship`).
--
-- `ship_cursor` holds, per collector URL and per stream (one table read for one OTLP signal),
-- the id of the last row the collector acknowledged, and what happened to the stream's last
-- requests there (for `tlc obs ship --status`). `last_id` is advanced only in the transaction
-- that follows an acknowledgement, so a send that fails, times out or is killed leaves it where it
-- was and the next run sends that batch again (OTLP's at-least-once). Row ids only grow (INTEGER
-- PRIMARY KEY; rows are deleted only by `tlc obs prune`, which pulls a cursor back to the highest id
-- a table kept, so that reused ids are not skipped).
--
-- One table, WITHOUT ROWID and with a short definition, because every hook connection parses the
-- whole schema when it opens: each table added here costs every hook a little.
--
-- The database's own random id goes into `tlc_meta` (key `instance`): it names the records off the
-- machine (`tlc.record.uid`), so that a backend can tell a record sent twice from two records.

INSERT OR IGNORE INTO tlc_meta (key, value) VALUES ('instance', lower(hex(randomblob(16))));

CREATE TABLE ship_cursor (
    target TEXT NOT NULL,
    stream TEXT NOT NULL,
    last_id INTEGER NOT NULL DEFAULT 0,
    sent_at TEXT,
    sent_records INTEGER,
    error_at TEXT,
    error TEXT,
    partial_at TEXT,
    partial TEXT,
    rejected INTEGER NOT NULL DEFAULT 0,
    PRIMARY KEY (target, stream)
) WITHOUT ROWID;
