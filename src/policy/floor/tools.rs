//! The floor on the file tools (Read, Write, Edit, Delete) and MCP tools.

use super::*;

impl Floor<'_> {
    pub(super) fn file_read(&self, path: &str) -> Option<Finding> {
        let p = self.absolute(path);
        for form in self.forms(&p) {
            if let Some(why) = self.is_secret(&form) {
                return Some(Finding::new(
                    Rule::SecretAccess,
                    format!("{why}; reading it would copy them into the transcript. Credentials do not belong in an agent's context."),
                    format!("read of {}", p.display()),
                ));
            }
        }
        None
    }

    /// A write tool (Write, Edit, MultiEdit, NotebookEdit, a delete): judged like the shell route
    /// to the same file (issue 51). Refused into the protected set, into a credential folder, and
    /// anywhere outside the project and the temp folders — the file tools are for the project's
    /// files; a file of the home is the operator's.
    pub(super) fn file_write(&self, path: &str, verb: &str) -> Option<Finding> {
        let p = self.absolute(path);
        let forms = self.forms(&p);
        for form in &forms {
            if self.on_surface(form) {
                return Some(surface_denial(
                    format!(
                        "a {verb} of {} writes tlc's policy or state, the clients' settings, the operator's start-up files or the repository's git hooks and config, which are the operator's to change.",
                        p.display()
                    ),
                    format!("{verb} of {}", p.display()),
                ));
            }
        }
        for form in &forms {
            if let Some(dir) = self.credential_folder(form) {
                return Some(Finding::new(
                    Rule::SecretAccess,
                    format!(
                        "{} is under {}, where credentials and login keys live; a {verb} there changes who can log in or what the operator's tools are allowed to do. Credentials are the operator's to change.",
                        p.display(),
                        dir.display()
                    ),
                    format!("{verb} of {} (a credential folder)", p.display()),
                ));
            }
        }
        if !forms.iter().all(|f| self.in_zone(f)) {
            let (where_, note) = self.zone_name(&forms[1]);
            return Some(Finding::new(
                Rule::OutsideProjectDestruction,
                format!(
                    "a {verb} of {} writes {where_}; the file tools write inside the project (and the temp folders). If the operator wants this file changed, say what and why.",
                    p.display()
                ),
                format!("{verb} of {} ({note})", p.display()),
            ));
        }
        None
    }

    pub(super) fn file_remove(&self, path: &str) -> Option<Finding> {
        let p = self.absolute(path);
        self.destruction_target(&Target::Path(p), path, "a delete", Effect::Remove, None)
    }

    pub(super) fn mcp(&self, tool: &str, input: Option<&Value>) -> Option<Finding> {
        let lower = tool.to_ascii_lowercase();
        let reads_only = [
            "read", "get", "list", "search", "view", "find", "query", "fetch", "show", "describe",
        ]
        .iter()
        .any(|v| lower.rsplit("__").next().unwrap_or(&lower).starts_with(v));
        let mut strings = Vec::new();
        if let Some(v) = input {
            collect_strings(v, &mut strings, 0);
        }
        for s in strings {
            if let Some(host) = METADATA_HOSTS.iter().find(|h| s.contains(*h)) {
                return Some(Finding::new(
                    Rule::SecretAccess,
                    format!("{host} is a cloud metadata endpoint; the MCP tool `{tool}` would copy the credentials it serves into the transcript."),
                    format!("{tool} to {host}"),
                ));
            }
            if s.len() > 4096 || s.contains('\n') {
                continue;
            }
            let p = self.absolute(s);
            for form in self.forms(&p) {
                if !reads_only && self.on_surface(&form) {
                    return Some(surface_denial(
                        format!(
                            "the MCP tool `{tool}` names {}, tlc's policy or state, and is not a read.",
                            p.display()
                        ),
                        format!("{tool} on {}", p.display()),
                    ));
                }
                if let Some(why) = self.is_secret(&form) {
                    return Some(Finding::new(
                        Rule::SecretAccess,
                        format!("{why}; the MCP tool `{tool}` would copy them into the transcript."),
                        format!("{tool} on {}", p.display()),
                    ));
                }
            }
        }
        None
    }

    // ---- shell ----
}
