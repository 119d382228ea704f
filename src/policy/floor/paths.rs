//! Words to paths: what a word names before the command runs, the zones a path may be in (the
//! project, the temp folders, the homes), the policy surface, and credentials.

use super::*;

impl Floor<'_> {
    pub(super) fn resolve(&self, w: &Word) -> Target {
        let mut text = String::new();
        let mut pattern = false;
        for p in &w.pieces {
            match p {
                Piece::Lit(s) => {
                    if s.contains(['*', '?', '[']) || (s.contains('{') && s.contains('}')) {
                        pattern = true;
                    }
                    text.push_str(s);
                }
                Piece::Quoted(s) => text.push_str(s),
                Piece::Tilde(u) if text.is_empty() => {
                    if u.is_empty() && self.reassigned.borrow().contains(&"HOME") {
                        return Target::Unknown;
                    }
                    let home = if u.is_empty() {
                        self.ctx.home.clone()
                    } else {
                        self.ctx.world.user_home(u)
                    };
                    match home {
                        Some(h) => text.push_str(&h.display().to_string()),
                        None => return Target::Unknown,
                    }
                }
                Piece::Param(name) if text.is_empty() => {
                    let name = name.trim_start_matches("${").trim_end_matches('}');
                    // `${TMPDIR:-/tmp}`: the default when the variable is unset (or empty).
                    let (name, default) = match name.split_once(":-") {
                        Some((n, d)) if !d.contains(['$', '`']) => (n, Some(d)),
                        _ => (name, None),
                    };
                    if self.reassigned.borrow().contains(&name) {
                        return Target::Unknown;
                    }
                    let value = match name {
                        "HOME" => self.ctx.home.clone(),
                        "PWD" => self.cwd.borrow().clone(),
                        "TMPDIR" => self.ctx.tmpdir.clone(),
                        _ => None,
                    };
                    let known = matches!(name, "HOME" | "PWD" | "TMPDIR");
                    let value = match (value, default) {
                        (Some(v), _) => Some(v),
                        (None, Some(d)) if known && !d.is_empty() => Some(PathBuf::from(d)),
                        (None, _) => None,
                    };
                    match value {
                        Some(v) => text.push_str(&v.display().to_string()),
                        None => return Target::Unknown,
                    }
                }
                _ => return Target::Unknown,
            }
        }
        if text.is_empty() {
            return Target::Unknown;
        }
        // A relative path under a folder only known at run time (`cd "$X" && rm -rf build`).
        if !text.starts_with('/') && self.cwd.borrow().is_none() {
            return Target::Unknown;
        }
        if pattern {
            let cut = text.find(['*', '?', '[', '{']).unwrap_or(text.len());
            let dir = match text[..cut].rfind('/') {
                Some(0) => "/".to_string(),
                Some(i) => text[..i].to_string(),
                None => ".".to_string(),
            };
            return Target::Pattern(self.absolute(&dir), self.absolute(&text).display().to_string());
        }
        Target::Path(self.absolute(&text))
    }

    /// `text` as an absolute path: relative to the folder the command runs in (the hook's own
    /// when that folder is only known at run time: [`Floor::resolve`] says `Unknown` first).
    pub(super) fn absolute(&self, text: &str) -> PathBuf {
        let cwd = self.cwd.borrow();
        crate::pathtext::normalize_in(cwd.as_deref().unwrap_or(&self.ctx.cwd), Path::new(text))
    }

    /// The path with the symlinks of its existing part followed. Walked one component at a time
    /// from the root, each prefix asked of the world once per evaluation; the first prefix that
    /// does not exist ends the asking (nothing below it can), so a line naming many paths in one
    /// folder costs a question per new folder, not a walk per path.
    pub(super) fn canonical(&self, p: &Path) -> PathBuf {
        use std::ffi::{OsStr, OsString};
        use std::os::unix::ffi::OsStrExt;
        use std::path::Component;
        if let Some((c, _)) = self.resolved.borrow().get(p.as_os_str()) {
            return c.clone();
        }
        let normalized;
        // Most paths come normalised (from `resolve`): checked by a byte scan, not components.
        let p = if crate::pathtext::is_normal_absolute(p.as_os_str().as_bytes()) {
            p
        } else {
            // Relative paths and `..` after a link would need the filesystem's own walk.
            if !p.is_absolute() || p.components().any(|c| matches!(c, Component::ParentDir | Component::CurDir)) {
                return self.ctx.world.canonicalize(p).unwrap_or_else(|| p.to_path_buf());
            }
            // Only `//` or a trailing `/` left to fold: the walk below reads the path's bytes as
            // `/`-separated names, each prefix (`/a`, `/a/b`, …) a key of `resolved`.
            normalized = normalize(p);
            normalized.as_path()
        };
        let b = p.as_os_str().as_bytes();
        let mut resolved = PathBuf::from("/");
        let mut start = 1;
        // The walk starts below the longest prefix already walked (most paths of a line share
        // their folders), so the prefixes above it are neither looked up nor copied again.
        {
            let known = self.resolved.borrow();
            let mut end = b.len();
            while let Some(slash) = b[..end].iter().rposition(|&c| c == b'/').filter(|&k| k > 0) {
                end = slash;
                if let Some((r, exists)) = known.get(OsStr::from_bytes(&b[..end])) {
                    if !exists {
                        // Nothing is below a name that is not there.
                        let mut out = r.clone();
                        out.push(OsStr::from_bytes(&b[end + 1..]));
                        return out;
                    }
                    resolved.clone_from(r);
                    start = end + 1;
                    break;
                }
            }
        }
        while start < b.len() {
            let end = b[start..].iter().position(|&c| c == b'/').map_or(b.len(), |k| start + k);
            let prefix = OsStr::from_bytes(&b[..end]);
            let cached = self.resolved.borrow().get(prefix).cloned();
            let (r, exists) = match cached {
                Some(known) => known,
                None => {
                    let joined = resolved.join(OsStr::from_bytes(&b[start..end]));
                    let found = match self.entry(&joined) {
                        None => (joined, false),
                        Some(false) => (joined, true),
                        // A dangling link keeps its own name, as nothing is behind it.
                        Some(true) => match self.ctx.world.canonicalize(&joined) {
                            Some(target) => (target, true),
                            None => (joined, false),
                        },
                    };
                    self.resolved.borrow_mut().insert(OsString::from(prefix), found.clone());
                    found
                }
            };
            resolved = r;
            start = end + 1;
            if !exists {
                break;
            }
        }
        if start < b.len() {
            resolved.push(OsStr::from_bytes(&b[start..]));
        }
        resolved
    }
    /// Both spellings of a path: as written (normalised) and as the filesystem resolves it.
    pub(super) fn forms(&self, p: &Path) -> [PathBuf; 2] {
        [p.to_path_buf(), self.canonical(p)]
    }

    /// The path as written, and as resolved when its last part is a symlink: for the checks that
    /// look at every argument of a command (a full resolution per word costs a walk per word).
    pub(super) fn forms_cheap(&self, p: &Path) -> Vec<PathBuf> {
        let mut out = vec![p.to_path_buf()];
        if self.entry(p) == Some(true) {
            out.push(self.canonical(p));
        }
        out
    }

    /// What is at the path, its last component not followed (see `World::entry`), asked of the
    /// world once per evaluation.
    pub(super) fn entry(&self, p: &Path) -> Option<bool> {
        use std::ffi::OsStr;
        use std::os::unix::ffi::OsStrExt;
        if let Some(known) = self.entries.borrow().get(p.as_os_str()) {
            return *known;
        }
        // Nothing can be below a folder already found missing: not asked again. (The text up to
        // the last `/` names a folder `p` is under, whatever the path's form.)
        let b = p.as_os_str().as_bytes();
        let parent_missing = b
            .iter()
            .rposition(|&c| c == b'/')
            .filter(|&k| k > 0)
            .is_some_and(|k| self.entries.borrow().get(OsStr::from_bytes(&b[..k])) == Some(&None));
        let found = if parent_missing { None } else { self.ctx.world.entry(p) };
        self.entries.borrow_mut().insert(p.as_os_str().to_os_string(), found);
        found
    }

    /// Inside the project, or inside a temp folder but not inside a home folder: a home that lives
    /// under the temp folder (a CI runner's, a container's, a test's) keeps its files.
    pub(super) fn in_zone(&self, p: &Path) -> bool {
        let c = &self.ctx.canonical;
        let strictly_under = |z: &PathBuf| !same(p, z) && under(p, z);
        if [Some(&self.ctx.project), c.project.as_ref()]
            .into_iter()
            .flatten()
            .any(strictly_under)
        {
            return true;
        }
        let homes = [
            self.ctx.home.as_ref(),
            c.home.as_ref(),
            Some(&self.ctx.tlc_home),
            c.tlc_home.as_ref(),
        ];
        let in_home = homes.into_iter().flatten().any(|h| under(p, h));
        !in_home && self.ctx.temp.iter().chain(c.temp.iter()).any(strictly_under)
    }

    /// Where a path outside the zone is, as a reason names it: inside the home (or the runtime
    /// home) whatever folder the home lives in, else outside the project and the temp folders.
    pub(super) fn zone_name(&self, p: &Path) -> (&'static str, &'static str) {
        let c = &self.ctx.canonical;
        if [Some(&self.ctx.tlc_home), c.tlc_home.as_ref()]
            .into_iter()
            .flatten()
            .any(|h| under(p, h))
        {
            return ("inside tlc's runtime home", "inside the runtime home");
        }
        if [self.ctx.home.as_ref(), c.home.as_ref()].into_iter().flatten().any(|h| under(p, h)) {
            return ("inside the home folder, outside the project", "inside the home");
        }
        ("outside the project and outside the temp folders", "outside the project")
    }

    /// Which of the folders never removed `p` is, or holds, in words (`the project itself`, `the
    /// home folder`, `a folder holding the project`, …).
    pub(super) fn protected_name(&self, p: &Path) -> String {
        let c = &self.ctx.canonical;
        let named: [(&str, [Option<&PathBuf>; 2]); 3] = [
            ("the project", [Some(&self.ctx.project), c.project.as_ref()]),
            ("the home folder", [self.ctx.home.as_ref(), c.home.as_ref()]),
            ("tlc's runtime home", [Some(&self.ctx.tlc_home), c.tlc_home.as_ref()]),
        ];
        for (name, forms) in &named {
            if forms.iter().flatten().any(|f| same(p, f)) {
                return if *name == "the project" {
                    "the project itself".into()
                } else {
                    (*name).to_string()
                };
            }
        }
        for (name, forms) in &named {
            if forms.iter().flatten().any(|f| under(f, p)) {
                return format!("a folder holding {name}");
            }
        }
        "a folder tlc never lets go".into()
    }

    /// The folders whose removal is never inside the project: the project itself, the homes.
    pub(super) fn protected(&self) -> &[PathBuf] {
        &self.ctx.protected
    }

    pub(super) fn on_surface(&self, p: &Path) -> bool {
        self.ctx.surface().iter().any(|s| under(p, s))
    }

    /// Whether the path is a folder that holds the policy surface (but not the project or above).
    pub(super) fn holds_surface(&self, p: &Path) -> bool {
        !self.protected().iter().any(|r| under(r, p)) && self.ctx.surface().iter().any(|s| !same(s, p) && under(s, p))
    }

    /// The credential folder `p` is under (`~/.ssh`, `~/.aws`, …), where nothing is written.
    pub(super) fn credential_folder(&self, p: &Path) -> Option<&Path> {
        self.ctx.secret_dirs.iter().find(|d| under(p, d)).map(PathBuf::as_path)
    }

    pub(super) fn is_secret(&self, p: &Path) -> Option<String> {
        let name = p.file_name()?.to_string_lossy().to_string();
        let templates = [".example", ".sample", ".template", ".dist", ".defaults"];
        if (name == ".env" || name.starts_with(".env.")) && !templates.iter().any(|t| name.ends_with(t)) {
            return Some(format!("{} holds environment secrets", p.display()));
        }
        if [
            ".git-credentials",
            ".netrc",
            ".pgpass",
            "id_rsa",
            "id_dsa",
            "id_ecdsa",
            "id_ed25519",
            ".vault-token",
        ]
        .contains(&name.as_str())
            || [".pem", ".p12", ".pfx", ".keychain", ".keychain-db"]
                .iter()
                .any(|s| name.ends_with(s))
        {
            return Some(format!("{} holds credentials", p.display()));
        }
        let ssh = self.ctx.secret_dirs.first();
        for d in &self.ctx.secret_dirs {
            if under(p, d) && !(Some(d) == ssh && (name.ends_with(".pub") || name == "known_hosts")) {
                return Some(format!("{} is under {}, where credentials live", p.display(), d.display()));
            }
        }
        None
    }

    // ---- tool events ----
}

