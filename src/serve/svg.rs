//! Charts as SVG, drawn by tlc from the rows a page already holds: axes with labelled ticks, and
//! every bar's value in its `<title>` (shown on hover). Colours are presentation attributes, not
//! inline style, so the Content-Security-Policy needs no `unsafe-inline`. Every label passes
//! `html::esc`.

use super::html::esc;

/// The colour of the n-th series.
pub(crate) fn colour(n: usize) -> &'static str {
    const PALETTE: &[&str] = &[
        "#4e79a7", "#f28e2b", "#59a14f", "#e15759", "#76b7b2", "#edc948", "#b07aa1", "#ff9da7", "#9c755f", "#bab0ac",
    ];
    PALETTE[n % PALETTE.len()]
}

const W: f64 = 800.0;
const H: f64 = 300.0;
const LEFT: f64 = 72.0;
const RIGHT: f64 = 40.0;
const TOP: f64 = 16.0;
const BOTTOM: f64 = 64.0;

/// The fewest slots a bar chart's width is shared by: a day alone is drawn as wide as a day of
/// a week (one bar across the whole plot reads as a span of time, not one day).
const MIN_SLOTS: usize = 7;

/// The width of one label's slot and where the first slot starts, for `n` labels: the plot's
/// width shared by `n` (at least [`MIN_SLOTS`]), the slots centred when they fill less of it.
fn slots(n: usize) -> (f64, f64) {
    let plot_w = W - LEFT - RIGHT;
    let slot = plot_w / n.max(MIN_SLOTS) as f64;
    (slot, LEFT + (plot_w - slot * n as f64) / 2.0)
}

/// A round step for about `parts` ticks up to `max`.
fn step(max: f64, parts: f64) -> f64 {
    if max <= 0.0 || !max.is_finite() {
        return 1.0;
    }
    let raw = max / parts;
    let mag = 10f64.powf(raw.log10().floor());
    let norm = raw / mag;
    let nice = if norm <= 1.0 {
        1.0
    } else if norm <= 2.0 {
        2.0
    } else if norm <= 5.0 {
        5.0
    } else {
        10.0
    };
    nice * mag
}

/// One series of a bar chart: its name and a value per x label.
pub(crate) struct Series {
    pub name: String,
    pub values: Vec<f64>,
}

/// A tick's label: as many decimals as the step needs, `$` before a cost.
fn tick_text(v: f64, step: f64, unit: &str) -> String {
    let decimals = if step >= 1.0 {
        0
    } else {
        (-step.log10().floor()).max(0.0) as usize
    };
    let n = format!("{v:.decimals$}");
    if unit == "USD" {
        format!("${n}")
    } else {
        n
    }
}

/// The tick step for values up to `max`: a round one, whole for counts (anything but USD).
fn tick_step(max: f64, unit: &str) -> f64 {
    let s = step(max, 4.0);
    if unit == "USD" {
        s
    } else {
        s.max(1.0)
    }
}

