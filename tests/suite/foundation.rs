//! The foundation: databases, read-only guarantees, bad input, config tiers, the alias.

use crate::common;
use common::*;
use std::os::unix::fs::PermissionsExt;

#[test]
fn db_status_in_a_fresh_directory_reports_no_database_and_creates_nothing() {
    let w = World::new();
    let before = tree(w.dir.path());
    let out = w.ok(&["db", "status"]);
    // One table, a row per database, each saying it does not exist.
    let row = |db: &str| out.lines().find(|l| l.contains(&format!(" {db} "))).unwrap_or_default().to_string();
    assert!(row("project").contains("does not exist"), "{out}");
    assert!(row("home").contains("does not exist"), "{out}");
    let json: serde_json::Value = serde_json::from_str(&w.ok(&["db", "status", "--json"])).unwrap();
    assert_eq!(json[0]["exists"], false);
    assert_eq!(json[1]["exists"], false);
    w.ok(&["db", "check"]);
    w.ok(&["harness", "db", "status"]);
    assert_eq!(tree(w.dir.path()), before, "read-only commands created something");
}

#[test]
fn db_migrate_makes_both_databases_in_wal_with_private_modes_and_twice_changes_nothing() {
    let w = World::new();
    let first = w.ok(&["db", "migrate"]);
    assert!(first.contains("applied V1__core"), "{first}");
    for db in [w.project_db(), w.home_db()] {
        let mode = std::fs::metadata(&db).unwrap().permissions().mode() & 0o777;
        assert_eq!(mode, 0o600, "{}", db.display());
        let dir_mode = std::fs::metadata(db.parent().unwrap()).unwrap().permissions().mode() & 0o777;
        assert_eq!(dir_mode, 0o700);
        let c = rusqlite::Connection::open(&db).unwrap();
        let jm: String = c.query_row("PRAGMA journal_mode", [], |r| r.get(0)).unwrap();
        assert_eq!(jm, "wal");
    }
    let snapshot = |p: &std::path::Path| {
        let c = rusqlite::Connection::open(p).unwrap();
        let v: i64 = c.query_row("PRAGMA user_version", [], |r| r.get(0)).unwrap();
        let n: i64 = c
            .query_row("SELECT count(*) FROM refinery_schema_history", [], |r| r.get(0))
            .unwrap();
        (v, n)
    };
    let before = (snapshot(&w.project_db()), snapshot(&w.home_db()));
    let second = w.ok(&["db", "migrate"]);
    assert!(second.contains("up to date") && !second.contains("applied"), "{second}");
    assert_eq!((snapshot(&w.project_db()), snapshot(&w.home_db())), before);
    let status: serde_json::Value = serde_json::from_str(&w.ok(&["db", "status", "--json"])).unwrap();
    assert_eq!(
        status[0]["schema_version"],
        latest_migration("project"),
        "every project migration applied"
    );
    assert_eq!(
        status[0]["applied_migrations"].as_array().map(Vec::len),
        Some(latest_migration("project") as usize),
        "no migration number skipped"
    );
    assert_eq!(status[0]["journal_mode"], "wal");
    assert_eq!(status[1]["applied_migrations"][0]["name"], "core");
    w.ok(&["db", "check"]);
}