/// The most programs a pattern in a program word may name before the command is refused.
const MAX_PROGRAM_MATCHES: usize = 16;

impl Floor<'_> {
    /// A program word that is a pattern (`/bin/r[m]`, `./scr*`): the commands it may run, one per
    /// program the pattern names here, each judged as if written out (bash runs the first match
    /// with the others as arguments; judging every match as the program covers that and more).
    /// `Ok(None)` when the program word is no pattern; a pattern that names nothing, or more than
    /// [`MAX_PROGRAM_MATCHES`], is refused: what would run cannot be established.
    pub(super) fn program_glob(&self, cmd: &Command, inv: &Invocation<'_>) -> Result<Option<Vec<Command>>, Finding> {
        let Some(word) = inv.program_word.filter(|w| has_live_glob(w)) else {
            return Ok(None);
        };
        let Some(at) = cmd.words.iter().position(|w| std::ptr::eq(w, word)) else {
            return Ok(None);
        };
        let refuse = |why: &str| {
            Finding::new(
                Rule::UnprovableExecution,
                format!("the program this command runs is a pattern (`{}`) that {why}, so what runs cannot be established. Name the program literally.", word.text()),
                "a program named by a pattern",
            )
        };
        let text = match self.resolve(word) {
            Target::Pattern(_, pattern) => pattern,
            _ => return Err(refuse("the floor cannot resolve")),
        };
        let matches = self.glob_paths(&text, MAX_PROGRAM_MATCHES + 1);
        if matches.is_empty() {
            return Err(refuse("matches no file here"));
        }
        if matches.len() > MAX_PROGRAM_MATCHES {
            return Err(refuse("matches too many files"));
        }
        let relative = !word.literal().is_some_and(|t| t.starts_with('/')) && !matches!(word.pieces.first(), Some(Piece::Tilde(_)));
        Ok(Some(
            matches
                .into_iter()
                .map(|m| {
                    let mut c = cmd.clone();
                    // A relative match without a `/` (`r[m]` matching `./rm`) is looked up on the
                    // PATH, as bash does with the word it expands to.
                    let shown = match (relative, m.strip_prefix(self.cwd.borrow().as_deref().unwrap_or(&self.ctx.cwd))) {
                        (true, Ok(rel)) => rel.display().to_string(),
                        _ => m.display().to_string(),
                    };
                    c.words[at] = Word {
                        pieces: vec![Piece::Quoted(shown)],
                    };
                    c
                })
                .collect(),
        ))
    }

    /// The existing paths an absolute pattern names, one component at a time, at most `cap`
    /// (sorted, as bash sorts them). A `*` or `?` does not match a leading `.`, as in bash.
    pub(super) fn glob_paths(&self, pattern: &str, cap: usize) -> Vec<PathBuf> {
        let mut found = vec![PathBuf::from("/")];
        for part in pattern.split('/').filter(|p| !p.is_empty()) {
            let live = part.contains(['*', '?', '[']);
            let mut next = Vec::new();
            for dir in &found {
                if !live {
                    let p = dir.join(part);
                    if self.ctx.world.entry(&p).is_some() {
                        next.push(p);
                    }
                    continue;
                }
                let mut names = self.ctx.world.names_in(dir);
                names.sort();
                for n in names {
                    if n.starts_with('.') && !part.starts_with('.') {
                        continue;
                    }
                    if shell_glob_match(part, &n) {
                        next.push(dir.join(n));
                    }
                }
            }
            if next.len() > cap {
                next.truncate(cap);
            }
            found = next;
            if found.is_empty() {
                break;
            }
        }
        found
    }
}

/// Whether an unquoted part of the word holds a pattern character bash expands against files.
fn has_live_glob(w: &Word) -> bool {
    w.pieces.iter().any(|p| match p {
        Piece::Lit(s) => s.contains(['*', '?']) || s.find('[').is_some_and(|open| s[open + 1..].contains(']')),
        _ => false,
    })
}