/// The axes: y ticks every `s` from 0 to the top, the y axis's name, and the x labels under
/// their slots.
fn axes(out: &mut String, top: f64, s: f64, unit: &str, labels: &[String]) {
    let plot_h = H - TOP - BOTTOM;
    let mut t = 0.0;
    while t <= top + s * 1e-9 {
        let y = TOP + plot_h - t / top * plot_h;
        out.push_str(&format!(
            "<line x1=\"{LEFT}\" x2=\"{}\" y1=\"{y:.1}\" y2=\"{y:.1}\" class=\"grid\"/><text x=\"{}\" y=\"{:.1}\" class=\"tick\" text-anchor=\"end\">{}</text>",
            W - RIGHT,
            LEFT - 6.0,
            y + 4.0,
            esc(&tick_text(t, s, unit))
        ));
        t += s;
    }
    out.push_str(&format!(
        "<text x=\"14\" y=\"{:.1}\" class=\"axis\" transform=\"rotate(-90 14 {:.1})\" text-anchor=\"middle\">{}</text>",
        TOP + plot_h / 2.0,
        TOP + plot_h / 2.0,
        esc(unit)
    ));
    out.push_str(&format!(
        "<line x1=\"{LEFT}\" x2=\"{LEFT}\" y1=\"{TOP}\" y2=\"{:.1}\" class=\"axisline\"/><line x1=\"{LEFT}\" x2=\"{}\" y1=\"{:.1}\" y2=\"{:.1}\" class=\"axisline\"/>",
        TOP + plot_h,
        W - RIGHT,
        TOP + plot_h,
        TOP + plot_h
    ));
    let n = labels.len().max(1);
    let (slot, first) = slots(n);
    // At most about 16 labels: every k-th one.
    let every = n.div_ceil(16);
    for (i, l) in labels.iter().enumerate() {
        if i % every != 0 {
            continue;
        }
        let x = first + slot * (i as f64 + 0.5);
        let y = TOP + plot_h + 14.0;
        out.push_str(&format!(
            "<text x=\"{x:.1}\" y=\"{y:.1}\" class=\"tick\" text-anchor=\"end\" transform=\"rotate(-35 {x:.1} {y:.1})\">{}</text>",
            esc(l)
        ));
    }
}

/// Bars per x label, the series stacked in each; `fmt` writes a value (ticks and hover).
pub(crate) fn stacked_bars(id: &str, title: &str, unit: &str, labels: &[String], series: &[Series], fmt: &dyn Fn(f64) -> String) -> String {
    let totals: Vec<f64> = (0..labels.len())
        .map(|i| series.iter().map(|s| s.values.get(i).copied().unwrap_or(0.0).max(0.0)).sum())
        .collect();
    let max = totals.iter().copied().fold(0.0, f64::max);
    let s = tick_step(max, unit);
    let top = if max > 0.0 { (max / s).ceil() * s } else { s };
    let plot_h = H - TOP - BOTTOM;
    let (slot, first) = slots(labels.len().max(1));
    let bar = (slot * 0.7).max(1.0);
    let mut out = open(id, title);
    axes(&mut out, top, s, unit, labels);
    for (i, label) in labels.iter().enumerate() {
        let x = first + slot * i as f64 + (slot - bar) / 2.0;
        let mut y = TOP + plot_h;
        for (n, s) in series.iter().enumerate() {
            let v = s.values.get(i).copied().unwrap_or(0.0).max(0.0);
            if v <= 0.0 {
                continue;
            }
            let h = v / top * plot_h;
            y -= h;
            out.push_str(&format!(
                "<rect x=\"{x:.1}\" y=\"{y:.1}\" width=\"{bar:.1}\" height=\"{h:.1}\" fill=\"{}\"><title>{} · {}: {} (of {})</title></rect>",
                colour(n),
                esc(label),
                esc(&s.name),
                esc(&fmt(v)),
                esc(&fmt(totals[i]))
            ));
        }
    }
    out.push_str("</svg>");
    out + &legend(series.iter().map(|s| s.name.as_str()))
}

