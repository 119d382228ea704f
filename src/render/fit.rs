//! Fitting a table to the terminal's width. Every column has a role: keys, ids, dates, numbers
//! and lists never wrap (a number split over two lines reads as two numbers); free text takes
//! the width that is left and is cut with `…` past two lines; prose wraps and is never cut.
//! When even that does not fit, the columns a table names as droppable go first (ccusage's
//! narrow form). Pure: the terminal's width comes in as a number.

use unicode_width::{UnicodeWidthChar, UnicodeWidthStr};

/// What a column holds, which decides how it may be fitted.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Role {
    /// A name or code (kind, provider, rule, status): never wraps.
    Key,
    /// An identifier (a session id) shown as its shortest unique prefix, 8 characters at least;
    /// whole with `--wide` and always whole in JSON and CSV.
    Id,
    /// A date or a time: never wraps.
    Date,
    /// A count, an amount or a duration: never wraps, right-aligned.
    Number,
    /// Several names (a cell's plain form separates them with ", "): one per line, never wrapped.
    List,
    /// Free text: takes the width that is left, wraps onto a second line, then is cut with `…`.
    Text,
    /// Sentences that must be read whole (a doctor detail, a fix to run): wraps, never cut.
    Prose,
}

impl Role {
    fn shrinks(self) -> bool {
        matches!(self, Role::Text | Role::Prose)
    }
}

/// The narrowest a text column is made before droppable columns go.
const TEXT_MIN: usize = 12;
/// An id is never shown shorter than this.
const ID_MIN: usize = 8;
/// How many lines a `Text` cell may take before it is cut.
const TEXT_LINES: usize = 2;

/// A table laid out for the terminal: the columns kept (indices into the input), and headers and
/// cells with their line breaks in place.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Fitted {
    pub columns: Vec<usize>,
    pub headers: Vec<String>,
    pub rows: Vec<Vec<String>>,
    pub right_aligned: Vec<bool>,
}

/// The display width of `s` (its widest line).
pub(crate) fn width(s: &str) -> usize {
    s.lines().map(UnicodeWidthStr::width).max().unwrap_or(0)
}

/// The width of the frame `UTF8_FULL_CONDENSED` draws around `n` columns (borders and padding).
pub(crate) fn frame(n: usize) -> usize {
    1 + 3 * n
}

/// Lays out `cells` (display text, one row per entry) under `headers` with `roles`. `limit` is
/// the terminal's width (None: not a terminal, nothing is fitted); `wide` keeps every column,
/// whole ids and whole text. `droppable` lists columns in the order they go when the table does
/// not fit.
pub(crate) fn fit(
    headers: &[String],
    roles: &[Role],
    droppable: &[usize],
    mut cells: Vec<Vec<String>>,
    limit: Option<usize>,
    wide: bool,
) -> Fitted {
    let n = headers.len();
    for (c, role) in roles.iter().enumerate().take(n) {
        match role {
            Role::List => {
                for row in cells.iter_mut() {
                    if let Some(cell) = row.get_mut(c) {
                        *cell = cell.split(", ").collect::<Vec<_>>().join("\n");
                    }
                }
            }
            Role::Id if !wide => shorten_ids(&mut cells, c),
            _ => {}
        }
    }
    let cell_width = |c: usize| cells.iter().map(|r| r.get(c).map_or(0, |s| width(s))).max().unwrap_or(0);
    let natural: Vec<usize> = (0..n).map(|c| cell_width(c).max(width(&headers[c])).max(1)).collect();
    let all: Vec<usize> = (0..n).collect();
    let Some(limit) = limit.filter(|_| !wide) else {
        return finish(headers, roles, &cells, &all, &natural);
    };
    let word = |c: usize| headers[c].split_whitespace().map(UnicodeWidthStr::width).max().unwrap_or(0);
    // A fixed column's narrowest: its widest cell, with the header wrapped at its spaces.
    let snug: Vec<usize> = (0..n).map(|c| cell_width(c).max(word(c)).max(1)).collect();
    let mut kept = all.clone();
    let mut drops = droppable.iter().copied().filter(|c| *c < n);
    loop {
        let total: usize = frame(kept.len()) + kept.iter().map(|&c| natural[c]).sum::<usize>();
        if total <= limit {
            return finish(headers, roles, &cells, &kept, &natural);
        }
        let least: usize = frame(kept.len())
            + kept
                .iter()
                .map(|&c| if roles[c].shrinks() { natural[c].min(TEXT_MIN) } else { snug[c] })
                .sum::<usize>();
        if least <= limit {
            break;
        }
        match drops.next() {
            Some(d) => kept.retain(|c| *c != d),
            None => break,
        }
    }
    let mut widths: Vec<usize> = natural.clone();
    for &c in &kept {
        if !roles[c].shrinks() {
            widths[c] = snug[c];
        }
    }
    let fixed: usize = kept.iter().filter(|&&c| !roles[c].shrinks()).map(|&c| widths[c]).sum();
    let text: Vec<usize> = kept.iter().copied().filter(|&c| roles[c].shrinks()).collect();
    let mut room = limit.saturating_sub(frame(kept.len()) + fixed);
    for &c in &text {
        widths[c] = natural[c].min(TEXT_MIN).min(room.max(1));
        room = room.saturating_sub(widths[c]);
    }
    // Water-filling: the room left goes a column at a time to the text columns that want more.
    while room > 0 {
        let wanting: Vec<usize> = text.iter().copied().filter(|&c| widths[c] < natural[c]).collect();
        if wanting.is_empty() {
            break;
        }
        let share = (room / wanting.len()).max(1);
        for c in wanting {
            let give = share.min(natural[c] - widths[c]).min(room);
            widths[c] += give;
            room -= give;
        }
    }
    // Whatever is still free unwraps headers of fixed columns, left to right.
    for &c in &kept {
        if !roles[c].shrinks() && widths[c] < natural[c] && room > 0 {
            let give = (natural[c] - widths[c]).min(room);
            widths[c] += give;
            room -= give;
        }
    }
    finish(headers, roles, &cells, &kept, &widths)
}

