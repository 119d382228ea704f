//! `tlc prices refresh|lookup|list|status`.

use super::Ctx;
use crate::cli::OutputArgs;
use crate::cost::catalog::{self, PriceCatalog, RefreshOutcome, LITELLM, OVERRIDE};
use crate::cost::{fetch, parse, PriceEntry};
use crate::render::{self, Cell, Format, Output, Progress, Role, Table};
use crate::store::{self, DbKind, Store};
use anyhow::Context;
use clap::Subcommand;
use serde_json::json;

/// Where `prices refresh litellm` downloads from when no `--from` is given.
pub(crate) const LITELLM_URL: &str = "https://raw.githubusercontent.com/BerriAI/litellm/main/model_prices_and_context_window.json";

#[derive(Debug, Subcommand)]
pub(crate) enum PricesCommand {
    /// Replace one plane of the catalog from a file or URL, then reload the override file.
    Refresh {
        /// `litellm` (default), `override`, or a provider plane (`claude`, `cursor`, ...).
        plane: Option<String>,
        /// A file path or an http(s):// URL (default: LiteLLM's catalog for litellm,
        /// `$TLC_HOME/prices/<plane>.toml|.json` for a provider plane).
        #[arg(long = "from", value_name = "FILE|URL")]
        from: Option<String>,
    },
    /// The price of one model: override, then the provider's plane, then litellm (read-only).
    Lookup {
        /// The model name as a provider sends it (`claude-sonnet-4-5-20250929`).
        model: String,
        /// The asking provider's plane (`claude`, `cursor`, ...).
        provider: Option<String>,
        #[command(flatten)]
        output: OutputArgs,
    },
    /// Every entry, in resolution order (read-only).
    List {
        /// Only entries of this plane or this catalog provider (`anthropic`, `cursor`, ...).
        #[arg(long)]
        provider: Option<String>,
        /// Only keys containing this text (case-insensitive).
        #[arg(long)]
        search: Option<String>,
        #[command(flatten)]
        output: OutputArgs,
    },
    /// Per plane: where its prices came from, when, and how many (read-only).
    Status {
        #[command(flatten)]
        output: OutputArgs,
    },
}

fn valid_plane(p: &str) -> bool {
    !p.is_empty()
        && p.bytes()
            .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-' || b == b'_')
}

pub(crate) fn run(ctx: &Ctx, cmd: PricesCommand) -> anyhow::Result<()> {
    match cmd {
        PricesCommand::Refresh { plane, from } => refresh(ctx, plane.as_deref().unwrap_or(LITELLM), from),
        PricesCommand::Lookup { model, provider, output } => lookup(ctx, &model, provider.as_deref(), output.output()?),
        PricesCommand::List { provider, search, output } => list(ctx, provider.as_deref(), search.as_deref(), output.output()?),
        PricesCommand::Status { output } => status(ctx, output.output()?),
    }
}

/// The default source of a provider plane: `$TLC_HOME/prices/<plane>.toml`, else `.json`.
fn provider_source(ctx: &Ctx, plane: &str) -> anyhow::Result<String> {
    let dir = ctx.paths()?.home.join("prices");
    for ext in ["toml", "json"] {
        let p = dir.join(format!("{plane}.{ext}"));
        if p.is_file() {
            return Ok(p.display().to_string());
        }
    }
    Err(crate::error::unusable(format!(
        "no source for the {plane} plane: pass --from FILE|URL, or write {}",
        dir.join(format!("{plane}.toml")).display()
    )))
}

/// Downloads or reads `source` and parses it. The error is the message recorded in the refresh
/// history and shown to the operator (it names the source).
fn read_source(source: &str) -> anyhow::Result<Vec<PriceEntry>> {
    let mut progress = Progress::bytes(format!("downloading {source}"), 0);
    let mut last = 0u64;
    let bytes = fetch::fetch(source, &mut |done, total| {
        progress.set_total(total);
        progress.inc(done.saturating_sub(last));
        last = done;
    })?;
    progress.finish();
    parse::parse_source(source, &bytes).with_context(|| source.to_string())
}

fn store_plane(cat: &PriceCatalog, plane: &str, source: &str, entries: &[PriceEntry]) -> anyhow::Result<RefreshOutcome> {
    let mut progress = Progress::new(format!("storing {plane}"), entries.len() as u64);
    let mut last = 0u64;
    let outcome = cat.replace_plane(plane, source, entries, &mut |done| {
        progress.inc(done.saturating_sub(last));
        last = done;
    })?;
    progress.finish();
    Ok(outcome)
}

