//! `tlc mode [paired|solo|focus]`, `tlc pause`, `tlc resume`: the operator state in the project
//! database (`state` keys `mode` and `paused`).

use super::mutating::Mutation;
use super::Ctx;
use crate::policy::{OperatorState, Posture};
use crate::render;

#[derive(Debug, clap::Args)]
pub(crate) struct ModeArgs {
    /// The posture to set: paired, solo or focus. Without it, print the running posture (read-only).
    pub posture: Option<String>,
}

pub(crate) fn mode(ctx: &Ctx, args: ModeArgs) -> anyhow::Result<()> {
    let Some(word) = args.posture else {
        let st = super::status::gather(ctx)?;
        return render::out(&format!("{} (from {})\n", st.posture, st.posture_source));
    };
    let Some(posture) = Posture::parse(&word) else {
        return Err(crate::error::unusable(format!(
            "{word:?} is not a posture: use paired, solo or focus"
        )));
    };
    let m = Mutation::begin(ctx, "mode")?;
    OperatorState::new(m.store.conn()).set_mode(posture)?;
    m.finish()?;
    let cfg = ctx.config()?;
    let r = crate::policy::resolve_for(Some(posture.as_str()), cfg);
    render::out(&format!(
        "posture: {} (mode state in {})\n",
        r.posture.as_str(),
        m.store.path().display()
    ))
}

pub(crate) fn pause(ctx: &Ctx, paused: bool) -> anyhow::Result<()> {
    let m = Mutation::begin(ctx, if paused { "pause" } else { "resume" })?;
    OperatorState::new(m.store.conn()).set_paused(paused)?;
    m.finish()?;
    render::out(if paused {
        "stop checks paused (grind and ship challenge); `tlc resume` turns them back on\n"
    } else {
        "stop checks resumed\n"
    })
}
