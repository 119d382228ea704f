//! `tlc serve` in a real browser: headless Chromium (Debian's `chromium`, which `.ci/run`
//! installs) loads the overview and a session page at 1280×800 and at a phone's size, with no
//! console error, a picture that is not blank, and the figures `obs cost --json` prints. Nothing
//! here measures time: the waits are generous for a loaded two-core machine.

use crate::chromium_support::{picture, Chromium};
use crate::serve::{
    blocked_stop_world, hooks_only_world, json, recorded, Served, BLOCKED, FAILING_ASSERTION, HOOKS_NOW, LIVE, NOW, QUIET, SCRIPT, SESSION,
    UNPRICED, ZERO,
};
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
    // Without the token (this browser has no cookie yet): refused, nothing of the record.
    c.load(&s.base);
    let refused = c.eval("document.body.innerText");
    let refused = refused.as_str().unwrap();
    assert!(refused.starts_with("403 Forbidden") && refused.contains("token"), "{refused}");
    assert_eq!(c.eval("document.querySelector('#today') === null"), Value::Bool(true));
    // The refused page's favicon is refused too (every address needs the token): its error is
    // this page's, let it arrive before the next page's errors are counted.
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(5);
    while std::time::Instant::now() < deadline
        && !c
            .events
            .iter()
            .any(|(m, p)| m == "Log.entryAdded" && p["entry"]["url"].as_str().is_some_and(|u| u.ends_with("/favicon.ico")))
    {
        c.eval("0");
        std::thread::sleep(std::time::Duration::from_millis(100));
    }
    // The printed URL: the token moves into a SameSite=Strict cookie, the address bar keeps none.
    let from = c.events.len();
    c.load(&s.url);
    assert_eq!(c.errors_since(from), Vec::<String>::new(), "console errors on the overview");
    assert_eq!(
        c.eval("location.href"),
        Value::from(s.base.clone()),
        "the token left the address bar"
    );
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
    c.load(&format!("{}sessions/{SESSION}", s.base));
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
        c.load(&format!("{}{path}", s.base));
        assert_eq!(c.errors_since(from), Vec::<String>::new(), "/{path} on a phone");
        let wide = c.eval("document.documentElement.scrollWidth").as_i64().unwrap();
        assert!(wide <= 391, "/{path} is {wide} px wide on a 390 px screen");
        assert_not_blank(&c.screenshot(), 390, &format!("/{path} on a phone"));
    }

    // JavaScript off: the same figures (only the live refresh is gone).
    c.viewport(1280, 800, false);
    c.javascript(false);
    let from = c.events.len();
    c.load(&s.base);
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

/// Issue 52, item 5: in a browser, a blocked stop's session page shows the follow-up the stop
/// sent the agent and the tail of the test gate's output, inside the stop's entry of the
/// timeline, and the denied call reads as denied.
#[test]
fn chromium_shows_a_blocked_stops_follow_up_and_gate_output_on_its_session_page() {
    let (w, answered) = blocked_stop_world();
    // The text the page must show is the one the record keeps (stop_outcomes.follow_up), and that
    // is the text the Stop answered the agent.
    let follow_up: String = w
        .db()
        .query_row(
            "SELECT follow_up FROM stop_outcomes WHERE session_id = ?1 AND outcome = 'block'",
            [BLOCKED],
            |r| r.get(0),
        )
        .expect("the blocked stop's follow-up is kept");
    assert_eq!(follow_up, answered);
    let s = Served::start(&w);
    let mut c = Chromium::start();
    c.viewport(1280, 800, false);
    c.load(&s.url);
    let from = c.events.len();
    c.load(&format!("{}sessions/{BLOCKED}", s.base));
    assert_eq!(c.errors_since(from), Vec::<String>::new(), "console errors on the session page");
    assert_not_blank(&c.screenshot(), 1280, "the blocked stop's session page");
    let text = c.eval("document.body.innerText").as_str().unwrap().to_string();
    assert!(text.contains("BLOCKED: test failed"), "{text:.3000}");
    assert!(text.contains(FAILING_ASSERTION), "the gate's output tail: {text:.3000}");
    // The follow-up as the agent read it, whole, in the stop's entry; the output tail beside it.
    let entry = c.eval(
        "(() => { const p = document.querySelector('#timeline pre.follow-up'); if (!p) return null; \
         const li = p.closest('li'); const r = p.getBoundingClientRect(); \
         return [p.innerText, li.querySelector('pre.output-tail')?.innerText || '', li.querySelector('.tag').innerText, r.width, r.height]; })()",
    );
    assert!(!entry.is_null(), "no follow-up in the timeline");
    assert_eq!(entry[0].as_str().unwrap().trim_end(), follow_up.trim_end(), "the follow-up as sent");
    assert!(entry[1].as_str().unwrap().contains(FAILING_ASSERTION), "{entry}");
    assert_eq!(entry[2], "Turn end");
    assert!(
        entry[3].as_f64().unwrap() > 200.0 && entry[4].as_f64().unwrap() > 20.0,
        "drawn: {entry}"
    );
    let denied = c.eval("Array.from(document.querySelectorAll('#timeline li.denied')).map(li => li.innerText).join('\\n---\\n')");
    let denied = denied.as_str().unwrap();
    assert!(
        denied.contains("rm -rf /") && denied.contains("denied") && denied.contains("outside-project-destruction"),
        "{denied}"
    );
    // No JSON text: the attributes are fields.
    assert_eq!(c.eval("document.body.innerText.includes('{\"')"), Value::Bool(false));
    assert!(c.eval("document.querySelectorAll('#timeline dl.fields').length").as_i64().unwrap() > 0);
}