fn refresh(ctx: &Ctx, plane: &str, from: Option<String>) -> anyhow::Result<()> {
    if !valid_plane(plane) {
        return Err(crate::error::unusable(format!(
            "{plane:?} is not a plane name (lowercase letters, digits, - and _)"
        )));
    }
    let paths = ctx.paths()?;
    let override_path = catalog::override_file(paths);
    if plane == OVERRIDE && from.is_some() {
        return Err(crate::error::unusable(format!(
            "the override plane is always read from {}; --from does not apply",
            override_path.display()
        )));
    }
    let home = store::open_write(DbKind::Home, &paths.home_db())?;
    let cat = PriceCatalog::new(Some(home.conn()), &override_path)?;
    if plane != OVERRIDE {
        let source = match from {
            Some(s) => s,
            None if plane == LITELLM => LITELLM_URL.to_string(),
            None => provider_source(ctx, plane)?,
        };
        let entries = match read_source(&source) {
            Ok(e) => e,
            Err(e) => {
                let message = format!("{e:#}");
                cat.record_failure(plane, &source, &message)?;
                return Err(crate::error::unusable(message));
            }
        };
        match store_plane(&cat, plane, &source, &entries)? {
            RefreshOutcome::Refused { entries, stored } => {
                return Err(crate::error::refused(format!(
                    "refused to refresh the {plane} plane from {source}: it has {entries} entries, fewer than half of the {stored} stored; the stored plane was kept"
                )));
            }
            RefreshOutcome::Replaced { entries, previous } => {
                render::out(&format!("{plane}: {entries} entries from {source} (was {previous})\n"))?;
            }
        }
    }
    // The operator's overrides are reloaded on every refresh.
    let source = override_path.display().to_string();
    let entries = match catalog::read_override_file(&override_path) {
        Ok(e) => e,
        Err(e) => {
            cat.record_failure(OVERRIDE, &source, &e.to_string())?;
            return Err(e.into());
        }
    };
    if let RefreshOutcome::Replaced { entries, previous } = store_plane(&cat, OVERRIDE, &source, &entries)? {
        if entries > 0 || previous > 0 || plane == OVERRIDE {
            render::out(&format!("override: {entries} entries from {source} (was {previous})\n"))?;
        }
    }
    Ok(())
}

fn opt(v: Option<f64>) -> serde_json::Value {
    v.map_or(serde_json::Value::Null, |f| json!(f))
}

fn lookup(ctx: &Ctx, model: &str, provider: Option<&str>, output: Output) -> anyhow::Result<()> {
    let paths = ctx.paths()?;
    let home = store::open_read(DbKind::Home, &paths.home_db())?;
    let cat = PriceCatalog::new(home.as_ref().map(Store::conn), &catalog::override_file(paths))?;
    let Some(p) = cat.resolve(model, provider)? else {
        return Err(crate::error::unusable(format!("no price for {model}")));
    };
    let r = p.rates();
    if output.format != Format::Table {
        let v = json!({
            "model": model,
            "provider": provider,
            "key": p.key,
            "plane": p.plane,
            "builtin": p.builtin,
            "unit": "USD per 1M tokens",
            "input": r.input,
            "output": r.output,
            "cache_read": opt(r.cache_read),
            "cache_write": opt(r.cache_write),
            "input_above_200k": opt(r.input_above_200k),
            "output_above_200k": opt(r.output_above_200k),
            "cache_read_above_200k": opt(r.cache_read_above_200k),
            "cache_write_above_200k": opt(r.cache_write_above_200k),
            "cache_write_1h": opt(r.cache_write_1h),
            "cache_write_1h_above_200k": opt(r.cache_write_1h_above_200k),
            "context_window": p.entry.context_window,
            "catalog_provider": p.entry.provider,
            "display_name": p.entry.display_name,
            "pool": p.entry.pool,
            "billing": p.entry.billing,
        });
        if output.format == Format::Json {
            return render::json(&v);
        }
        return Table::record(&v).print(output);
    }
    let origin = if p.builtin && p.plane == LITELLM {
        "litellm (built-in snapshot)".to_string()
    } else if p.builtin && p.plane == crate::cost::anthropic::PLANE {
        "anthropic (built-in published prices)".to_string()
    } else if p.builtin {
        format!("{} (read from the file)", p.plane)
    } else {
        p.plane.clone()
    };
    let mut text = format!("{model}: {} from the {origin} plane, USD per 1M tokens\n", p.key);
    let price = |v: Option<f64>| v.map_or("-".to_string(), |v| format!("${v}"));
    let tier = |base: Option<f64>, above: Option<f64>| match above {
        Some(a) => format!("{}  (above 200k prompt tokens: ${a})", price(base)),
        None => price(base),
    };
    text += &format!("  input        {}\n", tier(Some(r.input), r.input_above_200k));
    text += &format!("  output       {}\n", tier(Some(r.output), r.output_above_200k));
    text += &format!("  cache read   {}\n", tier(r.cache_read, r.cache_read_above_200k));
    text += &format!("  cache write  {}  (5-minute)\n", tier(r.cache_write, r.cache_write_above_200k));
    text += &match (r.cache_write_1h, r.cache_write_1h_above_200k) {
        (None, None) => "  cache write  - (1-hour; priced at 2x the input rate)\n".to_string(),
        (base, above) => format!("  cache write  {}  (1-hour)\n", tier(base, above)),
    };
    if r.input_above_200k.is_some() {
        text += "  long context a prompt over 200,000 tokens (input + cache read + cache write) bills the whole request at the rates above 200k\n";
    }
    if let Some(w) = p.entry.context_window {
        text += &format!("  context      {} tokens\n", render::thousands(w));
    }
    for (label, v) in [
        ("provider", &p.entry.provider),
        ("pool", &p.entry.pool),
        ("billing", &p.entry.billing),
    ] {
        if let Some(v) = v {
            text += &format!("  {label:<12} {v}\n");
        }
    }
    render::out(&text)
}

