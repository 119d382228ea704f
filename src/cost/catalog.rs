//! `PriceCatalog`: the price planes in the home database, their refresh history, and resolution.
//!
//! Resolution order (plane-major, see [`super::normalize`] for the keys tried in each plane):
//! 1. `override` — the operator's `$TLC_HOME/model-prices.local.toml`, as loaded by the last
//!    refresh; read straight from the file while no refresh ever loaded it;
//! 2. the asking provider's plane (`claude`, `cursor`, …) when a provider is given;
//! 3. `anthropic` — Anthropic's published prices (the stored plane when it has entries, else the
//!    compiled-in list, [`super::anthropic`]), for names of Anthropic's own API only;
//! 4. `litellm` — the stored plane when it has entries, else the compiled-in snapshot;
//! 5. nothing: the cost is unknown (`None`), never 0.

use super::anthropic;
pub(crate) use super::error::CostError;
use super::normalize::candidates;
use super::parse::{parse_plane, PlaneFormat};
use super::rates::{PriceEntry, Rates};
use super::snapshot;
use crate::paths::Paths;
use crate::store::queries::home::cost as q;
use rusqlite::{params, Connection, OptionalExtension};
use serde::Serialize;
use std::path::{Path, PathBuf};

/// The operator's plane.
pub(crate) const OVERRIDE: &str = "override";
/// The LiteLLM plane.
pub(crate) const LITELLM: &str = "litellm";

/// `$TLC_HOME/model-prices.local.toml`.
pub fn override_file(paths: &Paths) -> PathBuf {
    paths.home.join("model-prices.local.toml")
}

/// Reads the override file; `Ok(empty)` when it does not exist.
pub(crate) fn read_override_file(path: &Path) -> Result<Vec<PriceEntry>, CostError> {
    use crate::fsread::{read_capped_text, Links, CONFIG_CAP};
    let text = match read_capped_text(path, CONFIG_CAP, Links::Follow) {
        Ok(Some(t)) => t,
        Ok(None) => return Ok(Vec::new()),
        Err(e) => return Err(CostError::Unusable(e.to_string())),
    };
    parse_plane(&text, PlaneFormat::Toml).map_err(|e| CostError::Unusable(format!("{}: {e}", path.display())))
}

/// A price found for a model: the key it was found under, the plane, and the entry.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub(crate) struct ResolvedPrice {
    /// The key that matched (after normalisation).
    pub key: String,
    /// `override`, the provider's plane, or `litellm`.
    pub plane: String,
    /// True when the litellm plane answered from the compiled-in snapshot.
    pub builtin: bool,
    pub entry: PriceEntry,
    /// `<plane>:<key>`, as stored beside a cost.
    #[serde(skip)]
    pub source: String,
    /// The same with [`super::rates::ONE_HOUR_FALLBACK_MARK`]: stored beside a cost whose 1-hour
    /// cache writes were priced at 2x the input rate because the entry has no 1-hour rate.
    #[serde(skip)]
    pub source_1h_fallback: String,
    /// [`Self::source`] and [`Self::source_1h_fallback`] with [`super::rates::INEXACT_OUTPUT_MARK`]:
    /// stored beside a response whose transcript line gave no final output count.
    #[serde(skip)]
    pub source_inexact: [String; 2],
}

impl ResolvedPrice {
    pub(crate) fn rates(&self) -> &Rates {
        &self.entry.rates
    }

    /// `usage` priced at this entry, and the `cost_source` to store beside it: [`Self::source`],
    /// marked when the 1-hour writes were priced by the 2x-input rule, and also when the
    /// response's output count is `inexact` (see [`super::transcript::UsageRecord::inexact_output`]).
    pub(crate) fn price_marked(&self, usage: &super::rates::TokenUsage, inexact: bool) -> (f64, &str) {
        let p = super::rates::price(&self.entry.rates, usage);
        let source = match (p.one_hour_fallback, inexact) {
            (false, false) => &self.source,
            (true, false) => &self.source_1h_fallback,
            (fallback, true) => &self.source_inexact[usize::from(fallback)],
        };
        (p.usd, source)
    }
}

