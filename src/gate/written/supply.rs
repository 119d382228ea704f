//! Supply chain: a dependency the turn added (or whose specifier it changed) whose lockfile did
//! not move, or whose specifier names no version (`latest`, `*`, `x`, blank, a branch name).
//!
//! Manifests come from one table pairing each file name with the lockfiles its ecosystem uses
//! (any of them moving counts, in the manifest's folder or above it: a workspace keeps one at its
//! root). A manifest is read by its dependency sections, as it stands before and after the turn,
//! so a rename or a script entry is never a dependency.

use std::collections::BTreeMap;

/// A manifest's dependencies: `section/name` → specifier as written.
pub(crate) type Deps = BTreeMap<String, String>;

/// A manifest that does not parse.
#[derive(Debug, thiserror::Error)]
pub(crate) enum ParseError {
    #[error("not JSON: {0}")]
    Json(#[from] serde_json::Error),
    #[error("not TOML: {0}")]
    Toml(#[from] toml::de::Error),
}

/// A changed manifest that could not be checked, naming it.
#[derive(Debug, thiserror::Error)]
#[error("{manifest}: {cause}")]
pub(crate) struct ManifestError {
    pub manifest: String,
    pub cause: ParseError,
}

/// One manifest kind.
pub(crate) struct Manifest {
    pub file: &'static str,
    pub lockfiles: &'static [&'static str],
    pub parse: fn(&str) -> Result<Deps, ParseError>,
    /// Whether a specifier names no version.
    pub unversioned: fn(&str) -> bool,
}

/// The one table of manifests.
pub(crate) const MANIFESTS: &[Manifest] = &[
    Manifest {
        file: "package.json",
        lockfiles: &[
            "package-lock.json",
            "npm-shrinkwrap.json",
            "yarn.lock",
            "pnpm-lock.yaml",
            "bun.lockb",
            "bun.lock",
        ],
        parse: parse_package_json,
        unversioned: npm_unversioned,
    },
    Manifest {
        file: "pyproject.toml",
        lockfiles: &["poetry.lock", "uv.lock", "pdm.lock", "pylock.toml"],
        parse: parse_pyproject,
        unversioned: toml_unversioned,
    },
    Manifest {
        file: "requirements.txt",
        lockfiles: &[],
        parse: parse_requirements,
        unversioned: pep508_unversioned,
    },
    Manifest {
        file: "Pipfile",
        lockfiles: &["Pipfile.lock"],
        parse: parse_pipfile,
        unversioned: toml_unversioned,
    },
    Manifest {
        file: "Cargo.toml",
        lockfiles: &["Cargo.lock"],
        parse: parse_cargo,
        unversioned: toml_unversioned,
    },
    Manifest {
        file: "go.mod",
        lockfiles: &["go.sum"],
        parse: parse_go_mod,
        unversioned: |_| false,
    },
    Manifest {
        file: "Gemfile",
        lockfiles: &["Gemfile.lock"],
        parse: parse_gemfile,
        unversioned: gem_unversioned,
    },
];

/// The manifest kind of `path` by its file name.
pub(crate) fn manifest_for(path: &str) -> Option<&'static Manifest> {
    let name = path.rsplit('/').next().unwrap_or(path);
    MANIFESTS.iter().find(|m| m.file == name)
}

fn has_digit(s: &str) -> bool {
    s.bytes().any(|b| b.is_ascii_digit())
}

/// A git reference that names no version: none at all, or one with no digit (a branch).
fn git_ref_unversioned(spec: &str) -> bool {
    match spec.rsplit_once('#') {
        Some((_, r)) => !has_digit(r),
        None => true,
    }
}

fn npm_unversioned(spec: &str) -> bool {
    let s = spec.trim();
    if s.starts_with("file:") || s.starts_with("link:") || s.starts_with("workspace:") || s.starts_with("portal:") {
        return false;
    }
    let is_git = s.starts_with("git") || s.starts_with("github:") || s.contains("://") || (s.contains('/') && !s.starts_with("npm:"));
    if is_git {
        return git_ref_unversioned(s);
    }
    matches!(s, "" | "latest" | "*" | "x" | "X") || !has_digit(s)
}