/// Bars with a line over them: the bars' series stacked (counts, left axis), the line a share
/// from 0 to 100% drawn over the same height (pass rate over time).
pub(crate) fn bars_with_rate(
    id: &str,
    title: &str,
    unit: &str,
    labels: &[String],
    series: &[Series],
    rate: &[Option<f64>],
    rate_name: &str,
) -> String {
    let count = |v: f64| format!("{v:.0}");
    let mut chart = stacked_bars(id, title, unit, labels, series, &count);
    let Some(end) = chart.find("</svg>") else { return chart };
    let plot_h = H - TOP - BOTTOM;
    let (slot, first) = slots(labels.len().max(1));
    let mut points = Vec::new();
    let mut dots = String::new();
    for (i, r) in rate.iter().enumerate() {
        if let Some(r) = r {
            let x = first + slot * (i as f64 + 0.5);
            let y = TOP + plot_h - r.clamp(0.0, 1.0) * plot_h;
            points.push(format!("{x:.1},{y:.1}"));
            dots.push_str(&format!(
                "<circle cx=\"{x:.1}\" cy=\"{y:.1}\" r=\"4\" class=\"rate\"><title>{}: {} {:.0}%</title></circle>",
                esc(&labels[i]),
                esc(rate_name),
                r * 100.0
            ));
        }
    }
    let line = format!(
        "<polyline points=\"{}\" class=\"rate\" fill=\"none\"/>{dots}<text x=\"{}\" y=\"{:.1}\" class=\"tick\" text-anchor=\"start\">100%</text><text x=\"{}\" y=\"{:.1}\" class=\"tick\" text-anchor=\"start\">0%</text><text x=\"{}\" y=\"{:.1}\" class=\"axis\" text-anchor=\"end\">line: {}</text>",
        points.join(" "),
        W - RIGHT + 2.0,
        TOP + 4.0,
        W - RIGHT + 2.0,
        TOP + plot_h + 4.0,
        W - RIGHT,
        H - 6.0,
        esc(rate_name)
    );
    chart.insert_str(end, &line);
    chart
}

/// One horizontal bar per row: (label, value); `fmt` writes the value at the bar's end.
pub(crate) fn hbars(id: &str, title: &str, rows: &[(String, f64)], fmt: &dyn Fn(f64) -> String) -> String {
    let rows: Vec<(String, f64, String)> = rows.iter().map(|(l, v)| (l.clone(), *v, fmt(*v))).collect();
    hbars_text(id, title, &rows)
}

/// The characters of a bar's label drawn before it is cut (with `…`) on the right.
const LABEL_CHARS: usize = 28;

/// One horizontal bar per row: (label, value, the text written at the bar's end). A label starts
/// at the chart's left edge and is cut on the right (at [`LABEL_CHARS`], and by a clip before the
/// bars in a wide font): the start of a label — a session id's — is what tells it apart.
pub(crate) fn hbars_text(id: &str, title: &str, rows: &[(String, f64, String)]) -> String {
    let label_w = 220.0;
    let pad = 8.0;
    let row_h = 26.0;
    let h = TOP + row_h * rows.len().max(1) as f64 + 8.0;
    let max = rows.iter().map(|r| r.1).fold(0.0, f64::max);
    let span = W - label_w - 120.0;
    let clip = format!("{id}-labels");
    let mut out = format!(
        "<svg id=\"{}\" class=\"chart\" viewBox=\"0 0 {W} {h}\" role=\"img\" aria-label=\"{}\" xmlns=\"http://www.w3.org/2000/svg\"><title>{}</title><defs><clipPath id=\"{}\"><rect x=\"0\" y=\"0\" width=\"{:.1}\" height=\"{h:.1}\"/></clipPath></defs><g clip-path=\"url(#{})\">",
        esc(id),
        esc(title),
        esc(title),
        esc(&clip),
        label_w - pad,
        esc(&clip)
    );
    for (i, (label, _, _)) in rows.iter().enumerate() {
        let y = TOP + row_h * i as f64;
        let shown: String = if label.chars().count() > LABEL_CHARS {
            label.chars().take(LABEL_CHARS - 1).collect::<String>() + "…"
        } else {
            label.clone()
        };
        out.push_str(&format!(
            "<text x=\"{pad}\" y=\"{:.1}\" class=\"tick\" text-anchor=\"start\"><title>{}</title>{}</text>",
            y + row_h * 0.6,
            esc(label),
            esc(&shown),
        ));
    }
    out.push_str("</g>");
    for (i, (label, v, text)) in rows.iter().enumerate() {
        let y = TOP + row_h * i as f64;
        let w = if max > 0.0 { (v.max(0.0) / max * span).max(1.0) } else { 1.0 };
        out.push_str(&format!(
            "<rect x=\"{label_w}\" y=\"{y:.1}\" width=\"{w:.1}\" height=\"{:.1}\" fill=\"{}\"><title>{}: {}</title></rect><text x=\"{:.1}\" y=\"{:.1}\" class=\"tick\">{}</text>",
            row_h * 0.7,
            colour(0),
            esc(label),
            esc(text),
            label_w + w + 6.0,
            y + row_h * 0.6,
            esc(text)
        ));
    }
    out.push_str("</svg>");
    out
}

