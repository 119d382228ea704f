//! Cost benchmarks, whole process (run with `cargo bench --bench cost`; not part of `cargo test`):
//!
//! 1. `prices refresh litellm --from <full catalog>`: median of 5, and entries stored;
//! 2. `prices lookup claude-sonnet-4-5` against the stored full catalog and against the built-in
//!    snapshot (fresh home): median of 50 each, with a no-op process (`true`) as the yardstick;
//! 3. `obs import transcripts` of a generated set (`generate.py --sessions 3000 --messages 300`,
//!    about 1.6 GB; reused from `TLC_COST_BENCH_SET` or `target/cost-bench-set` when present), three
//!    times, each into a fresh home: median seconds, seconds per GB, responses; then
//!    `obs cost --by model --json` over it (median of 5);
//! 4. ccusage 20.0.24 `daily --offline --json` on the same files (from `TLC_CCUSAGE_DIR`, a folder
//!    where `npm install ccusage@20.0.24 @ccusage/ccusage-linux-x64@20.0.24` was run), three times,
//!    each straight after one of the imports: median seconds, the ratio of the medians, and whether
//!    its token totals equal ours.
//!
//! 5. the bill (issue 16): a set with 70% 1-hour cache writes and prompts over 200k
//!    (`tools/gen-transcripts.py --one-hour 0.7 --published`), its cost per model side by side: the
//!    published-rate arithmetic (the generator's), tlc's `obs cost --by model --json`, ccusage's
//!    `daily --breakdown --offline --json`, and ccusage's rules recomputed here from the stored
//!    responses, which is how each difference is explained.
//!
//! Budgets (DESIGN.md): lookup < 5 ms; import < 10 s per GB and >= 5x faster than ccusage;
//! `obs cost` over the imported set < 100 ms.

use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

mod common;
use common::{median, tlc};

fn manifest() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn run(program: &Path, args: &[&str], home: &Path) -> (Duration, Output) {
    let start = Instant::now();
    let out = Command::new(program)
        .args(args)
        .env("TLC_HOME", home)
        .env_remove("TLC_NOW")
        .stdin(Stdio::null())
        .output()
        .expect("spawn");
    (start.elapsed(), out)
}

fn ok(program: &Path, args: &[&str], home: &Path) -> (Duration, String) {
    let (d, out) = run(program, args, home);
    assert!(
        out.status.success(),
        "{} {args:?}: {}",
        program.display(),
        String::from_utf8_lossy(&out.stderr)
    );
    (d, String::from_utf8_lossy(&out.stdout).into_owned())
}

fn ms(d: Duration) -> String {
    format!("{:.2} ms", d.as_secs_f64() * 1000.0)
}

fn dir_bytes(dir: &Path) -> u64 {
    let mut total = 0;
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).into_iter().flatten().flatten() {
            let p = e.path();
            if p.is_dir() {
                stack.push(p);
            } else if p.extension().is_some_and(|x| x == "jsonl") {
                total += e.metadata().map_or(0, |m| m.len());
            }
        }
    }
    total
}

