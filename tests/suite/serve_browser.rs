//! `tlc serve` in a real browser: headless Chromium (Debian's `chromium`, which `.ci/run`
//! installs) loads the overview and a session page at 1280×800 and at a phone's size, with no
//! console error, a picture that is not blank, and the figures `obs cost --json` prints. Nothing
//! here measures time: the waits are generous for a loaded two-core machine.

use crate::chromium_support::{picture, Chromium};
use crate::serve::{json, recorded, Served, LIVE, NOW, SCRIPT, SESSION};
use serde_json::Value;

/// USD as the pages (and the terminal) write it.
fn usd(v: f64) -> String {
    if v.abs() >= 100.0 {
        format!("${v:.2}")
    } else if v.abs() >= 0.01 {
        format!("${v:.4}")
    } else {
        format!("${v:.6}")
    }
}

/// The figure of a card: its raw value and its text.
fn figure(c: &mut Chromium, card: &str) -> (f64, String) {
    let v = c.eval(&format!(
        "(() => {{ const f = document.querySelector('#{card} .figure'); return f ? [f.dataset.value || '', f.textContent] : null; }})()"
    ));
    let raw = v[0].as_str().unwrap_or_else(|| panic!("no card #{card}"));
    (raw.parse().unwrap_or(f64::NAN), v[1].as_str().unwrap_or("").to_string())
}

fn assert_not_blank(png: &[u8], width: u32, what: &str) {
    let (w, h, colours, share) = picture(png);
    assert_eq!(w, width, "{what}: screenshot width");
    assert!(h > 0, "{what}");
    assert!(colours >= 16, "{what}: only {colours} colours: a blank page?");
    assert!(
        share >= 0.02,
        "{what}: {:.1}% of the pixels differ from the background: a blank page?",
        share * 100.0
    );
}