fn open(id: &str, title: &str) -> String {
    format!(
        "<svg id=\"{}\" class=\"chart\" viewBox=\"0 0 {W} {H}\" role=\"img\" aria-label=\"{}\" xmlns=\"http://www.w3.org/2000/svg\"><title>{}</title>",
        esc(id),
        esc(title),
        esc(title)
    )
}

fn legend<'a>(names: impl Iterator<Item = &'a str>) -> String {
    let mut out = String::from("<ul class=\"legend\">");
    for (n, name) in names.enumerate() {
        out.push_str(&format!(
            "<li><svg width=\"12\" height=\"12\" aria-hidden=\"true\"><rect width=\"12\" height=\"12\" fill=\"{}\"/></svg>{}</li>",
            colour(n),
            esc(name)
        ));
    }
    out.push_str("</ul>");
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ticks_are_round_and_labels_escaped() {
        assert_eq!(step(9.0, 4.0), 5.0);
        assert_eq!(step(0.37, 4.0), 0.1);
        assert_eq!(step(0.0, 4.0), 1.0);
        let svg = stacked_bars(
            "c",
            "t",
            "USD",
            &["<d>".to_string()],
            &[Series {
                name: "<m>".into(),
                values: vec![2.5],
            }],
            &|v| format!("{v}"),
        );
        assert!(!svg.contains("<d>") && !svg.contains("<m>"), "{svg}");
        assert!(svg.contains("<title>&lt;d&gt; · &lt;m&gt;: 2.5 (of 2.5)</title>"), "{svg}");
    }

    /// The width of the bars drawn by `stacked_bars` for `days` labels.
    fn bar_width(days: usize) -> f64 {
        let labels: Vec<String> = (0..days).map(|d| format!("2026-11-{:02}", d + 1)).collect();
        let svg = stacked_bars(
            "c",
            "t",
            "USD",
            &labels,
            &[Series {
                name: "m".into(),
                values: vec![1.0; days],
            }],
            &|v| format!("{v}"),
        );
        let at = svg.find("<rect x=").expect("a bar");
        let w = &svg[at..];
        let w = &w[w.find("width=\"").unwrap() + 7..];
        w[..w.find('"').unwrap()].parse().unwrap()
    }

    #[test]
    fn one_day_is_a_narrow_bar_as_wide_as_a_day_of_a_week() {
        let plot = W - LEFT - RIGHT;
        assert!(
            (bar_width(1) - bar_width(7)).abs() < 0.01,
            "{} against {}",
            bar_width(1),
            bar_width(7)
        );
        assert!(bar_width(1) < plot / 8.0);
        assert!(bar_width(30) < bar_width(7));
    }

    #[test]
    fn a_bar_label_starts_at_the_left_and_is_cut_only_at_its_end() {
        let id = "7c0d0009-1f2e-4a5b-9c8d-000000071271";
        let svg = hbars_text("s", "t", &[(id.to_string(), 1.0, "$1.00".into())]);
        assert!(
            svg.contains("text-anchor=\"start\"><title>7c0d0009-1f2e-4a5b-9c8d-000000071271</title>7c0d0009-1f2e-4a5b-9c8d-000…</text>"),
            "{svg}"
        );
        assert!(svg.contains("<clipPath id=\"s-labels\">") && svg.contains("clip-path=\"url(#s-labels)\""));
        assert!(!svg.contains("text-anchor=\"end\""), "{svg}");
    }
}