/// One plane as `prices status` shows it.
#[derive(Debug, Clone, Serialize)]
pub(crate) struct PlaneStatus {
    pub plane: String,
    /// Where the entries in use came from (a URL, a file, or the built-in snapshot).
    pub source: String,
    /// When they were loaded; `None` for the built-in snapshot and an unloaded override file.
    pub refreshed_at: Option<String>,
    pub entries: i64,
    /// True when the plane answers from something compiled in or read live, not from the database.
    pub builtin: bool,
    /// The latest refresh attempt when it did not succeed.
    pub last_failure: Option<String>,
}

/// What a refresh did.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub(crate) enum RefreshOutcome {
    /// The plane now holds `entries` rows (it held `previous`).
    Replaced { entries: usize, previous: i64 },
    /// The new plane had fewer than half the stored entries; nothing was changed.
    Refused { entries: usize, stored: i64 },
}

/// A listed entry with its plane.
#[derive(Debug, Clone, Serialize)]
pub(crate) struct ListedPrice {
    pub plane: String,
    pub builtin: bool,
    #[serde(flatten)]
    pub entry: PriceEntry,
}

fn row_entry(r: &rusqlite::Row<'_>, at: usize) -> rusqlite::Result<PriceEntry> {
    Ok(PriceEntry {
        model_key: r.get(at)?,
        provider: r.get(at + 1)?,
        display_name: r.get(at + 2)?,
        rates: Rates {
            input: r.get::<_, Option<f64>>(at + 3)?.unwrap_or(0.0),
            output: r.get::<_, Option<f64>>(at + 4)?.unwrap_or(0.0),
            cache_read: r.get(at + 5)?,
            cache_write: r.get(at + 6)?,
            input_above_200k: r.get(at + 7)?,
            output_above_200k: r.get(at + 8)?,
            cache_read_above_200k: r.get(at + 9)?,
            cache_write_above_200k: r.get(at + 10)?,
            cache_write_1h: r.get(at + 14)?,
            cache_write_1h_above_200k: r.get(at + 15)?,
        },
        context_window: r.get(at + 11)?,
        pool: r.get(at + 12)?,
        billing: r.get(at + 13)?,
    })
}

/// The price catalog: the stored planes (when the home database exists) plus what is read live.
/// Like every repository type it borrows its connection: the caller opens the home database
/// with `store::open_read` (to look prices up) or `store::open_write` (to refresh them).
pub struct PriceCatalog<'c> {
    conn: Option<&'c Connection>,
    /// The override file's entries while no refresh has loaded the override plane.
    override_live: Option<Vec<PriceEntry>>,
    /// Whether the litellm plane answers from the database (else the snapshot).
    litellm_stored: bool,
    /// Whether the anthropic plane answers from the database (else the built-in list).
    anthropic_stored: bool,
}

impl std::fmt::Debug for PriceCatalog<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("PriceCatalog")
            .field("database", &self.conn.and_then(|c| c.path()))
            .field("litellm_stored", &self.litellm_stored)
            .finish()
    }
}

impl<'c> PriceCatalog<'c> {
    /// The catalog over the home database `home` (`None` when there is none: then only the
    /// override file and the snapshot answer), with the operator's override file at
    /// `override_path` ([`override_file`]).
    pub fn new(home: Option<&'c Connection>, override_path: &Path) -> Result<PriceCatalog<'c>, CostError> {
        let mut cat = PriceCatalog {
            conn: home,
            override_live: None,
            litellm_stored: false,
            anthropic_stored: false,
        };
        let (override_loaded, litellm_stored, anthropic_stored) = match home {
            Some(conn) => {
                let loaded: bool = conn
                    .prepare_cached(q::PLANE_LOADED)
                    .and_then(|mut st| st.query_row([OVERRIDE], |r| r.get(0)))
                    .map_err(|e| cat.sq(e))?;
                let has: bool = conn
                    .prepare_cached(q::PLANE_HAS_ROWS)
                    .and_then(|mut st| st.query_row([LITELLM], |r| r.get(0)))
                    .map_err(|e| cat.sq(e))?;
                let vendor: bool = conn
                    .prepare_cached(q::PLANE_HAS_ROWS)
                    .and_then(|mut st| st.query_row([anthropic::PLANE], |r| r.get(0)))
                    .map_err(|e| cat.sq(e))?;
                (loaded, has, vendor)
            }
            None => (false, false, false),
        };
        cat.litellm_stored = litellm_stored;
        cat.anthropic_stored = anthropic_stored;
        if !override_loaded {
            cat.override_live = Some(read_override_file(override_path)?);
        }
        Ok(cat)
    }
}

impl PriceCatalog<'static> {
    /// Only what is compiled in: the snapshot answers for litellm, nothing else is known.
    pub(crate) fn snapshot_only() -> PriceCatalog<'static> {
        PriceCatalog {
            conn: None,
            override_live: None,
            litellm_stored: false,
            anthropic_stored: false,
        }
    }
}