fn finish(headers: &[String], roles: &[Role], cells: &[Vec<String>], kept: &[usize], widths: &[usize]) -> Fitted {
    let header = |c: usize| wrap(&headers[c], widths[c]).join("\n");
    let cell = |row: &Vec<String>, c: usize| {
        let s = row.get(c).map(String::as_str).unwrap_or("");
        match roles[c] {
            Role::Text => {
                let mut lines = wrap(s, widths[c]);
                if lines.len() > TEXT_LINES {
                    lines.truncate(TEXT_LINES);
                    let last = &lines[TEXT_LINES - 1];
                    lines[TEXT_LINES - 1] = cut(last, widths[c].saturating_sub(1)) + "…";
                }
                lines.join("\n")
            }
            Role::Prose => wrap(s, widths[c]).join("\n"),
            _ => s.to_string(),
        }
    };
    Fitted {
        columns: kept.to_vec(),
        headers: kept.iter().map(|&c| header(c)).collect(),
        rows: cells.iter().map(|r| kept.iter().map(|&c| cell(r, c)).collect()).collect(),
        right_aligned: kept.iter().map(|&c| roles[c] == Role::Number).collect(),
    }
}

/// The longest start of `s` no wider than `w`.
fn cut(s: &str, w: usize) -> String {
    let mut out = String::new();
    let mut used = 0;
    for ch in s.chars() {
        let cw = ch.width().unwrap_or(0);
        if used + cw > w {
            break;
        }
        used += cw;
        out.push(ch);
    }
    out
}

/// `s` broken into lines no wider than `w`: at spaces where it can, inside a word longer than
/// the line where it must. Line breaks already in `s` are kept.
pub(crate) fn wrap(s: &str, w: usize) -> Vec<String> {
    let w = w.max(1);
    let mut lines = Vec::new();
    for para in s.split('\n') {
        let mut line = String::new();
        let mut used = 0;
        for word in para.split(' ').filter(|w| !w.is_empty()) {
            let mut word = word.to_string();
            let mut ww = UnicodeWidthStr::width(word.as_str());
            if used > 0 && used + 1 + ww <= w {
                line.push(' ');
                line.push_str(&word);
                used += 1 + ww;
                continue;
            }
            if used > 0 {
                lines.push(std::mem::take(&mut line));
            }
            while ww > w {
                let head = cut(&word, w);
                word = word[head.len()..].to_string();
                ww = UnicodeWidthStr::width(word.as_str());
                lines.push(head);
            }
            line = word;
            used = ww;
        }
        lines.push(line);
    }
    lines
}