fn pep508_unversioned(spec: &str) -> bool {
    let s = spec.split(';').next().unwrap_or("").trim();
    if let Some((_, url)) = s.split_once(" @ ").or_else(|| s.split_once('@').filter(|(_, u)| u.contains("://"))) {
        return match url.rsplit_once('@') {
            Some((_, r)) if !r.contains('/') => !has_digit(r),
            _ => !url.ends_with(".whl") && !url.ends_with(".tar.gz") && !url.ends_with(".zip"),
        };
    }
    !["==", ">=", "<=", "~=", "!=", "<", ">", "==="].iter().any(|op| s.contains(op))
}

/// A TOML dependency value, flattened to text by [`toml_spec`].
fn toml_unversioned(spec: &str) -> bool {
    if let Some(rest) = spec.strip_prefix("table:") {
        let has = |k: &str| rest.split(';').any(|kv| kv.starts_with(&format!("{k}=")));
        if has("path") || has("workspace") {
            return false;
        }
        if has("git") {
            return !(has("rev") || has("tag"));
        }
        let version = rest.split(';').find_map(|kv| kv.strip_prefix("version=")).unwrap_or("");
        return matches!(version.trim(), "" | "*") || !has_digit(version);
    }
    let s = spec.trim();
    if s.contains(' ') || s.contains('>') || s.contains('<') || s.contains('=') {
        // A PEP 508 string (pyproject's [project] lists).
        return pep508_unversioned(s);
    }
    matches!(s, "" | "*" | "latest") || !has_digit(s)
}

fn gem_unversioned(spec: &str) -> bool {
    let lower = spec.to_lowercase();
    if lower.contains("path:") {
        return false;
    }
    if lower.contains("git:") || lower.contains("github:") {
        return !(lower.contains("tag:") || lower.contains("ref:"));
    }
    !has_digit(spec)
}

fn parse_package_json(text: &str) -> Result<Deps, ParseError> {
    let v: serde_json::Value = serde_json::from_str(text)?;
    let mut deps = Deps::new();
    for section in ["dependencies", "devDependencies", "peerDependencies", "optionalDependencies"] {
        if let Some(obj) = v.get(section).and_then(|s| s.as_object()) {
            for (name, spec) in obj {
                let spec = spec.as_str().map_or_else(|| spec.to_string(), str::to_string);
                deps.insert(format!("{section}/{name}"), spec);
            }
        }
    }
    Ok(deps)
}

/// A TOML value as comparable text: a string as itself, a table as `table:k=v;k=v`.
fn toml_spec(v: &toml::Value) -> String {
    match v {
        toml::Value::String(s) => s.clone(),
        toml::Value::Table(t) => {
            let kv: Vec<String> = t
                .iter()
                .map(|(k, v)| format!("{k}={}", v.as_str().map_or_else(|| v.to_string(), str::to_string)))
                .collect();
            format!("table:{}", kv.join(";"))
        }
        other => other.to_string(),
    }
}

fn toml_table_deps(deps: &mut Deps, prefix: &str, table: Option<&toml::Value>) {
    if let Some(t) = table.and_then(|t| t.as_table()) {
        for (name, spec) in t {
            deps.insert(format!("{prefix}/{name}"), toml_spec(spec));
        }
    }
}

fn parse_cargo(text: &str) -> Result<Deps, ParseError> {
    let v: toml::Value = toml::from_str(text)?;
    let mut deps = Deps::new();
    for section in ["dependencies", "dev-dependencies", "build-dependencies"] {
        toml_table_deps(&mut deps, section, v.get(section));
    }
    toml_table_deps(
        &mut deps,
        "workspace.dependencies",
        v.get("workspace").and_then(|w| w.get("dependencies")),
    );
    if let Some(targets) = v.get("target").and_then(|t| t.as_table()) {
        for (target, body) in targets {
            for section in ["dependencies", "dev-dependencies", "build-dependencies"] {
                toml_table_deps(&mut deps, &format!("target.{target}.{section}"), body.get(section));
            }
        }
    }
    Ok(deps)
}

