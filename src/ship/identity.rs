//! Who and where the records come from: host, user, repository. A local path leaves the machine
//! only when `ship.includeLocalPaths` asks for it.

use super::otlp::{remote_for_shipping, repository_name_of, Origin};
use super::ShipError;
use crate::config::Config;
use crate::project::Project;

/// The origin of this project's records under `config`.
pub fn origin(project: &Project, config: &Config) -> Result<Origin, ShipError> {
    let ship = &config.settings.ship;
    let remote = crate::project::origin_url(project.root());
    let shipped_remote = remote.as_deref().and_then(remote_for_shipping);
    let github = remote.as_deref().and_then(crate::config::scaffold::github_owner_repo);
    let meta = &config.settings.project;
    let repository_name = non_empty(&meta.repo)
        .or_else(|| github.as_ref().map(|(_, r)| r.clone()))
        .or_else(|| shipped_remote.as_deref().and_then(repository_name_of))
        .or_else(|| Some(project.name()));
    let repository_owner = non_empty(&meta.owner).or_else(|| github.as_ref().map(|(o, _)| o.clone()));
    let mut extra = Vec::new();
    for a in &ship.resource_attributes {
        let (k, v) = a
            .split_once('=')
            .filter(|(k, _)| !k.trim().is_empty())
            .ok_or_else(|| ShipError::Config(format!("ship.resourceAttributes: {a:?} is not \"name=value\"")))?;
        extra.push((k.trim().to_string(), v.trim().to_string()));
    }
    Ok(Origin {
        host: host_name(),
        user: non_empty(&ship.user).unwrap_or_else(login_name),
        project: project.name(),
        repository_name,
        repository_owner,
        repository_url: match (&shipped_remote, ship.include_local_paths) {
            (Some(u), _) => Some(u.clone()),
            (None, true) => remote.clone(),
            (None, false) => None,
        },
        local_path: ship.include_local_paths.then(|| project.root().display().to_string()),
        extra,
    })
}

fn non_empty(s: &str) -> Option<String> {
    let t = s.trim();
    (!t.is_empty()).then(|| t.to_string())
}

/// The machine's host name.
pub fn host_name() -> String {
    let mut buf = [0u8; 256];
    // SAFETY: gethostname writes at most `buf.len()` bytes into the buffer it is given.
    let rc = unsafe { libc::gethostname(buf.as_mut_ptr().cast(), buf.len()) };
    if rc != 0 {
        return "unknown".into();
    }
    let end = buf.iter().position(|b| *b == 0).unwrap_or(buf.len());
    String::from_utf8_lossy(&buf[..end]).into_owned()
}

/// The login name: `USER`, else `LOGNAME`, else the password database's entry for this uid.
pub fn login_name() -> String {
    for var in ["USER", "LOGNAME"] {
        if let Some(v) = std::env::var(var).ok().and_then(|v| non_empty(&v)) {
            return v;
        }
    }
    // SAFETY: getpwuid returns a pointer into static storage or null; the name is copied at once.
    unsafe {
        let pw = libc::getpwuid(libc::geteuid());
        if !pw.is_null() && !(*pw).pw_name.is_null() {
            return std::ffi::CStr::from_ptr((*pw).pw_name).to_string_lossy().into_owned();
        }
    }
    "unknown".into()
}
