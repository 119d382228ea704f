//! Skill tiers of one harness, lowest first: the package bundle, the adapter's defaults (an
//! `[adapter.<name>]` table's `skill_paths`), the machine tier's `skill_paths` on the table,
//! the project tier's `skill_paths`, and the project-local folders `.tlc/harness/skills/` and
//! `.claude/skills/` (highest). A skill is a folder holding `SKILL.md`; a name found in several
//! tiers resolves to the highest, and the others are listed as shadowed.

use super::resolve::ResolvedHarness;
use crate::config::{Config, Tier, Value};
use crate::paths::Paths;
use std::path::{Path, PathBuf};

#[derive(Debug, Clone, serde::Serialize)]
pub(crate) struct Copy {
    pub tier: &'static str,
    pub path: String,
}

#[derive(Debug, Clone, serde::Serialize)]
pub(crate) struct Skill {
    pub name: String,
    pub tier: &'static str,
    pub path: String,
    /// Lower-tier copies this one hides.
    pub shadowed: Vec<Copy>,
}

fn expand(p: &str, base: &Path) -> PathBuf {
    if let Some(rest) = p.strip_prefix("~/") {
        if let Some(h) = std::env::var_os("HOME") {
            return PathBuf::from(h).join(rest);
        }
    }
    let p = PathBuf::from(p);
    if p.is_absolute() {
        p
    } else {
        base.join(p)
    }
}

/// Skills (folders with SKILL.md) directly under `dir`.
fn skills_in(dir: &Path) -> Vec<(String, PathBuf)> {
    let mut out: Vec<(String, PathBuf)> = std::fs::read_dir(dir)
        .map(|it| {
            it.flatten()
                .filter(|e| e.path().join("SKILL.md").is_file())
                .map(|e| (e.file_name().to_string_lossy().into_owned(), e.path()))
                .collect()
        })
        .unwrap_or_default();
    out.sort();
    out
}

/// Every skill of `h`, highest tier winning.
pub(crate) fn tiers(paths: &Paths, cfg: &Config, h: &ResolvedHarness) -> Vec<Skill> {
    let mut dirs: Vec<(&'static str, PathBuf)> = Vec::new();
    if let (Some(pin), Some(m)) = (&h.pin_dir, &h.manifest) {
        if m.requests.skill_paths {
            dirs.push(("package", pin.join("skills")));
        }
        for p in m.harness.get("skill_paths").and_then(Value::as_strings).unwrap_or_default() {
            dirs.push(("package", pin.join(p.trim_start_matches("./"))));
        }
    }
    if let Some(adapter) = h.values.get("harness").and_then(|(v, _)| v.as_str()) {
        for t in cfg.named("adapter").filter(|t| t.name == adapter) {
            for p in t.get("skill_paths").and_then(Value::as_strings).unwrap_or_default() {
                dirs.push(("adapter", expand(&p, &paths.home)));
            }
        }
    }
    for t in cfg.named("harness").filter(|t| t.name == h.name) {
        let (tier, base) = match t.tier {
            Tier::Project => ("project", paths.root.clone()),
            _ => ("global", paths.home.clone()),
        };
        for p in t.get("skill_paths").and_then(Value::as_strings).unwrap_or_default() {
            dirs.push((tier, expand(&p, &base)));
        }
    }
    if !paths.root_overlaps_home() {
        dirs.push(("project-local", paths.project_harness_dir().join("skills")));
        dirs.push(("project-local", paths.root.join(".claude").join("skills")));
    }
    let mut out: Vec<Skill> = Vec::new();
    // Lowest first: each later (higher) copy takes over and shadows the earlier one.
    for (tier, dir) in dirs {
        for (name, path) in skills_in(&dir) {
            let path = path.display().to_string();
            match out.iter_mut().find(|s| s.name == name) {
                Some(s) if s.path != path => {
                    s.shadowed.insert(
                        0,
                        Copy {
                            tier: s.tier,
                            path: std::mem::replace(&mut s.path, path),
                        },
                    );
                    s.tier = tier;
                }
                Some(_) => {}
                None => out.push(Skill {
                    name,
                    tier,
                    path,
                    shadowed: Vec::new(),
                }),
            }
        }
    }
    out.sort_by(|a, b| a.name.cmp(&b.name));
    out
}
