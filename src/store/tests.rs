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

/// Tools that read `pragma table_info` (DuckDB's sqlite scanner, pandas, BI tools) type a view's
/// columns by their declared type: every column of every view declares one (a plain column
/// carries its table's; an expression or an aggregate is wrapped in CAST).
#[test]
fn every_view_column_declares_its_type() {
    let mut untyped = Vec::new();
    for kind in [DbKind::Project, DbKind::Home] {
        let conn = in_memory(kind).unwrap();
        for (view, _) in kind.views() {
            let mut st = conn
                .prepare(&format!("SELECT name, type FROM pragma_table_info('{view}')"))
                .unwrap();
            let cols: Vec<(String, String)> = st
                .query_map([], |r| Ok((r.get(0)?, r.get(1)?)))
                .unwrap()
                .collect::<Result<_, _>>()
                .unwrap();
            assert!(!cols.is_empty(), "{view}");
            for (name, ty) in cols {
                // SQLite names `CAST(… AS INTEGER)` "INT"; both read as an integer.
                if !matches!(ty.as_str(), "INTEGER" | "INT" | "REAL" | "TEXT") {
                    untyped.push(format!("{} {view}.{name}: {ty:?}", kind.name()));
                }
            }
        }
    }
    assert!(untyped.is_empty(), "view columns without a declared type:\n{}", untyped.join("\n"));
}

/// `cost_by_week` computes the ISO week with functions every SQLite since 3.31 has (`%G`/`%V`
/// arrived in 3.46: an operator's older sqlite3 showed NULL); it agrees with `%G-W%V` here.
#[test]
fn iso_week_without_g_and_v_matches_strftime() {
    let conn = rusqlite::Connection::open_in_memory().unwrap();
    let sql = include_str!("../../reports/home/cost_by_week.sql");
    let expr = sql
        .split("SELECT ")
        .nth(1)
        .and_then(|s| s.split(" AS key").next())
        .expect("cost_by_week's key expression");
    assert!(!expr.contains("%G") && !expr.contains("%V"), "{expr}");
    let q = format!(
        "WITH RECURSIVE d(day) AS (SELECT '1999-12-01' UNION ALL SELECT date(day, '+1 day') FROM d WHERE day < '2031-01-31')
         SELECT count(*), sum(({expr}) IS NOT strftime('%G-W%V', day)) FROM d"
    );
    let (days, wrong): (i64, i64) = conn.query_row(&q, [], |r| Ok((r.get(0)?, r.get(1)?))).unwrap();
    assert!(days > 11_000, "{days}");
    assert_eq!(wrong, 0, "days whose ISO week differs");
}

/// The folder SQLite is given has its links resolved, as `canonicalize` resolves them, through a
/// link anywhere above the database; a FIFO where the folder should be is not waited on.
#[test]
fn the_database_folder_is_resolved_through_links_and_a_fifo_is_not_opened() {
    let dir = tempfile::tempdir().unwrap();
    let real = dir.path().join("real/state");
    std::fs::create_dir_all(&real).unwrap();
    std::os::unix::fs::symlink(dir.path().join("real"), dir.path().join("link")).unwrap();
    let via_link = dir.path().join("link/state/tlc.db");
    let want = std::fs::canonicalize(&real).unwrap().join("tlc.db");
    assert_eq!(in_place(&via_link), want);
    assert_eq!(
        resolved_dir(&dir.path().join("link/state")),
        Some(std::fs::canonicalize(&real).unwrap())
    );
    assert_eq!(resolved_dir(&dir.path().join("missing")), None);

    let fifo = dir.path().join("fifo");
    assert!(std::process::Command::new("mkfifo").arg(&fifo).status().unwrap().success());
    assert_eq!(resolved_dir(&fifo), std::fs::canonicalize(&fifo).ok());
}