/// The package name of a PEP 508 requirement.
fn pep508_name(req: &str) -> String {
    req.trim()
        .split(|c: char| !(c.is_alphanumeric() || c == '-' || c == '_' || c == '.'))
        .next()
        .unwrap_or("")
        .to_lowercase()
}

fn parse_pyproject(text: &str) -> Result<Deps, ParseError> {
    let v: toml::Value = toml::from_str(text)?;
    let mut deps = Deps::new();
    let project = v.get("project");
    let list = |deps: &mut Deps, prefix: &str, items: Option<&toml::Value>| {
        for item in items.and_then(|i| i.as_array()).into_iter().flatten() {
            if let Some(req) = item.as_str() {
                deps.insert(format!("{prefix}/{}", pep508_name(req)), req.to_string());
            }
        }
    };
    list(&mut deps, "project.dependencies", project.and_then(|p| p.get("dependencies")));
    if let Some(groups) = project.and_then(|p| p.get("optional-dependencies")).and_then(|g| g.as_table()) {
        for (group, items) in groups {
            list(&mut deps, &format!("project.optional-dependencies.{group}"), Some(items));
        }
    }
    if let Some(groups) = v.get("dependency-groups").and_then(|g| g.as_table()) {
        for (group, items) in groups {
            list(&mut deps, &format!("dependency-groups.{group}"), Some(items));
        }
    }
    let poetry = v.get("tool").and_then(|t| t.get("poetry"));
    toml_table_deps(&mut deps, "tool.poetry.dependencies", poetry.and_then(|p| p.get("dependencies")));
    toml_table_deps(
        &mut deps,
        "tool.poetry.dev-dependencies",
        poetry.and_then(|p| p.get("dev-dependencies")),
    );
    if let Some(groups) = poetry.and_then(|p| p.get("group")).and_then(|g| g.as_table()) {
        for (group, body) in groups {
            toml_table_deps(&mut deps, &format!("tool.poetry.group.{group}"), body.get("dependencies"));
        }
    }
    // Poetry lists the interpreter among the dependencies: it is not a package.
    deps.retain(|k, _| !k.ends_with("/python"));
    Ok(deps)
}

fn parse_pipfile(text: &str) -> Result<Deps, ParseError> {
    let v: toml::Value = toml::from_str(text)?;
    let mut deps = Deps::new();
    toml_table_deps(&mut deps, "packages", v.get("packages"));
    toml_table_deps(&mut deps, "dev-packages", v.get("dev-packages"));
    Ok(deps)
}

fn parse_requirements(text: &str) -> Result<Deps, ParseError> {
    let mut deps = Deps::new();
    for line in text.lines() {
        let l = line.split(" #").next().unwrap_or("").trim();
        let l = l.strip_prefix("-e ").map(str::trim).unwrap_or(l);
        if l.is_empty() || l.starts_with('#') || l.starts_with('-') {
            continue;
        }
        let name = if l.contains("://") {
            l.rsplit_once("#egg=").map_or_else(|| l.to_string(), |(_, n)| n.to_string())
        } else {
            pep508_name(l)
        };
        deps.insert(format!("requirements/{name}"), l.to_string());
    }
    Ok(deps)
}

fn parse_go_mod(text: &str) -> Result<Deps, ParseError> {
    let mut deps = Deps::new();
    let mut in_block = false;
    for line in text.lines() {
        let l = line.split("//").next().unwrap_or("").trim();
        if l == "require (" {
            in_block = true;
            continue;
        }
        if in_block && l == ")" {
            in_block = false;
            continue;
        }
        let req = if in_block {
            Some(l)
        } else {
            l.strip_prefix("require ").map(str::trim)
        };
        if let Some((module, version)) = req.and_then(|r| r.split_once(char::is_whitespace)) {
            deps.insert(format!("require/{module}"), version.trim().to_string());
        }
    }
    Ok(deps)
}

