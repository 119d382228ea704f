//! A small line diff (longest common subsequence) for upgrade reviews: files in a package are
//! small, so the quadratic table is fine and needs no dependency.

/// A unified-style diff of `old` and `new` (`-`/`+`/` ` lines with up to 3 lines of context);
/// empty when they are equal.
pub(crate) fn unified(old: &str, new: &str) -> String {
    if old == new {
        return String::new();
    }
    let a: Vec<&str> = old.lines().collect();
    let b: Vec<&str> = new.lines().collect();
    // Very large files get a summary instead of a quadratic table.
    if a.len().saturating_mul(b.len()) > 4_000_000 {
        return format!("@@ {} lines -> {} lines (too large to diff line by line) @@\n", a.len(), b.len());
    }
    let (n, m) = (a.len(), b.len());
    let mut lcs = vec![vec![0u32; m + 1]; n + 1];
    for i in (0..n).rev() {
        for j in (0..m).rev() {
            lcs[i][j] = if a[i] == b[j] {
                lcs[i + 1][j + 1] + 1
            } else {
                lcs[i + 1][j].max(lcs[i][j + 1])
            };
        }
    }
    let mut ops: Vec<(char, &str)> = Vec::new();
    let (mut i, mut j) = (0, 0);
    while i < n || j < m {
        if i < n && j < m && a[i] == b[j] {
            ops.push((' ', a[i]));
            i += 1;
            j += 1;
        } else if i < n && (j == m || lcs[i + 1][j] >= lcs[i][j + 1]) {
            ops.push(('-', a[i]));
            i += 1;
        } else {
            ops.push(('+', b[j]));
            j += 1;
        }
    }
    // Keep changed lines and 3 lines of context around them.
    let keep: Vec<bool> = (0..ops.len())
        .map(|k| (k.saturating_sub(3)..(k + 4).min(ops.len())).any(|x| ops[x].0 != ' '))
        .collect();
    let mut out = String::new();
    let mut gap = false;
    for (k, (op, line)) in ops.iter().enumerate() {
        if keep[k] {
            if gap {
                out.push_str("@@\n");
            }
            gap = false;
            out.push_str(&format!("{op}{line}\n"));
        } else {
            gap = true;
        }
    }
    out
}

#[cfg(test)]
mod tests {
    #[test]
    fn diffs_show_changes_with_context() {
        assert_eq!(super::unified("a\nb\n", "a\nb\n"), "");
        let d = super::unified("a\nb\nc\n", "a\nB\nc\nd\n");
        assert_eq!(d, " a\n-b\n+B\n c\n+d\n");
        let old: String = (0..20).map(|i| format!("{i}\n")).collect();
        let new = old.replace("10\n", "ten\n");
        let d = super::unified(&old, &new);
        assert!(d.contains("-10\n+ten\n") && !d.contains(" 1\n") && d.contains(" 7\n"), "{d}");
    }
}