fn main() {
    let tlc = tlc();
    let scratch = tempfile::tempdir().expect("tempdir");
    let catalog = manifest().join("../shared/fixtures/prices/litellm-model-prices.json");
    let catalog = catalog.to_str().expect("utf-8 path");

    // 1. refresh of the full catalog
    let home = scratch.path().join("home-full");
    let mut refreshes = Vec::new();
    let mut refreshed = String::new();
    for _ in 0..5 {
        let (d, out) = ok(&tlc, &["prices", "refresh", "litellm", "--from", catalog], &home);
        refreshes.push(d);
        refreshed = out.lines().next().unwrap_or("").to_string();
    }
    println!(
        "refresh of the full LiteLLM catalog: median {} of 5 ({refreshed})",
        ms(median(refreshes))
    );

    // 2. lookups, whole process
    let noop = Path::new("true");
    let fresh = scratch.path().join("home-fresh");
    let (mut stored, mut snap, mut nothing) = (Vec::new(), Vec::new(), Vec::new());
    for _ in 0..50 {
        stored.push(ok(&tlc, &["prices", "lookup", "claude-sonnet-4-5"], &home).0);
        snap.push(ok(&tlc, &["prices", "lookup", "claude-sonnet-4-5"], &fresh).0);
        nothing.push(run(noop, &[], &home).0);
    }
    let (stored, snap, nothing) = (median(stored), median(snap), median(nothing));
    println!(
        "prices lookup claude-sonnet-4-5, whole process, median of 50: stored full catalog {} ({:.1}x a no-op process), built-in snapshot on a fresh home {} ({:.1}x); no-op {} (budget < 5 ms)",
        ms(stored),
        stored.as_secs_f64() / nothing.as_secs_f64(),
        ms(snap),
        snap.as_secs_f64() / nothing.as_secs_f64(),
        ms(nothing)
    );
    assert!(!fresh.exists(), "lookup on a fresh home created files");

    // 5. the bill, first: it is small, and the ccusage it needs is found the same way
    let ccusage = std::env::var_os("TLC_CCUSAGE_DIR").map(PathBuf::from).or_else(|| {
        let tests = manifest().join("target/tmp/test-tools/ccusage-20.0.24");
        tests.join("node_modules/.bin/ccusage").exists().then_some(tests)
    });
    bill(&tlc, scratch.path(), catalog, ccusage.as_deref());

    // 3. import throughput
    let set = std::env::var_os("TLC_COST_BENCH_SET")
        .map(PathBuf::from)
        .unwrap_or_else(|| manifest().join("target/cost-bench-set"));
    if !set.join("projects").is_dir() {
        println!(
            "generating the transcript set in {} (3000 sessions x 300 messages)...",
            set.display()
        );
        let gen = manifest().join("../shared/fixtures/transcripts/generate.py");
        let status = Command::new("python3")
            .arg(gen)
            .arg(&set)
            .args(["--sessions", "3000", "--messages", "300", "--prices", catalog])
            .status()
            .expect("python3");
        assert!(status.success(), "generate.py failed");
    }
    let projects = set.join("projects");
    let bytes = dir_bytes(&projects);
    let gb = bytes as f64 / 1e9;
    // Three imports, each into a fresh home, taken in turn with the three ccusage runs below so
    // that both see the same drift in the machine's speed; medians are compared.
    let runs = 3;
    let (mut imports, mut cc_runs, mut cc_out) = (Vec::new(), Vec::new(), None);
    let mut out = String::new();
    let mut ihome = PathBuf::new();
    for run in 0..runs {
        ihome = scratch.path().join(format!("home-import-{run}"));
        let (took, o) = ok(&tlc, &["obs", "import", "transcripts", projects.to_str().expect("utf-8")], &ihome);
        imports.push(took);
        out = o;
        if let Some(cc) = &ccusage {
            let start = Instant::now();
            let o = Command::new(cc.join("node_modules/.bin/ccusage"))
                .args(["daily", "--offline", "--json"])
                .env("CLAUDE_CONFIG_DIR", &set)
                .current_dir(cc)
                .output()
                .expect("ccusage");
            cc_runs.push(start.elapsed());
            assert!(o.status.success(), "ccusage: {}", String::from_utf8_lossy(&o.stderr));
            cc_out = Some(o.stdout);
        }
    }
    let list = |d: &[Duration]| d.iter().map(|d| format!("{:.2}", d.as_secs_f64())).collect::<Vec<_>>().join(", ");
    let import_runs = list(&imports);
    let secs = median(imports).as_secs_f64();
    println!(
        "obs import transcripts: {:.2} GB in {:.2} s (median of {runs}: {import_runs} s) = {:.2} s per GB (budget < 10 s per GB); {}",
        gb,
        secs,
        secs / gb,
        out.lines()
            .filter(|l| l.starts_with("responses") || l.starts_with("files"))
            .collect::<Vec<_>>()
            .join("; ")
    );
    let (again, _) = ok(&tlc, &["obs", "import", "transcripts", projects.to_str().expect("utf-8")], &ihome);
    println!("second import of the same files (nothing new): {:.2} s", again.as_secs_f64());
    let mut costs = Vec::new();
    let mut report = String::new();
    for _ in 0..5 {
        let (d, out) = ok(&tlc, &["obs", "cost", "--by", "model", "--json"], &ihome);
        costs.push(d);
        report = out;
    }
    let report: serde_json::Value = serde_json::from_str(&report).expect("json");
    let totals = &report["totals"];
    println!(
        "obs cost --by model --json over {} responses: median {} of 5, whole process (budget < 100 ms)",
        totals["responses"],
        ms(median(costs))
    );
    let ours = [
        &totals["input_tokens"],
        &totals["output_tokens"],
        &totals["cache_write_tokens"],
        &totals["cache_read_tokens"],
    ]
    .map(|v| v.as_i64().unwrap_or(-1));

    // 4. ccusage on the same files (run above, in turn with the imports)
    let Some(cc_out) = cc_out else {
        println!(
            "ccusage: skipped (set TLC_CCUSAGE_DIR to a folder where `npm install ccusage@20.0.24 @ccusage/ccusage-linux-x64@20.0.24` ran)"
        );
        return;
    };
    let cc_list = list(&cc_runs);
    let cc_secs = median(cc_runs).as_secs_f64();
    let v: serde_json::Value = serde_json::from_slice(&cc_out).expect("ccusage json");
    let t = &v["totals"];
    let theirs = [
        &t["inputTokens"],
        &t["outputTokens"],
        &t["cacheCreationTokens"],
        &t["cacheReadTokens"],
    ]
    .map(|v| v.as_i64().unwrap_or(-2));
    println!(
        "ccusage 20.0.24 daily --offline --json on the same files: {:.2} s (median of {runs}: {cc_list} s); tlc import is {:.1}x faster (budget >= 5x); token totals (input, output, cache create, cache read) tlc {:?} ccusage {:?}: {}",
        cc_secs,
        cc_secs / secs,
        ours,
        theirs,
        if ours == theirs { "equal" } else { "DIFFERENT" }
    );
}