#[test]
fn chromium_loads_the_overview_and_a_session_page_with_the_figures_obs_cost_prints() {
    let w = recorded();
    let s = Served::start(&w);
    let cli = |args: &[&str]| json(&w.ok_env(args, NOW));
    let mut c = Chromium::start();

    c.viewport(1280, 800, false);
    let from = c.events.len();
    c.load(&s.url);
    assert_eq!(c.errors_since(from), Vec::<String>::new(), "console errors on the overview");
    assert_not_blank(&c.screenshot(), 1280, "overview at 1280x800");
    // Today, this week and this month: the totals of `obs cost` over those days (the clock is
    // Saturday 2026-11-21; its ISO week began on Monday the 16th).
    for (card, args) in [
        ("today", ["--by", "day", "--since", "2026-11-21", "--until", "2026-11-21"]),
        ("week", ["--by", "week", "--since", "2026-11-16", "--until", "2026-11-21"]),
        ("month", ["--by", "month", "--since", "2026-11-01", "--until", "2026-11-21"]),
    ] {
        let mut full = vec!["obs", "cost"];
        full.extend(args);
        full.push("--json");
        let totals = cli(&full)["totals"].clone();
        let want = totals["cost_usd"].as_f64().expect("a cost");
        let (raw, text) = figure(&mut c, card);
        assert_eq!(raw, want, "#{card}: {full:?}");
        let star = if totals["cost_complete"] == true { "" } else { "*" };
        assert_eq!(text, format!("{}{star}", usd(want)), "#{card}");
    }
    let blocks = cli(&[
        "obs",
        "cost",
        "--by",
        "block",
        "--since",
        "2026-11-21",
        "--until",
        "2026-11-21",
        "--json",
    ]);
    let active = blocks["rows"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["block"]["active"] == true)
        .expect("an active block")
        .clone();
    assert_eq!(figure(&mut c, "block").0, active["cost_usd"].as_f64().unwrap());
    let note = c.eval("document.querySelector('#block .note').textContent");
    assert!(note.as_str().unwrap().contains("/h"), "the burn rate: {note}");
    // The live session links to its page.
    let link = c.eval(&format!("document.querySelector('#live a[href=\"/sessions/{LIVE}\"]') !== null"));
    assert_eq!(link, Value::Bool(true));

    // One session's page: its estimated cost as `obs cost --here --by session` prints it.
    let from = c.events.len();
    c.load(&format!("{}sessions/{SESSION}", s.url));
    assert_eq!(c.errors_since(from), Vec::<String>::new(), "console errors on the session page");
    assert_not_blank(&c.screenshot(), 1280, "session page at 1280x800");
    let by_session = cli(&["obs", "cost", "--here", "--by", "session", "--json"]);
    let row = by_session["rows"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["key"] == SESSION)
        .expect("the session in obs cost --here --by session")
        .clone();
    let want = row["cost_usd"].as_f64().unwrap();
    let (raw, text) = figure(&mut c, "session-cost");
    assert!((raw - want).abs() <= want * 1e-12, "session cost {raw} against {want}");
    assert_eq!(text, usd(want));
    // The prompt holding a script is text: one script on the page (the refresh snippet), the
    // prompt readable, no dialog (an opened one is reported as an error above).
    assert_eq!(c.eval("document.querySelectorAll('script').length"), Value::from(1));
    assert_eq!(
        c.eval(&format!(
            "document.body.innerText.includes({})",
            serde_json::to_string(SCRIPT).unwrap()
        )),
        Value::Bool(true)
    );
    assert_eq!(
        c.eval("document.querySelectorAll('img').length"),
        Value::from(0),
        "the tool named like an image is text"
    );

    // A phone: nothing wider than the screen (tables and charts scroll inside their boxes).
    c.viewport(390, 844, true);
    for path in [String::new(), format!("sessions/{SESSION}"), "cost".into(), "gates".into()] {
        let from = c.events.len();
        c.load(&format!("{}{path}", s.url));
        assert_eq!(c.errors_since(from), Vec::<String>::new(), "/{path} on a phone");
        let wide = c.eval("document.documentElement.scrollWidth").as_i64().unwrap();
        assert!(wide <= 391, "/{path} is {wide} px wide on a 390 px screen");
        assert_not_blank(&c.screenshot(), 390, &format!("/{path} on a phone"));
    }

    // JavaScript off: the same figures (only the live refresh is gone).
    c.viewport(1280, 800, false);
    c.javascript(false);
    let from = c.events.len();
    c.load(&s.url);
    assert_eq!(c.errors_since(from), Vec::<String>::new());
    let today = cli(&[
        "obs",
        "cost",
        "--by",
        "day",
        "--since",
        "2026-11-21",
        "--until",
        "2026-11-21",
        "--json",
    ]);
    assert_eq!(figure(&mut c, "today").0, today["totals"]["cost_usd"].as_f64().unwrap());
}

/// Writes docs/serve/*.png: one screenshot of each page at 1280×800, over a record with a few
/// weeks of sessions, gates and decisions. Run by hand when the pages change:
/// `cargo test --release --test suite serve_browser::docs_screenshots -- --ignored`.
#[test]
#[ignore]
fn docs_screenshots() {
    let w = crate::serve::docs_world();
    let s = Served::start_in(&w, &w.repo, &[], Some(crate::serve::DOCS_NOW));
    let out = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("docs/serve");
    std::fs::create_dir_all(&out).unwrap();
    let session = s.ok("/api/sessions").json()["sessions"][0]["session_id"]
        .as_str()
        .unwrap()
        .to_string();
    let mut c = Chromium::start();
    c.viewport(1280, 800, false);
    for (name, path) in [
        ("overview", String::new()),
        ("cost", "cost".to_string()),
        ("projects", "projects".to_string()),
        ("sessions", "sessions".to_string()),
        ("session", format!("sessions/{session}")),
        ("gates", "gates".to_string()),
        ("policy", "policy".to_string()),
        ("prices", "prices?model=claude-sonnet-4-5".to_string()),
    ] {
        let from = c.events.len();
        c.load(&format!("{}{path}", s.url));
        assert_eq!(c.errors_since(from), Vec::<String>::new(), "/{path}");
        let png = c.screenshot();
        assert_not_blank(&png, 1280, name);
        std::fs::write(out.join(format!("{name}.png")), png).unwrap();
    }
    c.viewport(390, 844, true);
    c.load(&s.url);
    std::fs::write(out.join("overview-phone.png"), c.screenshot()).unwrap();
}
