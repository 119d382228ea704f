//! `tlc status [--json]`: posture, rails, paused stop checks, live sessions, policy divergence.
//! Read-only: opens the project database only if it exists, creates nothing.

use super::Ctx;
use crate::policy::catalog::{self, RailState};
use crate::policy::integrity::{self, Divergence, IntegrityStore, LiveSession};
use crate::policy::{OperatorState, PostureResolution};
use crate::render::{self, Cell, Role, Table, Tone};
use crate::store::{self, DbKind};

#[derive(Debug, clap::Args)]
pub(crate) struct StatusArgs {
    // JSON carries everything below; csv, jsonl and markdown carry the rails.
    #[command(flatten)]
    pub output: crate::cli::OutputArgs,
}

/// A posture word that was refused, and where it was found (`config` or `mode-state`).
#[derive(Debug, serde::Serialize)]
pub(crate) struct Rejected {
    pub word: String,
    pub found_in: &'static str,
}

#[derive(Debug, serde::Serialize)]
pub(crate) struct Status {
    pub root: String,
    pub guest: bool,
    pub adopted: bool,
    pub project_db: String,
    /// The running posture, where it came from, and a word refused on the way.
    pub posture: &'static str,
    pub posture_source: &'static str,
    pub rejected: Option<Rejected>,
    #[serde(skip)]
    pub resolution: PostureResolution,
    pub rails: Vec<RailState>,
    /// The stop rails that act now (empty: a stop is let through with nothing checked).
    pub stop_checks: Vec<&'static str>,
    pub paused: bool,
    /// Whether any session's policy has been baselined (false before the first session).
    pub baselined: bool,
    pub live_sessions: Vec<LiveSession>,
    pub policy_diverged: bool,
    pub divergences: Vec<Divergence>,
    /// Issue 51: what keeps tlc's state out of the agent's reach, per provider and for tlc's
    /// own children.
    pub boundary: crate::hook::boundary::BoundaryReport,
}

/// Reads everything `status` shows without writing.
pub(crate) fn gather(ctx: &Ctx) -> anyhow::Result<Status> {
    let cfg = ctx.config()?;
    let project = ctx.project()?;
    let s = &cfg.settings;
    let (mut mode, mut paused, mut live, mut divergences) = (None, false, Vec::new(), Vec::new());
    let mut baselined = false;
    if let Some(store) = store::open_read(DbKind::Project, &project.db_path())? {
        let conn = store.conn();
        let state = OperatorState::new(conn);
        mode = state.mode()?;
        paused = state.paused()?;
        let st = IntegrityStore::new(conn);
        live = st.live_sessions()?;
        baselined = st.any_baseline()?;
        divergences = st.current_divergences(&integrity::current_sources(conn, &project.paths)?)?;
    }
    let resolution = crate::policy::resolve_for(mode.as_deref(), cfg);
    let mut rails = catalog::rails(s, resolution.posture);
    if s.rules.enabled {
        catalog::count_rules(&mut rails, crate::policy::rules::load(&project.paths).active().len());
    }
    Ok(Status {
        root: project.root().display().to_string(),
        guest: project.guest,
        adopted: project.paths.project_config().is_file(),
        project_db: project.db_path().display().to_string(),
        posture: resolution.posture.as_str(),
        posture_source: resolution.source,
        rejected: resolution.rejected.clone().map(|(word, found_in)| Rejected { word, found_in }),
        resolution,
        stop_checks: catalog::acting_stop_checks(&rails),
        rails,
        paused,
        baselined,
        policy_diverged: !divergences.is_empty(),
        live_sessions: live,
        divergences,
        boundary: crate::hook::boundary::report(&project.paths),
    })
}

