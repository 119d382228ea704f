-- Shipping the record to an OpenTelemetry collector (issue 20, `tlc obs ship`).
--
-- `ship_cursor` holds, per collector and per stream (one table read for one OTLP signal), the id
-- of the last row the collector acknowledged. It is advanced only in the transaction that
-- follows an acknowledgement, so a send that fails, times out or is killed leaves it where it
-- was and the next run sends that batch again (OTLP's at-least-once). Row ids only grow here
-- (INTEGER PRIMARY KEY, rows deleted only by `tlc obs prune`, which pulls a cursor back to the
-- highest id it kept so that reused ids are not skipped).
--
-- `ship_target` is the state of each collector for `tlc obs ship --status`: the last success,
-- the last error and the last partial success (records the collector rejected for good).
--
-- `ship_source` is this database's own random id: it names the records off the machine
-- (`tlc.record.uid`), so that a backend can tell a record sent twice from two records.

CREATE TABLE ship_source (
    id       INTEGER PRIMARY KEY CHECK (id = 1),
    instance TEXT NOT NULL
);
INSERT INTO ship_source (id, instance) VALUES (1, lower(hex(randomblob(16))));

CREATE TABLE ship_cursor (
    target     TEXT NOT NULL,
    stream     TEXT NOT NULL,
    last_id    INTEGER NOT NULL,
    updated_at TEXT NOT NULL,
    PRIMARY KEY (target, stream)
);

CREATE TABLE ship_target (
    target               TEXT PRIMARY KEY,
    last_success_at      TEXT,
    last_success_records INTEGER,
    last_error_at        TEXT,
    last_error           TEXT,
    last_partial_at      TEXT,
    last_partial         TEXT,
    rejected_total       INTEGER NOT NULL DEFAULT 0
);