fn parse_gemfile(text: &str) -> Result<Deps, ParseError> {
    let mut deps = Deps::new();
    for line in text.lines() {
        let l = line.trim();
        let Some(rest) = l.strip_prefix("gem ").or_else(|| l.strip_prefix("gem(")) else {
            continue;
        };
        let rest = rest.trim();
        let quote = rest.chars().next().filter(|c| *c == '\'' || *c == '"');
        let Some(q) = quote else { continue };
        let Some((name, tail)) = rest[1..].split_once(q) else { continue };
        deps.insert(format!("gem/{name}"), tail.trim_start_matches([',', ' ']).trim().to_string());
    }
    Ok(deps)
}

/// One supply-chain problem in a manifest.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Problem {
    pub manifest: String,
    pub dependency: String,
    pub spec: String,
    pub why: String,
}

impl Problem {
    pub(crate) fn describe(&self) -> String {
        format!("{}: {} {:?}: {}", self.manifest, self.dependency, self.spec, self.why)
    }
}

/// The problems of one manifest the turn changed: `before` is its text at the turn's base
/// (`None` when it is new), `after` its text now, `moved_lockfiles` the changed paths.
pub(crate) fn check_manifest(path: &str, before: Option<&str>, after: &str, changed: &[String]) -> Result<Vec<Problem>, ManifestError> {
    let Some(m) = manifest_for(path) else { return Ok(Vec::new()) };
    let now = (m.parse)(after).map_err(|cause| ManifestError {
        manifest: path.to_string(),
        cause,
    })?;
    // A manifest that did not parse before counts as empty then.
    let then = before.and_then(|b| (m.parse)(b).ok()).unwrap_or_default();
    let dir = path.rsplit_once('/').map_or("", |(d, _)| d);
    let lock_moved = m.lockfiles.is_empty()
        || changed.iter().any(|c| {
            let (cdir, cname) = c.rsplit_once('/').unwrap_or(("", c));
            m.lockfiles.contains(&cname) && (cdir == dir || cdir.is_empty() || dir.starts_with(&format!("{cdir}/")))
        });
    let mut out = Vec::new();
    for (key, spec) in &now {
        if then.get(key) == Some(spec) {
            continue;
        }
        let name = key.split_once('/').map_or(key.as_str(), |(_, n)| n).to_string();
        let verb = if then.contains_key(key) { "changed" } else { "added" };
        if (m.unversioned)(spec) {
            out.push(Problem {
                manifest: path.to_string(),
                dependency: name.clone(),
                spec: spec.clone(),
                why: format!("{verb} with a specifier that names no version"),
            });
        }
        if !lock_moved {
            out.push(Problem {
                manifest: path.to_string(),
                dependency: name,
                spec: spec.clone(),
                why: format!("{verb}, but no lockfile moved ({})", m.lockfiles.join(", ")),
            });
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn v(s: &[&str]) -> Vec<String> {
        s.iter().map(|x| x.to_string()).collect()
    }

    #[test]
    fn left_pad_latest_is_blocked_and_a_rename_is_not_a_dependency() {
        let before = r#"{"name": "app", "dependencies": {"react": "^18.2.0"}, "scripts": {"test": "jest"}}"#;
        let after =
            r#"{"name": "app2", "dependencies": {"react": "^18.2.0", "left-pad": "latest"}, "scripts": {"test": "jest", "lint": "x"}}"#;
        let p = check_manifest("package.json", Some(before), after, &v(&["package.json", "package-lock.json"])).unwrap();
        assert_eq!(p.len(), 1, "{p:?}");
        assert_eq!(p[0].dependency, "left-pad");
        assert!(p[0].why.contains("names no version"));
        let p = check_manifest("package.json", Some(before), after, &v(&["package.json"])).unwrap();
        assert_eq!(p.len(), 2, "unversioned and unlocked");
        let renamed = r#"{"name": "other", "dependencies": {"react": "^18.2.0"}}"#;
        assert!(check_manifest("package.json", Some(before), renamed, &v(&["package.json"]))
            .unwrap()
            .is_empty());
        let pinned = r#"{"dependencies": {"react": "^18.2.0", "left-pad": "1.3.0"}}"#;
        assert!(
            check_manifest(
                "web/package.json",
                Some(before),
                pinned,
                &v(&["web/package.json", "pnpm-lock.yaml"])
            )
            .unwrap()
            .is_empty(),
            "a root lockfile counts"
        );
    }

    #[test]
    fn specifiers_that_name_no_version() {
        for s in ["latest", "*", "x", "", "main", "next", "github:a/b", "git+https://x/y.git#main"] {
            assert!(npm_unversioned(s), "{s:?}");
        }
        for s in [
            "1.2.3",
            "^1.0.0",
            "~2",
            ">=1 <2",
            "git+https://x/y.git#v1.2.0",
            "file:../x",
            "workspace:*",
            "npm:foo@1.0.0",
        ] {
            assert!(!npm_unversioned(s), "{s:?}");
        }
        assert!(pep508_unversioned("requests"));
        assert!(pep508_unversioned("pkg @ git+https://x/y.git@main"));
        assert!(!pep508_unversioned("requests>=2.31"));
        assert!(!pep508_unversioned("requests==2.31.0; python_version>'3.8'"));
        assert!(!pep508_unversioned("pkg @ git+https://x/y.git@v1.0"));
    }

    #[test]
    fn each_manifest_kind_reads_its_dependency_sections() {
        let cargo_before = "[package]\nname = \"a\"\n[dependencies]\nserde = \"1\"\n";
        let cargo_after = "[package]\nname = \"b\"\n[dependencies]\nserde = \"1\"\nrand = \"*\"\nlocal = { path = \"../l\" }\nbranchy = { git = \"https://x/y\", branch = \"main\" }\npinned = { git = \"https://x/y\", rev = \"abc123\" }\n";
        let p = check_manifest("Cargo.toml", Some(cargo_before), cargo_after, &v(&["Cargo.toml", "Cargo.lock"])).unwrap();
        let names: Vec<&str> = p.iter().map(|x| x.dependency.as_str()).collect();
        assert_eq!(names, vec!["branchy", "rand"]);
        let py = "[project]\nname = \"x\"\ndependencies = [\"requests>=2\", \"flask\"]\n";
        let p = check_manifest("pyproject.toml", None, py, &v(&["pyproject.toml", "uv.lock"])).unwrap();
        assert_eq!(p.iter().map(|x| x.dependency.as_str()).collect::<Vec<_>>(), vec!["flask"]);
        let req = "# pinned\nrequests==2.31.0\nflask\n-r other.txt\n";
        let p = check_manifest("requirements.txt", Some("requests==2.31.0\n"), req, &v(&["requirements.txt"])).unwrap();
        assert_eq!(p.len(), 1);
        assert_eq!(p[0].dependency, "flask");
        let gomod = "module x\n\ngo 1.22\n\nrequire (\n\tgithub.com/a/b v1.2.3\n)\nrequire github.com/c/d v0.1.0\n";
        let p = check_manifest("go.mod", Some("module x\n"), gomod, &v(&["go.mod"])).unwrap();
        assert_eq!(p.len(), 2, "go.sum did not move: {p:?}");
        assert!(check_manifest("go.mod", Some("module x\n"), gomod, &v(&["go.mod", "go.sum"]))
            .unwrap()
            .is_empty());
        let gem = "source 'https://rubygems.org'\ngem 'rails', '~> 7.1'\ngem \"pry\"\n";
        let p = check_manifest("Gemfile", None, gem, &v(&["Gemfile", "Gemfile.lock"])).unwrap();
        assert_eq!(p.iter().map(|x| x.dependency.as_str()).collect::<Vec<_>>(), vec!["pry"]);
        assert!(check_manifest("package.json", None, "{not json", &[]).is_err());
        assert!(check_manifest("README.md", None, "x", &[]).unwrap().is_empty());
    }
}