pub(crate) fn run(ctx: &Ctx, args: StatusArgs) -> anyhow::Result<()> {
    let output = args.output.output()?;
    let st = gather(ctx)?;
    if output.format == render::Format::Json {
        return render::json(&st);
    }
    let mut t = Table::new(["rail", "kind", "switch", "setting", "acts"]).roles([Role::Text, Role::Key, Role::Text, Role::Key, Role::Text]);
    for r in &st.rails {
        t.push(vec![
            r.rail.into(),
            r.kind.into(),
            r.key.into(),
            Cell::Text(if r.on { "on" } else { "off" }.into()),
            Cell::Text(catalog::acts_text(r)),
        ]);
        // A rail switched on that decides nothing yet is worth a look.
        if r.on && !r.acts {
            t.tone_last(4, Tone::Warn);
        }
    }
    if output.format != render::Format::Table {
        return t.print(output);
    }
    let p = &st.resolution;
    // Every part from outside tlc is escaped (the root here, the rest through `paint`), so the
    // lines go out as they are, colours included.
    let mut out = format!(
        "repository: {}{}\n",
        render::escape_controls(&st.root),
        if st.guest { " (guest: state under the home)" } else { "" }
    );
    out.push_str(&format!(
        "adopted: {}\n",
        if st.adopted {
            "yes"
        } else {
            "no (the first hook or mutating command adopts it)"
        }
    ));
    out.push_str(&format!("posture: {} (from {})\n", p.posture.as_str(), p.source));
    if let Some((word, from)) = &p.rejected {
        out.push_str(&render::paint(
            &format!(
                "  rejected: {word:?} in {from} is not a posture; running {} in its place",
                p.posture.as_str()
            ),
            Tone::Warn,
        ));
        out.push('\n');
    }
    out.push_str(&format!(
        "stop checks: {}\n",
        if st.paused {
            render::paint("paused (`tlc resume` turns them back on)", Tone::Warn)
        } else if st.stop_checks.is_empty() {
            "none configured (`tlc gate test-command <cmd>` turns one on)".to_string()
        } else {
            format!("on: {}", st.stop_checks.join(", "))
        }
    ));
    out.push_str(&format!(
        "policy: {}\n",
        if st.policy_diverged {
            let paths: std::collections::BTreeSet<&str> = st.divergences.iter().map(|d| d.source.as_str()).collect();
            render::paint(
                &format!("DIVERGED: {} (see `tlc policy`)", paths.into_iter().collect::<Vec<_>>().join(", ")),
                Tone::Bad,
            )
        } else if !st.baselined {
            "not yet baselined (the first session records it)".to_string()
        } else {
            "as baselined".to_string()
        }
    ));
    // One short line each: the whole of it is in `--json` and `tlc doctor`.
    for b in st.boundary.providers.iter().filter(|b| b.wired) {
        let line = if b.agent_commands == "kernel" {
            format!("boundary ({}): kernel ({}'s sandbox)", b.provider, b.product)
        } else {
            render::paint(
                &format!(
                    "boundary ({}): recognition only, {} routes open (see `tlc doctor`)",
                    b.provider,
                    b.open_routes.len()
                ),
                Tone::Warn,
            )
        };
        out.push_str(&line);
        out.push('\n');
    }
    out.push_str(&if st.boundary.gates == "bubblewrap" {
        "gates: sandboxed (bubblewrap)\n".to_string()
    } else {
        format!(
            "{}\n",
            render::paint("gates: NOT sandboxed (no bubblewrap; see `tlc doctor`)", Tone::Warn)
        )
    });
    out.push_str(&format!("live sessions: {}\n", st.live_sessions.len()));
    render::out_escaped(&out)?;
    t.print(output)?;
    if !st.live_sessions.is_empty() {
        let mut t = Table::new(["provider", "session", "first seen", "last seen", "model"])
            .roles([Role::Key, Role::Id, Role::Date, Role::Date, Role::Text])
            .droppable(&["first seen", "provider"]);
        for s in &st.live_sessions {
            t.push(vec![
                s.provider.clone().into(),
                s.session_id.clone().into(),
                s.first_seen.clone().into(),
                s.last_seen.clone().into(),
                s.model.clone().into(),
            ]);
        }
        t.print(output)?;
    }
    Ok(())
}