/// ccusage's own arithmetic, as measured against its output (20.0.24, `--offline`): for a model
/// with Anthropic's long-context rates, each kind of token (input, output, cache read, 5-minute and
/// 1-hour writes) is priced at the base rate up to 200,000 of that kind and at the long-context
/// rate past it; for a model whose catalog entry has `*_above_200k` rates (gemini-2.5-pro), the
/// whole request takes them when its prompt is over 200,000; a missing cache-write rate is 1.25x
/// the base input rate (below the tier and above it), a missing 1-hour rate 2x the input rate
/// that applies.
fn ccusage_rules(r: &serde_json::Value, per_kind_tier: bool, u: [i64; 5]) -> f64 {
    let rate = |k: &str| r[k].as_f64();
    let [input, output, read, write, write_1h] = u;
    let write_5m = write - write_1h;
    let input_rate = rate("input").unwrap_or(0.0);
    let tiered = |n: i64, base: f64, above: Option<f64>| -> f64 {
        match above {
            Some(a) if per_kind_tier && n > 200_000 => 200_000.0 * base + (n - 200_000) as f64 * a,
            _ => n as f64 * base,
        }
    };
    if per_kind_tier {
        let usd = tiered(input, input_rate, rate("input_above_200k"))
            + tiered(output, rate("output").unwrap_or(0.0), rate("output_above_200k"))
            + tiered(read, rate("cache_read").unwrap_or(0.0), rate("cache_read_above_200k"))
            + tiered(
                write_5m,
                rate("cache_write").unwrap_or(input_rate * 1.25),
                rate("cache_write_above_200k"),
            )
            + tiered(
                write_1h,
                rate("cache_write_1h").unwrap_or(input_rate * 2.0),
                rate("cache_write_1h_above_200k"),
            );
        return usd / 1e6;
    }
    let above = input + read + write > 200_000 && rate("input_above_200k").is_some();
    let pick = |base: &str| {
        let tier = format!("{base}_above_200k");
        if above {
            rate(&tier).or(rate(base))
        } else {
            rate(base)
        }
    };
    let i = pick("input").unwrap_or(0.0);
    (input as f64 * i
        + output as f64 * pick("output").unwrap_or(0.0)
        + read as f64 * pick("cache_read").unwrap_or(0.0)
        + write_5m as f64 * input_rate * 1.25
        + write_1h as f64 * r["cache_write_1h"].as_f64().unwrap_or(i * 2.0))
        / 1e6
}

