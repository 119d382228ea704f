-- Agent packages: stables' fetch state, the pin store's index, install records, the
-- resolution history, and which config files reference which pins (for prune).
-- The trust itself ([stable.*]) lives in the machine tier config, never here.

CREATE TABLE agent_stables (
    name        TEXT PRIMARY KEY,
    remote      TEXT NOT NULL,
    added_at    TEXT NOT NULL,
    last_fetch  TEXT,
    head        TEXT,
    fetch_error TEXT
);

-- One row per content-addressed pin under $TLC_HOME/agents/installed/<stable>/<package>/<sha>/.
CREATE TABLE agent_pins (
    stable       TEXT NOT NULL,
    package      TEXT NOT NULL,
    sha          TEXT NOT NULL,
    manifest     TEXT NOT NULL,
    installed_at TEXT NOT NULL,
    PRIMARY KEY (stable, package, sha)
) WITHOUT ROWID;

CREATE TABLE agent_pin_files (
    stable  TEXT NOT NULL,
    package TEXT NOT NULL,
    sha     TEXT NOT NULL,
    path    TEXT NOT NULL,
    sha256  TEXT NOT NULL,
    size    INTEGER NOT NULL,
    PRIMARY KEY (stable, package, sha, path),
    FOREIGN KEY (stable, package, sha) REFERENCES agent_pins (stable, package, sha) ON DELETE CASCADE
) WITHOUT ROWID;

-- Every install, upgrade and rollback: what was asked, what was pinned, what the scan said and
-- what the operator typed. JSON columns hold arrays.
CREATE TABLE agent_installs (
    id               INTEGER PRIMARY KEY,
    ts               TEXT NOT NULL,
    action           TEXT NOT NULL,
    stable           TEXT NOT NULL,
    package          TEXT NOT NULL,
    harness_name     TEXT NOT NULL,
    config_file      TEXT NOT NULL,
    version_asked    TEXT,
    sha              TEXT NOT NULL,
    previous_sha     TEXT,
    scan_version     TEXT NOT NULL,
    findings         TEXT NOT NULL DEFAULT '[]',
    forced           INTEGER NOT NULL DEFAULT 0,
    confirmations    TEXT NOT NULL DEFAULT '[]',
    defaults_written TEXT NOT NULL DEFAULT '{}',
    defaults_skipped TEXT NOT NULL DEFAULT '{}'
);
CREATE INDEX agent_installs_name ON agent_installs (harness_name, id);

CREATE TABLE agent_resolutions (
    id          INTEGER PRIMARY KEY,
    ts          TEXT NOT NULL,
    config_file TEXT NOT NULL,
    table_name  TEXT NOT NULL,
    source      TEXT NOT NULL,
    outcome     TEXT NOT NULL,
    detail      TEXT
);
CREATE INDEX agent_resolutions_table ON agent_resolutions (table_name, id);

-- Config files known to name a pin; prune re-reads each before it deletes anything.
CREATE TABLE agent_references (
    config_file TEXT NOT NULL,
    table_name  TEXT NOT NULL,
    source      TEXT NOT NULL,
    seen_at     TEXT NOT NULL,
    PRIMARY KEY (config_file, table_name)
) WITHOUT ROWID;
