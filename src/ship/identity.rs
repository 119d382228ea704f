//! Who and where the records come from: host, user, repository. A local path leaves the machine
//! only when `ship.includeLocalPaths` asks for it.

use super::otlp::{remote_for_shipping, repository_name_of, Origin};
use super::ShipError;
use crate::config::Config;
use crate::project::Project;

/// The origin of this project's records under `config`.
pub(crate) fn origin(project: &Project, config: &Config) -> Result<Origin, ShipError> {
    let ship = &config.settings.ship;
    // A `.git/config` that cannot be read (see `fsread`) names no remote.
    let remote = crate::project::origin_url(project.root()).ok().flatten();
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
        host: crate::sys::hostname().unwrap_or_else(|| "unknown".into()),
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

/// The login name: `USER`, else `LOGNAME`, else the entry of `/etc/passwd` for the uid that owns
/// this process. The file is read as text, never through `getpwuid`: the static build has no NSS
/// modules to ask (see `sys::resolve_hosts_without_nss_modules`), so a name only LDAP or
/// systemd-homed knows is "unknown" unless `USER`, `LOGNAME` or `ship.user` gives it.
pub(crate) fn login_name() -> String {
    for var in ["USER", "LOGNAME"] {
        if let Some(v) = std::env::var(var).ok().and_then(|v| non_empty(&v)) {
            return v;
        }
    }
    use std::os::unix::fs::MetadataExt;
    let uid = std::fs::metadata("/proc/self").map(|m| m.uid()).ok();
    let passwd = crate::fsread::read_text_or_none(std::path::Path::new("/etc/passwd"), crate::fsread::PASSWD_CAP);
    uid.zip(passwd)
        .and_then(|(uid, passwd)| name_of_uid(&passwd, uid))
        .unwrap_or_else(|| "unknown".into())
}

/// The name of the first entry of a password file's text (`name:password:uid:…`) with `uid`.
fn name_of_uid(passwd: &str, uid: u32) -> Option<String> {
    passwd.lines().find_map(|l| {
        let mut f = l.split(':');
        let name = f.next()?;
        let id: u32 = f.nth(1)?.parse().ok()?;
        (id == uid && !name.is_empty()).then(|| name.to_string())
    })
}

#[cfg(test)]
mod tests {
    #[test]
    fn the_login_name_is_the_first_password_entry_with_the_uid() {
        let passwd = "root:x:0:0:root:/root:/bin/bash\n# a comment\n:x:1000:1000::/:/bin/sh\ndana:x:1000:1000:Dana:/home/dana:/bin/sh\nalias:x:1000:1000::/:/bin/sh\nbad:x:notanumber\n";
        assert_eq!(super::name_of_uid(passwd, 0).as_deref(), Some("root"));
        assert_eq!(super::name_of_uid(passwd, 1000).as_deref(), Some("dana"));
        assert_eq!(super::name_of_uid(passwd, 4242), None);
    }
}
