//! The floor on the file tools (Read, Write, Edit, Delete) and MCP tools.

use super::*;

/// Words in an MCP tool's name that make it a write, whatever verb it starts with.
const WRITE_WORDS: &[&str] = &[
    "save", "write", "put", "create", "update", "delete", "remove", "move", "rename", "copy", "upload", "download", "edit", "append",
    "patch", "set", "store", "replace",
];

/// Argument keys whose string names a file an MCP tool acts on.
const PATH_KEYS: &[&str] = &[
    "path",
    "paths",
    "file",
    "files",
    "file_path",
    "filepath",
    "filename",
    "dest",
    "destination",
    "target",
    "target_path",
    "output",
    "output_path",
    "out",
    "save_path",
    "save_to",
    "to",
    "dir",
    "directory",
    "new_path",
];

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

    /// An MCP tool: its arguments judged as the file tools' would be (issue 53). A tool's name
    /// is the server's word, not a fact: one that says it reads (`get_`, `fetch_`, …) but names a
    /// write (`fetch_and_save`) is a write. Every string is checked for a metadata endpoint, a
    /// secret and (for a write) tlc's protected set; a string under a key that names a path
    /// ([`PATH_KEYS`]) of a write is judged as a Write of that path is.
    pub(super) fn mcp(&self, tool: &str, input: Option<&Value>) -> Option<Finding> {
        let lower = tool.to_ascii_lowercase();
        let name = lower.rsplit("__").next().unwrap_or(&lower);
        let says_read = [
            "read", "get", "list", "search", "view", "find", "query", "fetch", "show", "describe",
        ]
        .iter()
        .any(|v| name.starts_with(v));
        let writes = !says_read || WRITE_WORDS.iter().any(|w| name.contains(w));
        let mut strings = Vec::new();
        if let Some(v) = input {
            collect_keyed(v, None, &mut strings, 0);
        }
        for (key, s) in strings {
            if let Some(host) = METADATA_HOSTS.iter().find(|h| s.contains(*h)) {
                return Some(Finding::new(
                    Rule::SecretAccess,
                    format!("{host} is a cloud metadata endpoint; the MCP tool `{tool}` would copy the credentials it serves into the transcript."),
                    format!("{tool} to {host}"),
                ));
            }
            if s.len() > 4096 || s.contains('\n') || s.is_empty() {
                continue;
            }
            let names_path = key.is_some_and(|k| PATH_KEYS.contains(&k.to_ascii_lowercase().as_str()));
            if writes && names_path {
                if let Some(f) = self.file_write(s, &format!("write by the MCP tool `{tool}`")) {
                    return Some(f);
                }
            }
            let p = self.absolute(s);
            for form in self.forms(&p) {
                if writes && self.on_surface(&form) {
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