#[test]
fn bad_input_gives_a_one_line_error_naming_the_path_and_overwrites_nothing() {
    // A database file of random bytes.
    let w = World::new();
    std::fs::create_dir_all(w.home.join("state")).unwrap();
    let junk: Vec<u8> = (0..4096u32).map(|i| (i.wrapping_mul(2654435761) >> 7) as u8).collect();
    std::fs::write(w.home_db(), &junk).unwrap();
    for args in [vec!["db", "migrate"], vec!["db", "status"], vec!["db", "check"]] {
        let out = w.run(&args);
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        let all = stdout(&out) + &stderr(&out);
        assert!(all.contains(&w.home_db().display().to_string()), "{args:?}: {all}");
    }
    let err = stderr(&w.run(&["db", "migrate"]));
    assert_eq!(err.trim().lines().count(), 1, "{err}");
    assert_eq!(std::fs::read(w.home_db()).unwrap(), junk);

    // A database migrated by a newer binary.
    let w = World::new();
    w.ok(&["db", "migrate"]);
    {
        let c = rusqlite::Connection::open(w.project_db()).unwrap();
        let future = latest_migration("project") + 1;
        c.execute(
            "INSERT INTO refinery_schema_history (version, name, applied_on, checksum) VALUES (?1, 'future', '2030-01-01T00:00:00Z', '1')",
            [future],
        )
        .unwrap();
        c.execute_batch(&format!("PRAGMA user_version = {}", future * 1_000_000)).unwrap();
    }
    let before = std::fs::read(w.project_db()).unwrap();
    let out = w.run(&["db", "migrate"]);
    assert_eq!(out.status.code(), Some(2));
    let err = stderr(&out);
    let known = format!("version {}", latest_migration("project"));
    let future = (latest_migration("project") + 1).to_string();
    assert!(err.contains(&future) && err.contains(&known) && err.contains("tlc.db"), "{err}");
    assert_eq!(std::fs::read(w.project_db()).unwrap(), before, "not written");
    assert_eq!(w.run(&["db", "status"]).status.code(), Some(2));
    // The hook still answers and does not write it.
    assert!(w
        .hook_faulty("claude", w.payload("providers/claude/stop.json").as_bytes())
        .status
        .success());
    assert_eq!(std::fs::read(w.project_db()).unwrap(), before);

    // An unwritable TLC_HOME.
    let w = World::new();
    let out = w.cmd(&["db", "migrate"]).env("TLC_HOME", "/dev/null/tlc").output().unwrap();
    assert_eq!(out.status.code(), Some(1));
    assert!(stderr(&out).contains("/dev/null/tlc"), "{}", stderr(&out));

    // A config file with a TOML syntax error.
    let w = World::new();
    std::fs::create_dir_all(&w.home).unwrap();
    let cfg = w.home.join("config.toml");
    std::fs::write(&cfg, "[grind]\nenabled = true\nmaxLoops = = 3\n").unwrap();
    let out = w.run(&["config", "show"]);
    assert_eq!(out.status.code(), Some(2));
    let err = stderr(&out);
    assert!(err.contains(&format!("{}:3", cfg.display())) && err.contains("syntax"), "{err}");
    assert_eq!(err.trim().lines().count(), 1, "{err}");
    assert_eq!(std::fs::read_to_string(&cfg).unwrap(), "[grind]\nenabled = true\nmaxLoops = = 3\n");
}