fn list(ctx: &Ctx, provider: Option<&str>, search: Option<&str>, output: Output) -> anyhow::Result<()> {
    let format = output.format;
    let paths = ctx.paths()?;
    let home = store::open_read(DbKind::Home, &paths.home_db())?;
    let cat = PriceCatalog::new(home.as_ref().map(Store::conn), &catalog::override_file(paths))?;
    let rows = cat.list(provider, search)?;
    let mut t = Table::new([
        "plane",
        "model",
        "provider",
        "input",
        "output",
        "cache_read",
        "cache_write",
        "input_above_200k",
        "output_above_200k",
        "cache_read_above_200k",
        "cache_write_above_200k",
        "context_window",
        "pool",
        "billing",
        "cache_write_1h",
        "cache_write_1h_above_200k",
    ]);
    for l in rows {
        let e = l.entry;
        let r = e.rates;
        let plane = if l.builtin && (l.plane == LITELLM || l.plane == crate::cost::anthropic::PLANE) {
            format!("{} (built-in)", l.plane)
        } else {
            l.plane
        };
        t.push(vec![
            plane.into(),
            e.model_key.into(),
            e.provider.into(),
            Cell::Float(r.input),
            Cell::Float(r.output),
            r.cache_read.into(),
            r.cache_write.into(),
            r.input_above_200k.into(),
            r.output_above_200k.into(),
            r.cache_read_above_200k.into(),
            r.cache_write_above_200k.into(),
            e.context_window.into(),
            e.pool.into(),
            e.billing.into(),
            r.cache_write_1h.into(),
            r.cache_write_1h_above_200k.into(),
        ]);
    }
    if format == Format::Table {
        // The terminal shows the columns people compare; csv and json carry them all.
        let keep = [0usize, 1, 2, 3, 4, 5, 6, 11];
        let mut narrow = Table::new([
            "plane",
            "model",
            "provider",
            "input $/1M",
            "output $/1M",
            "cache read",
            "cache write",
            "context",
        ])
        .roles([
            Role::Text,
            Role::Text,
            Role::Key,
            Role::Number,
            Role::Number,
            Role::Number,
            Role::Number,
            Role::Number,
        ])
        .droppable(&["provider", "context", "cache write", "cache read"]);
        for row in &t.rows {
            narrow.push(keep.iter().map(|i| row[*i].clone()).collect());
        }
        return narrow.print_with(output, &|i, c| match (i, c) {
            (7, Cell::Int(v)) => render::thousands(*v),
            _ => c.plain(),
        });
    }
    t.print(output)
}

fn status(ctx: &Ctx, output: Output) -> anyhow::Result<()> {
    let paths = ctx.paths()?;
    let home = store::open_read(DbKind::Home, &paths.home_db())?;
    let cat = PriceCatalog::new(home.as_ref().map(Store::conn), &catalog::override_file(paths))?;
    let planes = cat.status(&catalog::override_file(paths))?;
    if output.format == Format::Json {
        return render::json(&json!({ "planes": planes }));
    }
    let mut t = Table::new(["plane", "source", "refreshed", "entries", "last failure"]).roles([
        Role::Key,
        Role::Text,
        Role::Text,
        Role::Number,
        Role::Text,
    ]);
    for p in planes {
        t.push(vec![
            p.plane.into(),
            p.source.into(),
            p.refreshed_at.unwrap_or_else(|| "never (built in / live)".into()).into(),
            Cell::Int(p.entries),
            p.last_failure.into(),
        ]);
    }
    t.print(output)
}