/// Issue 52, item 10: a chart of one day draws one narrow bar (a day's width in a week), not a
/// bar across the plot; a session id on a chart starts at its left, whole (only its end may be
/// cut); a phone shows the same.
#[test]
fn chromium_draws_one_day_as_a_narrow_bar_and_session_ids_from_their_start() {
    let w = hooks_only_world();
    let s = Served::start_in(&w, &w.repo, &[], Some(HOOKS_NOW));
    let mut c = Chromium::start();
    for (width, height, phone) in [(1280, 800, false), (390, 844, true)] {
        c.viewport(width, height, phone);
        let from = c.events.len();
        c.load(&s.url);
        assert_eq!(c.errors_since(from), Vec::<String>::new());
        let bars = c.eval(
            "(() => { const svg = document.getElementById('chart-days'); const rects = svg.querySelectorAll('rect'); \
             const days = new Set(Array.from(rects).map(r => r.getAttribute('x'))); \
             return [days.size, Math.max(...Array.from(rects).map(r => r.getBoundingClientRect().width)), svg.getBoundingClientRect().width]; })()",
        );
        assert_eq!(bars[0], 1, "one day of responses: {bars}");
        let (bar, chart) = (bars[1].as_f64().unwrap(), bars[2].as_f64().unwrap());
        assert!(bar > 0.0 && bar < chart / 8.0, "one day's bar is {bar} px of a {chart} px chart");

        let from = c.events.len();
        c.load(&format!("{}sessions", s.base));
        assert_eq!(c.errors_since(from), Vec::<String>::new());
        let labels = c.eval(
            "(() => { const svg = document.getElementById('chart-sessions'); const box = svg.getBoundingClientRect(); \
             return Array.from(svg.querySelectorAll('text[text-anchor=start]')).map(t => { const r = t.getBoundingClientRect(); \
             return [t.textContent, r.left - box.left, box.right - r.right]; }); })()",
        );
        let labels = labels.as_array().unwrap();
        assert!(!labels.is_empty());
        for l in labels {
            // The label's text: its <title> (the whole id) then the drawn part.
            let drawn = l[0].as_str().unwrap();
            let left = l[1].as_f64().unwrap();
            assert!(left >= 0.0, "a label starts {left} px left of its chart: {l}");
            let id = [SESSION, ZERO, UNPRICED, QUIET]
                .into_iter()
                .find(|id| drawn.starts_with(*id))
                .unwrap_or_else(|| panic!("a label that is no session id: {drawn}"));
            assert!(
                drawn[id.len()..].starts_with(&id[..20]),
                "the drawn id starts with the id's start: {drawn}"
            );
        }
    }
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
    c.load(&s.url);
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
        c.load(&format!("{}{path}", s.base));
        assert_eq!(c.errors_since(from), Vec::<String>::new(), "/{path}");
        let png = c.screenshot();
        assert_not_blank(&png, 1280, name);
        std::fs::write(out.join(format!("{name}.png")), png).unwrap();
    }
    c.viewport(390, 844, true);
    c.load(&s.url);
    std::fs::write(out.join("overview-phone.png"), c.screenshot()).unwrap();

    // A session whose stop the test gate blocked: its timeline, from the prompt to the follow-up
    // the stop sent the agent and the gate's output.
    let (w, _) = blocked_stop_world();
    let s = Served::start(&w);
    c.viewport(1280, 1000, false);
    c.load(&s.url);
    let from = c.events.len();
    c.load(&format!("{}sessions/{BLOCKED}", s.base));
    assert_eq!(c.errors_since(from), Vec::<String>::new(), "the blocked stop's session page");
    c.eval("window.scrollTo(0, document.getElementById('timeline').getBoundingClientRect().top + window.scrollY - 60)");
    let png = c.screenshot();
    assert_not_blank(&png, 1280, "session-timeline");
    std::fs::write(out.join("session-timeline.png"), png).unwrap();
}