fn bill(tlc: &Path, scratch: &Path, catalog: &str, ccusage: Option<&Path>) {
    let set = scratch.join("bill-set");
    let status = Command::new("python3")
        .arg(manifest().join("tools/gen-transcripts.py"))
        .arg(&set)
        .args([
            "--sessions",
            "300",
            "--messages",
            "60",
            "--seed",
            "12",
            "--one-hour",
            "0.7",
            "--prices",
            catalog,
        ])
        .arg("--published")
        .arg(manifest().join("src/cost/anthropic-prices.toml"))
        .status()
        .expect("python3");
    assert!(status.success(), "gen-transcripts.py failed");
    let expected: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(set.join("expected.json")).expect("expected.json")).expect("json");
    let home = scratch.join("home-bill");
    ok(
        tlc,
        &["obs", "import", "transcripts", set.join("projects").to_str().expect("utf-8")],
        &home,
    );
    let (_, report) = ok(tlc, &["obs", "cost", "--by", "model", "--json"], &home);
    let report: serde_json::Value = serde_json::from_str(&report).expect("json");
    let ours: std::collections::BTreeMap<String, Option<f64>> = report["rows"]
        .as_array()
        .expect("rows")
        .iter()
        .map(|r| (r["key"].as_str().unwrap_or("").to_string(), r["cost_usd"].as_f64()))
        .collect();
    let theirs: Option<std::collections::BTreeMap<String, f64>> = ccusage.map(|cc| {
        let o = Command::new(cc.join("node_modules/.bin/ccusage"))
            .args(["daily", "--breakdown", "--offline", "--json"])
            .env("CLAUDE_CONFIG_DIR", &set)
            .env("TZ", "UTC")
            .output()
            .expect("ccusage");
        assert!(o.status.success(), "ccusage: {}", String::from_utf8_lossy(&o.stderr));
        let v: serde_json::Value = serde_json::from_slice(&o.stdout).expect("ccusage json");
        let mut m = std::collections::BTreeMap::new();
        for day in v["daily"].as_array().into_iter().flatten() {
            for b in day["modelBreakdowns"].as_array().into_iter().flatten() {
                *m.entry(b["modelName"].as_str().unwrap_or("").to_string()).or_insert(0.0) += b["cost"].as_f64().unwrap_or(0.0);
            }
        }
        m
    });
    // ccusage's rules recomputed from the responses tlc stored.
    let conn = rusqlite::Connection::open(home.join("state/tlc.db")).expect("home db");
    let mut recomputed: std::collections::BTreeMap<String, f64> = std::collections::BTreeMap::new();
    let mut rates: std::collections::BTreeMap<String, Option<(serde_json::Value, bool)>> = std::collections::BTreeMap::new();
    let mut st = conn
        .prepare("SELECT model, input_tokens, output_tokens, cache_read_tokens, cache_write_tokens, cache_write_1h_tokens FROM usage")
        .expect("usage");
    let rows = st
        .query_map([], |r| {
            Ok((r.get::<_, String>(0)?, [r.get(1)?, r.get(2)?, r.get(3)?, r.get(4)?, r.get(5)?]))
        })
        .expect("rows");
    for row in rows {
        let (model, u): (String, [i64; 5]) = row.expect("row");
        let entry = rates.entry(model.clone()).or_insert_with(|| {
            let (_, out) = run(tlc, &["prices", "lookup", &model, "--json"], &home);
            let v: serde_json::Value = serde_json::from_slice(&out.stdout).ok()?;
            let per_kind = v["plane"] == "anthropic";
            Some((v, per_kind))
        });
        if let Some((r, per_kind)) = entry {
            *recomputed.entry(model).or_insert(0.0) += ccusage_rules(r, *per_kind, u);
        }
    }
    let usd = |v: Option<f64>| v.map(|v| format!("{v:.4}")).unwrap_or_else(|| "unknown".into());
    let pct = |v: Option<f64>, of: Option<f64>| match (v, of) {
        (Some(v), Some(of)) if of > 0.0 => format!("{:+.3}%", (v / of - 1.0) * 100.0),
        _ => "-".into(),
    };
    println!(
        "the bill: {} responses, 70% of cache writes 1-hour, prompts over 200k; USD per model",
        expected["responses"]
    );
    println!(
        "  {:<22} {:>10} {:>10} {:>9} {:>10} {:>9} {:>12}",
        "model", "published", "tlc", "vs pub", "ccusage", "vs pub", "ccusage rule"
    );
    let (mut tp, mut tt, mut tc) = (0.0, 0.0, 0.0);
    for (model, want) in expected["models"].as_object().expect("models") {
        let published = want["cost_complete"]
            .as_bool()
            .unwrap_or(false)
            .then(|| want["cost_usd"].as_f64().unwrap_or(0.0));
        let tlc_cost = ours.get(model).copied().flatten();
        let cc = theirs.as_ref().map(|m| m.get(model).copied().unwrap_or(0.0));
        tp += published.unwrap_or(0.0);
        tt += tlc_cost.unwrap_or(0.0);
        tc += cc.unwrap_or(0.0);
        println!(
            "  {:<22} {:>10} {:>10} {:>9} {:>10} {:>9} {:>12}",
            model,
            usd(published),
            usd(tlc_cost),
            pct(tlc_cost, published),
            usd(cc),
            pct(cc, published),
            usd(recomputed.get(model).copied())
        );
    }
    println!(
        "  {:<22} {:>10.4} {:>10.4} {:>9} {:>10} {:>9}",
        "total (priced)",
        tp,
        tt,
        pct(Some(tt), Some(tp)),
        theirs.as_ref().map(|_| format!("{tc:.4}")).unwrap_or_else(|| "skipped".into()),
        pct(theirs.as_ref().map(|_| tc), Some(tp))
    );
    println!("  why: tlc prices each part at the published rate, a Sonnet 4/4.5 prompt over 200k entirely at the long-context rates;");
    println!("       ccusage (its rule recomputed in the last column) prices Claude's long-context rates only on the tokens of each kind");
    println!("       past 200k, and prices cache writes a catalog entry has no rate for (gemini-2.5-pro) at 1.25x input (1-hour 2x),");
    println!("       where tlc takes LiteLLM's rates (none below 200k: 0; $0.25 above) and 2x input for 1-hour writes;");
    println!("       acme-unlisted-model-1 has no price anywhere: unknown in tlc (NULL), $0 in ccusage.");
}