/// Shortens the ids in column `c` to the shortest prefix (at least [`ID_MIN`] characters) that
/// still tells every distinct id in the column apart, so a prefix shown can be typed back.
fn shorten_ids(cells: &mut [Vec<String>], c: usize) {
    let distinct: std::collections::BTreeSet<String> = cells.iter().filter_map(|r| r.get(c).cloned()).collect();
    let longest = distinct.iter().map(|s| s.chars().count()).max().unwrap_or(0);
    let prefix = |s: &str, n: usize| s.chars().take(n).collect::<String>();
    let mut n = ID_MIN;
    while n < longest {
        let seen: std::collections::BTreeSet<String> = distinct.iter().map(|s| prefix(s, n)).collect();
        if seen.len() == distinct.len() {
            break;
        }
        n += 1;
    }
    for row in cells.iter_mut() {
        if let Some(cell) = row.get_mut(c) {
            *cell = prefix(cell, n);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn s(v: &[&str]) -> Vec<String> {
        v.iter().map(|x| x.to_string()).collect()
    }

    #[test]
    fn wrap_breaks_at_spaces_and_inside_long_words() {
        assert_eq!(wrap("alpha beta gamma", 10), s(&["alpha beta", "gamma"]));
        assert_eq!(wrap("abcdefghijkl", 5), s(&["abcde", "fghij", "kl"]));
        assert_eq!(wrap("a\nb", 5), s(&["a", "b"]));
    }

    #[test]
    fn ids_keep_the_shortest_unique_prefix() {
        let mut cells = vec![
            s(&["0b7c3f2a-1111-2222-3333-444455556666"]),
            s(&["0b7c3f2a-9999-2222-3333-444455556666"]),
            s(&["ffffffff-0000-0000-0000-000000000000"]),
        ];
        shorten_ids(&mut cells, 0);
        assert_eq!(cells[0][0], "0b7c3f2a-1");
        assert_eq!(cells[1][0], "0b7c3f2a-9");
        assert_eq!(cells[2][0], "ffffffff-0");
        let mut one = vec![s(&["0b7c3f2a-1111-2222-3333-444455556666"])];
        shorten_ids(&mut one, 0);
        assert_eq!(one[0][0], "0b7c3f2a");
    }

    #[test]
    fn numbers_and_dates_never_wrap_text_is_cut_after_two_lines() {
        let headers = s(&["day", "tokens", "note"]);
        let roles = [Role::Date, Role::Number, Role::Text];
        let long_note = "word ".repeat(40);
        let cells = vec![s(&["2026-11-25", "10,045,583", long_note.trim()])];
        let f = fit(&headers, &roles, &[], cells, Some(40), false);
        assert_eq!(f.rows[0][0], "2026-11-25");
        assert_eq!(f.rows[0][1], "10,045,583");
        let note: Vec<&str> = f.rows[0][2].lines().collect();
        assert_eq!(note.len(), 2);
        assert!(note[1].ends_with('…'), "{note:?}");
        let used = frame(3) + 10 + 10 + width(&f.rows[0][2]);
        assert!(used <= 40, "{used}");
        assert_eq!(f.right_aligned, vec![false, true, false]);
    }

    #[test]
    fn droppable_columns_go_in_order_when_nothing_else_fits() {
        let headers = s(&["day", "input", "cache read", "cache create", "cost"]);
        let roles = [Role::Date, Role::Number, Role::Number, Role::Number, Role::Number];
        let cells = vec![s(&["2026-11-25", "123,456,789", "123,456,789", "123,456,789", "$1234.5678"])];
        // 56 columns: without `cache read` the table fits whole (frame 13 + 10 + 11 + 12 + 10).
        let f = fit(&headers, &roles, &[2, 3], cells.clone(), Some(56), false);
        assert_eq!(f.columns, vec![0, 1, 3, 4]);
        let f = fit(&headers, &roles, &[2, 3], cells.clone(), Some(45), false);
        assert_eq!(f.columns, vec![0, 1, 4]);
        let f = fit(&headers, &roles, &[2, 3], cells, Some(40), true);
        assert_eq!(f.columns, vec![0, 1, 2, 3, 4]);
    }

    #[test]
    fn lists_go_one_per_line() {
        let f = fit(&s(&["models"]), &[Role::List], &[], vec![s(&["opus-4, sonnet-4"])], Some(80), false);
        assert_eq!(f.rows[0][0], "opus-4\nsonnet-4");
    }
}