/// Issue 32's migrations keep a landed lesson: `weight` becomes `confidence`, `ref` the first of
/// `refs`, and its times seed `valid_from`, `first_seen` and `last_seen`.
#[test]
fn the_lessons_migrations_carry_a_landed_lesson_over() {
    for (kind, before) in [(DbKind::Project, 7), (DbKind::Home, 8)] {
        let mut conn = rusqlite::Connection::open_in_memory().unwrap();
        super::schema::runner(kind)
            .set_target(refinery::Target::Version(before))
            .run(&mut conn)
            .unwrap();
        conn.execute_batch(
            "INSERT INTO lessons (id, instruction, tokens, ref, source, category, weight, hits, created_at, updated_at)
             VALUES ('a', 'with a ref', '[]', 'src/a.rs:add', 'manual', 'manual', 0.6, 3, '2026-01-01T00:00:00.000Z', '2026-02-01T00:00:00.000Z'),
                    ('b', 'without', '[]', NULL, 'manual', 'manual', 1.0, 0, '2026-01-01T00:00:00.000Z', '2026-01-01T00:00:00.000Z');",
        )
        .unwrap();
        super::schema::runner(kind).run(&mut conn).unwrap();
        let rows: Vec<(String, f64, String, String, String, i64)> = conn
            .prepare("SELECT id, confidence, refs, first_seen, last_seen, sessions FROM lessons ORDER BY id")
            .unwrap()
            .query_map([], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?, r.get(4)?, r.get(5)?)))
            .unwrap()
            .collect::<Result<_, _>>()
            .unwrap();
        assert_eq!(
            rows,
            vec![
                (
                    "a".to_string(),
                    0.6,
                    r#"["src/a.rs:add"]"#.to_string(),
                    "2026-01-01T00:00:00.000Z".to_string(),
                    "2026-02-01T00:00:00.000Z".to_string(),
                    0
                ),
                (
                    "b".to_string(),
                    1.0,
                    "[]".to_string(),
                    "2026-01-01T00:00:00.000Z".to_string(),
                    "2026-01-01T00:00:00.000Z".to_string(),
                    0
                ),
            ],
            "{}",
            kind.name()
        );
        let has_ref: i64 = conn
            .query_row(
                "SELECT count(*) FROM pragma_table_info('lessons') WHERE name IN ('ref', 'weight')",
                [],
                |r| r.get(0),
            )
            .unwrap();
        assert_eq!(has_ref, 0, "{}: ref and weight are gone", kind.name());
    }
}

/// Issue 53: a lesson written before the origin column says who wrote it only in its category;
/// the migration carries that over, so an agent's global lesson of then is not the operator's now.
#[test]
fn the_origin_migrations_read_who_wrote_a_landed_lesson() {
    for (kind, before) in [(DbKind::Project, 14), (DbKind::Home, 11)] {
        let mut conn = rusqlite::Connection::open_in_memory().unwrap();
        super::schema::runner(kind)
            .set_target(refinery::Target::Version(before))
            .run(&mut conn)
            .unwrap();
        conn.execute_batch(
            "INSERT INTO lessons (id, instruction, source, category, status, confidence, created_at, updated_at)
             VALUES ('op', 'by hand', 'manual', 'manual', 'active', 0.8, '2026-01-01T00:00:00.000Z', '2026-01-01T00:00:00.000Z'),
                    ('ag', 'an order', 'manual', 'agent-session', 'active', 0.8, '2026-01-01T00:00:00.000Z', '2026-01-01T00:00:00.000Z'),
                    ('test-abc', 'mined', 'mined', 'verification', 'candidate', 0.4, '2026-01-01T00:00:00.000Z', '2026-01-01T00:00:00.000Z');",
        )
        .unwrap();
        super::schema::runner(kind).run(&mut conn).unwrap();
        let rows: Vec<(String, String, Option<String>)> = conn
            .prepare("SELECT id, origin, promoted_at FROM lessons ORDER BY id")
            .unwrap()
            .query_map([], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)))
            .unwrap()
            .collect::<Result<_, _>>()
            .unwrap();
        assert_eq!(
            rows,
            vec![
                ("ag".to_string(), "agent".to_string(), None),
                ("op".to_string(), "operator".to_string(), None),
                ("test-abc".to_string(), "tlc".to_string(), None),
            ],
            "{}",
            kind.name()
        );
    }
}
