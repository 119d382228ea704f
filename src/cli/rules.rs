//! `tlc rules [--json]`: the operator's rule files of both tiers — name, tier, trigger,
//! requirements, verdict, file, and whether each is active, shadowed, switched off, disabled or
//! broken (with its error). Read-only: it reads the two folders and creates nothing. Exit 1 when a
//! rule file is broken (it enforces nothing).

use super::{Ctx, OutputArgs};
use crate::policy::rules::{self, RuleFile, RuleSet};
use crate::render::{self, Cell, Role, Table, Tone};
use serde_json::{json, Value};

#[derive(Debug, clap::Args)]
pub(crate) struct RulesArgs {
    #[command(flatten)]
    pub output: OutputArgs,
}

/// One rule file as JSON.
fn file_json(f: &RuleFile) -> Value {
    let rule = f.rule.as_ref().ok();
    let spec = rule.and_then(|r| r.spec.as_ref());
    json!({
        "name": f.name,
        "tier": f.tier.as_str(),
        "path": f.path.display().to_string(),
        "state": f.state.as_str(),
        "by": f.state.by().map(|p| p.display().to_string()),
        "enabled": rule.map(|r| r.enabled),
        "on": spec.map(|s| s.on.to_string()),
        "require": spec.map(|s| s.require.iter().map(ToString::to_string).collect::<Vec<_>>()),
        "otherwise": spec.map(|s| s.otherwise.as_str()),
        "rule": f.rule_name(),
        "body": rule.map(|r| r.body.as_str()),
        "error": f.rule.as_ref().err(),
    })
}

/// The whole listing as JSON: the switch, both folders, every file.
pub(crate) fn to_json(enabled: bool, set: &RuleSet) -> Value {
    json!({
        "enabled": enabled,
        "active": set.active().len(),
        "broken": set.broken().count(),
        "folders": set.folders,
        "rules": set.files.iter().map(file_json).collect::<Vec<_>>(),
    })
}

fn state_text(f: &RuleFile) -> String {
    match f.state.by() {
        Some(by) => format!("{} by {}", f.state.as_str(), by.display()),
        None => f.state.as_str().to_string(),
    }
}

pub(crate) fn run(ctx: &Ctx, args: RulesArgs) -> anyhow::Result<()> {
    let output = args.output.output()?;
    let enabled = ctx.config()?.settings.rules.enabled;
    let set = rules::load(ctx.paths()?);
    let broken = set.broken().count();
    if output.format == render::Format::Json {
        render::json(&to_json(enabled, &set))?;
    } else {
        let mut t = Table::new(["rule", "tier", "on", "require", "otherwise", "state", "file"])
            .roles([Role::Key, Role::Key, Role::Text, Role::Prose, Role::Key, Role::Text, Role::Text])
            .droppable(&["file"]);
        for f in &set.files {
            let spec = f.rule.as_ref().ok().and_then(|r| r.spec.as_ref());
            t.push(vec![
                f.name.clone().into(),
                f.tier.as_str().into(),
                Cell::Text(spec.map_or(String::new(), |s| s.on.to_string())),
                Cell::Text(spec.map_or(String::new(), |s| {
                    s.require.iter().map(ToString::to_string).collect::<Vec<_>>().join(", ")
                })),
                Cell::Text(spec.map_or(String::new(), |s| s.otherwise.as_str().to_string())),
                Cell::Text(state_text(f)),
                f.path.display().to_string().into(),
            ]);
            match f.state {
                rules::State::Broken => t.tone_last(5, Tone::Bad),
                rules::State::Active => t.tone_last(5, Tone::Good),
                _ => {}
            }
        }
        if output.format != render::Format::Table {
            t.print(output)?;
        } else {
            let mut head = format!(
                "rules.enabled: {}\n",
                if enabled {
                    "on"
                } else {
                    "off (nothing below is enforced until it is on)"
                }
            );
            for folder in &set.folders {
                head.push_str(&format!(
                    "{} rules: {}{}\n",
                    folder.tier.as_str(),
                    render::escape_controls(&folder.path.display().to_string()),
                    if folder.exists { "" } else { " (no such folder)" }
                ));
            }
            render::out_escaped(&head)?;
            if set.files.is_empty() {
                render::out("no rule file\n")?;
            } else {
                t.print(output)?;
            }
            let mut problems: Vec<String> = set.broken().filter_map(RuleFile::error).collect();
            problems.extend(set.folder_problems());
            for p in &problems {
                render::out_escaped(&(render::paint(&format!("error: {p}"), Tone::Bad) + "\n"))?;
            }
            if broken > 0 {
                render::out(&format!("{broken} broken rule file(s) enforce nothing\n"))?;
            }
        }
    }
    if broken > 0 {
        return Err(crate::error::silent_failure());
    }
    Ok(())
}
