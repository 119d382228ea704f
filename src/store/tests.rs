use super::*;

#[test]
fn user_version_encodes_the_schema_version() {
    for kind in [DbKind::Project, DbKind::Home] {
        assert_eq!(kind.expected_user_version() / 1_000_000, i64::from(kind.latest_version()));
        assert!(kind.latest_version() >= 1);
    }
}

#[test]
fn every_query_and_view_prepares_against_fresh_databases() {
    let dir = tempfile::tempdir().unwrap();
    let faults = typed_queries::check_all(dir.path()).unwrap();
    assert!(faults.is_empty(), "queries that no longer fit the schema: {faults:#?}");
    assert!(!queries::ALL.is_empty());
}

#[test]
fn the_typed_query_check_fails_on_a_missing_column() {
    let dir = tempfile::tempdir().unwrap();
    let project = open_write(DbKind::Project, &dir.path().join("p.db")).unwrap();
    let home = open_write(DbKind::Home, &dir.path().join("h.db")).unwrap();
    let bad = [
        ("project", "obs/broken", "SELECT no_such_column FROM events"),
        ("home", "cost/fine", "SELECT model FROM usage"),
    ];
    let faults = typed_queries::check_statements(project.conn(), home.conn(), &bad);
    assert_eq!(faults.len(), 1, "{faults:?}");
    assert_eq!(faults[0].name, "obs/broken");
    assert!(faults[0].error.contains("no_such_column"), "{}", faults[0].error);
}

#[test]
fn a_newer_schema_is_refused_and_not_written() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("p.db");
    drop(open_write(DbKind::Project, &path).unwrap());
    {
        let c = rusqlite::Connection::open(&path).unwrap();
        c.execute(
            "INSERT INTO refinery_schema_history (version, name, applied_on, checksum) VALUES (99, 'future', '2030-01-01T00:00:00Z', '1')",
            [],
        )
        .unwrap();
        c.execute_batch("PRAGMA user_version = 99000000").unwrap();
    }
    let before = std::fs::read(&path).unwrap();
    let err = open_write(DbKind::Project, &path).unwrap_err();
    let msg = err.to_string();
    assert!(
        msg.contains("99") && msg.contains(&DbKind::Project.latest_version().to_string()) && msg.contains("p.db"),
        "{msg}"
    );
    assert_eq!(std::fs::read(&path).unwrap(), before);
    assert!(matches!(open_read(DbKind::Project, &path), Err(StoreError::TooNew { .. })));
}

#[test]
fn random_bytes_are_not_a_database_and_stay_as_they_are() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("tlc.db");
    let junk: Vec<u8> = (0..8192u32).map(|i| (i.wrapping_mul(2654435761) >> 13) as u8).collect();
    std::fs::write(&path, &junk).unwrap();
    let err = open_write(DbKind::Home, &path).unwrap_err();
    assert!(matches!(err, StoreError::NotADatabase { .. }), "{err}");
    assert!(err.to_string().contains("tlc.db"));
    assert_eq!(std::fs::read(&path).unwrap(), junk);
}

#[test]
fn sqlite_is_built_without_memory_statistics() {
    // `.cargo/config.toml` compiles the bundled SQLite with SQLITE_DEFAULT_MEMSTATUS=0: every
    // allocation would otherwise take a global mutex to update counters nothing reads.
    let conn = rusqlite::Connection::open_in_memory().unwrap();
    let mut st = conn.prepare("PRAGMA compile_options").unwrap();
    let options: Vec<String> = st.query_map([], |r| r.get(0)).unwrap().map(Result::unwrap).collect();
    assert!(options.iter().any(|o| o == "DEFAULT_MEMSTATUS=0"), "{options:?}");
}