#[test]
fn config_show_names_the_tier_and_file_of_every_value() {
    let w = World::new();
    std::fs::create_dir_all(&w.home).unwrap();
    std::fs::write(
        w.home.join("config.toml"),
        "[obs]\nretentionDays = 10\n[stable.acme]\nremote = \"file:///x\"\n",
    )
    .unwrap();
    std::fs::create_dir_all(w.repo.join(".tlc/harness")).unwrap();
    std::fs::write(w.repo.join(".tlc/harness/config.toml"), "mode = \"focus\"\n").unwrap();
    let json: serde_json::Value = serde_json::from_str(&w.ok(&["config", "show", "--origin", "--json"])).unwrap();
    assert_eq!(json["mode"]["value"], "focus");
    assert_eq!(json["mode"]["tier"], "project");
    assert_eq!(json["obs.retentionDays"]["value"], 10);
    assert_eq!(json["obs.retentionDays"]["tier"], "machine");
    assert_eq!(json["obs.retentionDays"]["line"], 2);
    assert_eq!(json["grind.maxLoops"]["tier"], "default");
    assert_eq!(json["stable.acme.remote"]["tier"], "machine");
    let plain: serde_json::Value = serde_json::from_str(&w.ok(&["config", "show", "--json"])).unwrap();
    assert_eq!(plain["mode"], "focus");
    let table = w.ok(&["config", "show", "--origin"]);
    assert!(table.contains("obs.retentionDays") && table.contains("machine"), "{table}");

    // A project declaring a machine-only table fails to load, naming the file and line.
    std::fs::write(
        w.repo.join(".tlc/harness/config.toml"),
        "mode = \"solo\"\n\n[stable.evil]\nremote = \"x\"\n",
    )
    .unwrap();
    let out = w.run(&["config", "show"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(stderr(&out).contains(".tlc/harness/config.toml:3"), "{}", stderr(&out));
}

/// The release binary keeps the platform's exploit mitigations (issue 13): it parses text an
/// agent controls with C code (SQLite) in the process. Read from the ELF file itself: the type is
/// ET_DYN (a position-independent executable), a PT_GNU_RELRO segment exists, and the dynamic
/// section asks for every symbol bound at start (DF_BIND_NOW or DF_1_NOW), so the relocated
/// tables are read-only before `main` runs.
///
/// Built static (`+crt-static`, `.cargo/config.toml`, issue 37) it is a static PIE: no program
/// interpreter and no shared library to load at start. There the C library relocates the binary
/// and protects its RELRO pages itself, so a running `tlc` is read too: every page of the
/// segment is mapped read-only.
#[cfg(all(target_os = "linux", target_pointer_width = "64", target_endian = "little"))]
#[test]
fn the_binary_is_a_position_independent_executable_with_full_relro() {
    let elf = std::fs::read(env!("CARGO_BIN_EXE_tlc")).unwrap();
    let u16_at = |o: usize| u16::from_le_bytes(elf[o..o + 2].try_into().unwrap());
    let u32_at = |o: usize| u32::from_le_bytes(elf[o..o + 4].try_into().unwrap());
    let u64_at = |o: usize| u64::from_le_bytes(elf[o..o + 8].try_into().unwrap());
    assert_eq!(&elf[..5], b"\x7fELF\x02", "a 64-bit ELF file");
    const ET_DYN: u16 = 3;
    assert_eq!(u16_at(16), ET_DYN, "e_type: the binary is not position-independent");
    let (phoff, phentsize, phnum) = (u64_at(32) as usize, usize::from(u16_at(54)), usize::from(u16_at(56)));
    const PT_DYNAMIC: u32 = 2;
    const PT_INTERP: u32 = 3;
    const PT_GNU_RELRO: u32 = 0x6474_e552;
    // (type, offset, vaddr, file size, memory size)
    let headers: Vec<(u32, usize, usize, usize, usize)> = (0..phnum)
        .map(|i| phoff + i * phentsize)
        .map(|h| {
            (
                u32_at(h),
                u64_at(h + 8) as usize,
                u64_at(h + 16) as usize,
                u64_at(h + 32) as usize,
                u64_at(h + 40) as usize,
            )
        })
        .collect();
    let &(_, _, relro_vaddr, _, relro_size) = headers.iter().find(|h| h.0 == PT_GNU_RELRO).expect("no GNU_RELRO segment");
    let &(_, dyn_off, _, dyn_size, _) = headers.iter().find(|h| h.0 == PT_DYNAMIC).expect("a dynamic section");
    const DT_NEEDED: u64 = 1;
    const DT_FLAGS: u64 = 30;
    const DF_BIND_NOW: u64 = 0x8;
    const DT_FLAGS_1: u64 = 0x6fff_fffb;
    const DF_1_NOW: u64 = 0x1;
    let dynamic: Vec<(u64, u64)> = (dyn_off..dyn_off + dyn_size)
        .step_by(16)
        .map(|e| (u64_at(e), u64_at(e + 8)))
        .collect();
    let bind_now = dynamic
        .iter()
        .any(|&(tag, val)| (tag == DT_FLAGS && val & DF_BIND_NOW != 0) || (tag == DT_FLAGS_1 && val & DF_1_NOW != 0));
    assert!(bind_now, "symbols are bound lazily: RELRO is partial");

    if cfg!(all(target_env = "gnu", target_feature = "crt-static")) {
        assert!(!headers.iter().any(|h| h.0 == PT_INTERP), "a program interpreter: not a static PIE");
        assert!(
            !dynamic.iter().any(|h| h.0 == DT_NEEDED),
            "a shared library to load: not a static PIE"
        );
        relro_is_read_only_in_a_running_tlc(relro_vaddr, relro_size);
    }
}

/// Starts `tlc hook claude` (it waits for its payload), and checks in `/proc/<pid>/maps` that the
/// pages of the RELRO segment (`vaddr`, `size`, relative to the load address) come to be mapped
/// without write permission (they are writable for the moment the start-up code relocates them).
#[cfg(target_os = "linux")]
fn relro_is_read_only_in_a_running_tlc(vaddr: usize, size: usize) {
    use std::io::Write;
    let w = World::new();
    let mut child = w
        .cmd(&["hook", "claude"])
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    let exe = std::fs::canonicalize(TLC).unwrap().display().to_string();
    let started = std::time::Instant::now();
    let verdict = loop {
        let maps = std::fs::read_to_string(format!("/proc/{}/maps", child.id())).unwrap_or_default();
        let verdict = relro_read_only(&maps, &exe, vaddr, size);
        if verdict.is_ok() || started.elapsed() > std::time::Duration::from_secs(3) {
            break verdict;
        }
        std::thread::sleep(std::time::Duration::from_millis(5));
    };
    let _ = child.stdin.take().unwrap().write_all(b"{}");
    let _ = child.wait();
    if let Err(e) = verdict {
        panic!("{e}");
    }
}

/// Whether the RELRO pages of `exe` are all mapped read-only in `maps` (a `/proc/<pid>/maps`).
fn relro_read_only(maps: &str, exe: &str, vaddr: usize, size: usize) -> Result<(), String> {
    // (start, end, permissions, offset, path)
    let regions: Vec<(usize, usize, &str, usize, &str)> = maps
        .lines()
        .filter_map(|l| {
            let f: Vec<&str> = l.split_whitespace().collect();
            let (start, end) = f.first()?.split_once('-')?;
            Some((
                usize::from_str_radix(start, 16).ok()?,
                usize::from_str_radix(end, 16).ok()?,
                *f.get(1)?,
                usize::from_str_radix(f.get(2)?, 16).ok()?,
                f.get(5).copied().unwrap_or_default(),
            ))
        })
        .collect();
    let base = regions
        .iter()
        .find(|r| r.4 == exe && r.3 == 0)
        .map(|r| r.0)
        .ok_or_else(|| format!("no load address of {exe}:\n{maps}"))?;
    // As the C library protects it: whole pages from the segment's start to its end, rounded down.
    let page = 4096;
    let (from, to) = ((base + vaddr) / page * page, (base + vaddr + size) / page * page);
    if to <= from {
        return Err("an empty RELRO segment".into());
    }
    let mut covered = from;
    for r in regions.iter().filter(|r| r.1 > from && r.0 < to) {
        if r.2.contains('w') {
            return Err(format!("RELRO page {:#x}-{:#x} is writable ({}):\n{maps}", r.0, r.1, r.2));
        }
        if r.0 > covered {
            return Err(format!("a hole in the RELRO mapping at {covered:#x}:\n{maps}"));
        }
        covered = covered.max(r.1);
    }
    if covered < to {
        return Err(format!("the RELRO segment is not all mapped:\n{maps}"));
    }
    Ok(())
}

/// The newest migration version under `migrations/<db>/` (`V<n>__name.sql`): the schema this tlc
/// knows.
pub fn latest_migration(db: &str) -> u32 {
    std::fs::read_dir(format!("{}/migrations/{db}", env!("CARGO_MANIFEST_DIR")))
        .unwrap()
        .filter_map(|e| {
            let name = e.unwrap().file_name().into_string().unwrap();
            name.strip_prefix('V')?.split("__").next()?.parse().ok()
        })
        .max()
        .unwrap()
}