impl PriceCatalog<'_> {
    fn sq(&self, e: rusqlite::Error) -> CostError {
        CostError::Sqlite {
            path: self.conn.and_then(|c| c.path()).map(PathBuf::from).unwrap_or_default(),
            source: e,
        }
    }

    /// The home database, for a method that writes: there is none in a snapshot-only catalog.
    fn writable_conn(&self) -> Result<&Connection, CostError> {
        self.conn
            .ok_or_else(|| CostError::Unusable("the price catalog has no home database to write".into()))
    }

    fn stored_get(&self, conn: &Connection, plane: &str, key: &str) -> Result<Option<PriceEntry>, CostError> {
        let mut st = conn.prepare_cached(q::PRICE_GET).map_err(|e| self.sq(e))?;
        st.query_row(params![plane, key], |r| row_entry(r, 0))
            .optional()
            .map_err(|e| self.sq(e))
    }

    /// The price of `model` as `provider` (a plane name such as `claude`) would be charged, or
    /// `None` when no plane knows it.
    pub(crate) fn resolve(&self, model: &str, provider: Option<&str>) -> Result<Option<ResolvedPrice>, CostError> {
        let keys = candidates(model);
        let conn = self.conn;
        let found = |key: &str, plane: &str, builtin: bool, entry: PriceEntry| {
            Some(ResolvedPrice {
                key: key.to_string(),
                plane: plane.to_string(),
                builtin,
                entry,
                source: format!("{plane}:{key}"),
                source_1h_fallback: format!("{plane}:{key}{}", super::rates::ONE_HOUR_FALLBACK_MARK),
                source_inexact: [
                    format!("{plane}:{key}{}", super::rates::INEXACT_OUTPUT_MARK),
                    format!(
                        "{plane}:{key}{}{}",
                        super::rates::ONE_HOUR_FALLBACK_MARK,
                        super::rates::INEXACT_OUTPUT_MARK
                    ),
                ],
            })
        };
        // 1. override
        match (&self.override_live, &conn) {
            (Some(live), _) => {
                for k in &keys {
                    if let Some(e) = live.iter().find(|e| &e.model_key == k) {
                        return Ok(found(k, OVERRIDE, true, e.clone()));
                    }
                }
            }
            (None, Some(c)) => {
                for k in &keys {
                    if let Some(e) = self.stored_get(c, OVERRIDE, k)? {
                        return Ok(found(k, OVERRIDE, false, e));
                    }
                }
            }
            (None, None) => {}
        }
        // 2. the provider's own plane
        let asked = provider.filter(|p| !p.is_empty() && *p != OVERRIDE && *p != LITELLM);
        if let (Some(p), Some(c)) = (asked, &conn) {
            for k in &keys {
                if let Some(e) = self.stored_get(c, p, k)? {
                    return Ok(found(k, p, false, e));
                }
            }
        }
        // 3. anthropic: the model maker's list, for names of its own API
        if anthropic::applies_to(model) || asked == Some(anthropic::PLANE) {
            match (&conn, self.anthropic_stored) {
                (Some(c), true) => {
                    if asked != Some(anthropic::PLANE) {
                        for k in &keys {
                            if let Some(e) = self.stored_get(c, anthropic::PLANE, k)? {
                                return Ok(found(k, anthropic::PLANE, false, e));
                            }
                        }
                    }
                }
                _ => {
                    for k in &keys {
                        if let Some(e) = anthropic::get(k) {
                            return Ok(found(k, anthropic::PLANE, true, e));
                        }
                    }
                }
            }
        }
        // 4. litellm: stored, else the snapshot
        match (&conn, self.litellm_stored) {
            (Some(c), true) => {
                for k in &keys {
                    if let Some(e) = self.stored_get(c, LITELLM, k)? {
                        return Ok(found(k, LITELLM, false, e));
                    }
                }
            }
            _ => {
                for k in &keys {
                    if let Some(e) = snapshot::get(k) {
                        return Ok(found(k, LITELLM, true, e));
                    }
                }
            }
        }
        Ok(None)
    }

    /// Replaces `plane` with `entries` in one transaction, unless the new plane has fewer than half
    /// the entries stored (the override plane, the operator's own file, is exempt). Every call
    /// leaves one history row.
    pub(crate) fn replace_plane(
        &self,
        plane: &str,
        source: &str,
        entries: &[PriceEntry],
        progress: &mut dyn FnMut(u64),
    ) -> Result<RefreshOutcome, CostError> {
        let conn = self.writable_conn()?;
        let tx = rusqlite::Transaction::new_unchecked(conn, rusqlite::TransactionBehavior::Immediate).map_err(|e| self.sq(e))?;
        let stored: i64 = tx
            .prepare_cached(q::PLANE_COUNT)
            .and_then(|mut s| s.query_row([plane], |r| r.get(0)))
            .map_err(|e| self.sq(e))?;
        let now = crate::clock::now_stamp();
        if plane != OVERRIDE && (entries.len() as i64) * 2 < stored {
            let detail = format!("new plane has {} entries, {stored} stored: fewer than half", entries.len());
            tx.prepare_cached(q::REFRESH_INSERT)
                .and_then(|mut s| s.execute(params![plane, source, entries.len() as i64, now, "refused", detail]))
                .map_err(|e| self.sq(e))?;
            tx.commit().map_err(|e| self.sq(e))?;
            return Ok(RefreshOutcome::Refused {
                entries: entries.len(),
                stored,
            });
        }
        tx.prepare_cached(q::PLANE_DELETE)
            .and_then(|mut s| s.execute([plane]))
            .map_err(|e| self.sq(e))?;
        {
            let mut ins = tx.prepare_cached(q::PRICE_INSERT).map_err(|e| self.sq(e))?;
            for (i, e) in entries.iter().enumerate() {
                let r = &e.rates;
                ins.execute(params![
                    plane,
                    e.model_key,
                    e.provider,
                    e.display_name,
                    r.input,
                    r.output,
                    r.cache_read,
                    r.cache_write,
                    r.input_above_200k,
                    r.output_above_200k,
                    r.cache_read_above_200k,
                    r.cache_write_above_200k,
                    e.context_window,
                    e.pool,
                    e.billing,
                    r.cache_write_1h,
                    r.cache_write_1h_above_200k
                ])
                .map_err(|err| match err {
                    rusqlite::Error::SqliteFailure(f, _) if f.code == rusqlite::ErrorCode::ConstraintViolation => {
                        CostError::Unusable(format!("{source}: model {:?} appears twice", e.model_key))
                    }
                    other => self.sq(other),
                })?;
                if i % 256 == 0 {
                    progress(i as u64);
                }
            }
        }
        tx.prepare_cached(q::REFRESH_INSERT)
            .and_then(|mut s| s.execute(params![plane, source, entries.len() as i64, now, "ok", Option::<String>::None]))
            .map_err(|e| self.sq(e))?;
        tx.commit().map_err(|e| self.sq(e))?;
        progress(entries.len() as u64);
        Ok(RefreshOutcome::Replaced {
            entries: entries.len(),
            previous: stored,
        })
    }

    /// When any plane was last refreshed (an attempt of any outcome); `None` when never, or when
    /// the catalog has no home database.
    pub(crate) fn last_refresh(&self) -> Result<Option<String>, CostError> {
        let Some(conn) = self.conn else { return Ok(None) };
        conn.prepare_cached(q::REFRESH_AGE)
            .and_then(|mut st| st.query_row([], |r| r.get(0)))
            .map_err(|e| self.sq(e))
    }

    /// Records a refresh that failed before anything could be stored (a bad file or download).
    pub(crate) fn record_failure(&self, plane: &str, source: &str, detail: &str) -> Result<(), CostError> {
        let conn = self.writable_conn()?;
        conn.prepare_cached(q::REFRESH_INSERT)
            .and_then(|mut s| s.execute(params![plane, source, 0i64, crate::clock::now_stamp(), "failed", detail]))
            .map_err(|e| self.sq(e))?;
        Ok(())
    }

    /// Every plane: the stored ones with their latest successful refresh, the override file while
    /// unloaded, and the snapshot when litellm was never refreshed.
    pub(crate) fn status(&self, override_path: &Path) -> Result<Vec<PlaneStatus>, CostError> {
        let mut out: Vec<PlaneStatus> = Vec::new();
        let mut failures: Vec<(String, String)> = Vec::new();
        if let Some(conn) = self.conn {
            let mut counts = std::collections::BTreeMap::new();
            let mut st = conn.prepare_cached(q::PLANE_COUNTS).map_err(|e| self.sq(e))?;
            for r in st
                .query_map([], |r| Ok((r.get::<_, String>(0)?, r.get::<_, i64>(1)?)))
                .map_err(|e| self.sq(e))?
            {
                let (p, n) = r.map_err(|e| self.sq(e))?;
                counts.insert(p, n);
            }
            let mut st = conn.prepare_cached(q::REFRESH_LAST_OK).map_err(|e| self.sq(e))?;
            let rows = st
                .query_map([], |r| Ok((r.get::<_, String>(0)?, r.get::<_, String>(1)?, r.get::<_, String>(3)?)))
                .map_err(|e| self.sq(e))?;
            for r in rows {
                let (plane, source, ts) = r.map_err(|e| self.sq(e))?;
                let entries = counts.remove(&plane).unwrap_or(0);
                out.push(PlaneStatus {
                    plane,
                    source,
                    refreshed_at: Some(ts),
                    entries,
                    builtin: false,
                    last_failure: None,
                });
            }
            for (plane, entries) in counts {
                out.push(PlaneStatus {
                    plane,
                    source: "unknown".into(),
                    refreshed_at: None,
                    entries,
                    builtin: false,
                    last_failure: None,
                });
            }
            let mut st = conn.prepare_cached(q::REFRESH_LAST).map_err(|e| self.sq(e))?;
            let rows = st
                .query_map([], |r| {
                    Ok((
                        r.get::<_, String>(0)?,
                        r.get::<_, String>(3)?,
                        r.get::<_, String>(4)?,
                        r.get::<_, Option<String>>(5)?,
                    ))
                })
                .map_err(|e| self.sq(e))?;
            for r in rows {
                let (plane, ts, outcome, detail) = r.map_err(|e| self.sq(e))?;
                if outcome != "ok" {
                    failures.push((plane, format!("{outcome} at {ts}: {}", detail.unwrap_or_default())));
                }
            }
        }
        if let Some(live) = &self.override_live {
            out.retain(|p| p.plane != OVERRIDE);
            let source = if override_path.is_file() {
                format!("{} (read live; not loaded by a refresh yet)", override_path.display())
            } else {
                format!("{} (absent)", override_path.display())
            };
            out.push(PlaneStatus {
                plane: OVERRIDE.into(),
                source,
                refreshed_at: None,
                entries: live.len() as i64,
                builtin: true,
                last_failure: None,
            });
        }
        if !self.anthropic_stored {
            out.retain(|p| p.plane != anthropic::PLANE);
            out.push(PlaneStatus {
                plane: anthropic::PLANE.into(),
                source: anthropic::SOURCE.into(),
                refreshed_at: None,
                entries: anthropic::entries().len() as i64,
                builtin: true,
                last_failure: None,
            });
        }
        if !self.litellm_stored {
            out.retain(|p| p.plane != LITELLM);
            out.push(PlaneStatus {
                plane: LITELLM.into(),
                source: snapshot::SOURCE.into(),
                refreshed_at: None,
                entries: snapshot::entries().len() as i64,
                builtin: true,
                last_failure: None,
            });
        }
        for (plane, f) in failures {
            if let Some(p) = out.iter_mut().find(|p| p.plane == plane) {
                p.last_failure = Some(f);
            } else {
                out.push(PlaneStatus {
                    plane,
                    source: "never loaded".into(),
                    refreshed_at: None,
                    entries: 0,
                    builtin: false,
                    last_failure: Some(f),
                });
            }
        }
        let rank = |p: &str| match p {
            OVERRIDE => 0,
            LITELLM => 2,
            _ => 1,
        };
        out.sort_by(|a, b| rank(&a.plane).cmp(&rank(&b.plane)).then_with(|| a.plane.cmp(&b.plane)));
        Ok(out)
    }

    /// Entries of every plane in resolution order, filtered by plane-or-provider and a
    /// case-insensitive substring of the key.
    pub(crate) fn list(&self, provider: Option<&str>, search: Option<&str>) -> Result<Vec<ListedPrice>, CostError> {
        let mut out = Vec::new();
        let needle = search.map(str::to_lowercase);
        let keep = |plane: &str, e: &PriceEntry| {
            provider.is_none_or(|p| p == plane || e.provider.as_deref() == Some(p))
                && needle.as_deref().is_none_or(|n| e.model_key.to_lowercase().contains(n))
        };
        if let Some(live) = &self.override_live {
            out.extend(live.iter().filter(|e| keep(OVERRIDE, e)).map(|e| ListedPrice {
                plane: OVERRIDE.into(),
                builtin: true,
                entry: e.clone(),
            }));
        }
        if let Some(conn) = self.conn {
            let mut st = conn.prepare_cached(q::PRICES_LIST).map_err(|e| self.sq(e))?;
            let rows = st
                .query_map(params![provider, search], |r| Ok((r.get::<_, String>(0)?, row_entry(r, 1)?)))
                .map_err(|e| self.sq(e))?;
            for r in rows {
                let (plane, entry) = r.map_err(|e| self.sq(e))?;
                if plane == OVERRIDE && self.override_live.is_some() {
                    continue;
                }
                out.push(ListedPrice {
                    plane,
                    builtin: false,
                    entry,
                });
            }
        }
        if !self.anthropic_stored {
            out.extend(
                anthropic::entries()
                    .iter()
                    .filter(|e| keep(anthropic::PLANE, e))
                    .map(|e| ListedPrice {
                        plane: anthropic::PLANE.into(),
                        builtin: true,
                        entry: e.clone(),
                    }),
            );
        }
        if !self.litellm_stored {
            out.extend(snapshot::entries().iter().filter(|e| keep(LITELLM, e)).map(|e| ListedPrice {
                plane: LITELLM.into(),
                builtin: true,
                entry: e.clone(),
            }));
        }
        Ok(out)
    }
}

/// Resolutions remembered per model, for paths that price many responses of few models
/// (the import, a hook reading a transcript).
pub(crate) struct CachedResolver<'a> {
    catalog: &'a PriceCatalog<'a>,
    provider: Option<String>,
    known: std::collections::HashMap<String, Option<ResolvedPrice>, std::hash::BuildHasherDefault<crate::hashing::Fx>>,
}

impl<'a> CachedResolver<'a> {
    pub(crate) fn new(catalog: &'a PriceCatalog<'a>, provider: Option<&str>) -> CachedResolver<'a> {
        CachedResolver {
            catalog,
            provider: provider.map(str::to_string),
            known: std::collections::HashMap::default(),
        }
    }

    /// The price of `model` as the provider given at construction is charged.
    pub(crate) fn resolve(&mut self, model: &str) -> Result<Option<&ResolvedPrice>, CostError> {
        if !self.known.contains_key(model) {
            let found = self.catalog.resolve(model, self.provider.as_deref())?;
            self.known.insert(model.to_string(), found);
        }
        Ok(self.known.get(model).and_then(Option::as_ref))
    }

    /// The price of a model already [`resolve`](CachedResolver::resolve)d; `None` for one that
    /// has no price or was not resolved yet.
    pub(crate) fn resolved(&self, model: &str) -> Option<&ResolvedPrice> {
        self.known.get(model).and_then(Option::as_ref)
    }
}
