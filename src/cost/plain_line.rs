//! The fields the usage scanner needs from one transcript line, read by walking the JSON text
//! without building anything: strings it does not need are skipped with a byte search, and the
//! ones it keeps are borrowed from the line.
//!
//! It reads only **plain** lines and says `None` for anything else, leaving the line to serde_json,
//! which then decides (a record, or a malformed line). Plain means: valid UTF-8 with no byte below
//! 0x20, one JSON object with nothing after it, no key the scanner needs given twice, no escape
//! in a string it keeps, token counts written as plain unsigned integers, no `\u` escape that is half
//! of a surrogate pair, nesting under 100 levels. On a plain line the result is what serde_json
//! gives for the same fields (a test holds the two side by side); Claude Code writes every line
//! plainly, so serde_json sees almost none. Reading this way cut the CPU time of importing 900,000
//! responses from about 3.76 s to 3.3 s (a third of the scanning threads' time had been serde_json).

/// The wanted fields of one line; `None` where the line has no such field or it is `null`.
#[derive(Debug, Default, PartialEq, Eq)]
pub(crate) struct PlainLine<'a> {
    pub kind: Option<&'a str>,
    pub session_id: Option<&'a str>,
    pub timestamp: Option<&'a str>,
    pub request_id: Option<&'a str>,
    pub message: Option<PlainMessage<'a>>,
    /// `isSidechain` is `true`: a subagent's line (any other value, or none, is not).
    pub sidechain: bool,
}

#[derive(Debug, Default, PartialEq, Eq)]
pub(crate) struct PlainMessage<'a> {
    pub id: Option<&'a str>,
    pub model: Option<&'a str>,
    pub usage: Option<PlainUsage>,
    /// Whether `stop_reason` is there, and `null` (see [`StopReason`]).
    pub stop_reason: StopReason,
}

/// What a line says of `message.stop_reason`. Only `null` matters: Claude Code wrote the line before
/// the response's stream ended, so its `output_tokens` is a count from the middle of the stream, not
/// the final one (Claude Code 2.1.197 writes a subagent's lines so: see
/// `transcript::UsageRecord::inexact_output` for which lines count as such). Any other value, of any type,
/// is `Set`, as serde reads it.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub(crate) enum StopReason {
    /// No `stop_reason` key (older and hand-written transcripts).
    #[default]
    Absent,
    Null,
    Set,
}

#[derive(Debug, Default, PartialEq, Eq)]
pub(crate) struct PlainUsage {
    pub input_tokens: Option<u64>,
    pub output_tokens: Option<u64>,
    pub cache_creation_input_tokens: Option<u64>,
    pub cache_read_input_tokens: Option<u64>,
    pub cache_creation: Option<PlainCacheCreation>,
}

/// `usage.cache_creation`: the cache writes by TTL.
#[derive(Debug, Default, PartialEq, Eq)]
pub(crate) struct PlainCacheCreation {
    pub ephemeral_5m_input_tokens: Option<u64>,
    pub ephemeral_1h_input_tokens: Option<u64>,
}

/// Deeper nesting than this is left to serde_json (whose own limit is 128).
const MAX_DEPTH: usize = 100;

/// Reads `line` (one JSON text, already trimmed), or `None` when it is not plain.
pub(crate) fn read(line: &[u8]) -> Option<PlainLine<'_>> {
    // A fold rather than `any`: the compiler turns it into a vector minimum, `any`'s early exit
    // into a byte loop.
    if line.iter().fold(u8::MAX, |low, &b| low.min(b)) < 0x20 {
        return None;
    }
    let text = std::str::from_utf8(line).ok()?;
    let mut r = Reader { s: text, at: 0 };
    let mut out = PlainLine::default();
    r.wanted_fields(
        ["type", "sessionId", "timestamp", "requestId", "message", "isSidechain"],
        1,
        |r, slot| {
            match slot {
                0 => out.kind = r.kept_string()?,
                1 => out.session_id = r.kept_string()?,
                2 => out.timestamp = r.kept_string()?,
                3 => out.request_id = r.kept_string()?,
                4 => out.message = r.message()?,
                _ if r.literal("true") => out.sidechain = true,
                _ => r.skip_value(2)?,
            }
            Some(())
        },
    )?;
    r.ws();
    (r.at == r.s.len()).then_some(out)
}

struct Reader<'a> {
    s: &'a str,
    at: usize,
}

impl<'a> Reader<'a> {
    fn bytes(&self) -> &'a [u8] {
        self.s.as_bytes()
    }

    fn peek(&self) -> Option<u8> {
        self.bytes().get(self.at).copied()
    }

    fn ws(&mut self) {
        // Bytes below 0x20 (tab, CR, LF) never reach here: only spaces.
        while self.peek() == Some(b' ') {
            self.at += 1;
        }
    }

    fn eat(&mut self, b: u8) -> Option<()> {
        self.ws();
        (self.peek()? == b).then(|| self.at += 1)
    }

    /// `{ "key": value, … }`, calling `field` with the reader on each value.
    fn object(&mut self, mut field: impl FnMut(&mut Self, &'a str) -> Option<()>) -> Option<()> {
        self.eat(b'{')?;
        self.ws();
        if self.peek()? == b'}' {
            self.at += 1;
            return Some(());
        }
        loop {
            self.ws();
            let key = self.string()?;
            self.eat(b':')?;
            self.ws();
            field(self, key)?;
            self.ws();
            match self.peek()? {
                b',' => self.at += 1,
                b'}' => {
                    self.at += 1;
                    return Some(());
                }
                _ => return None,
            }
        }
    }

    /// An object of which only the keys in `names` are wanted: `field` reads the value of the
    /// wanted key at `names[slot]`, every other value is skipped (at nesting `depth`). A wanted key
    /// given twice is not plain (serde_json refuses a duplicate field).
    fn wanted_fields<const N: usize>(
        &mut self,
        names: [&str; N],
        depth: usize,
        mut field: impl FnMut(&mut Self, usize) -> Option<()>,
    ) -> Option<()> {
        let mut seen = [false; N];
        self.object(|r, key| match names.iter().position(|&n| n == key) {
            None => r.skip_value(depth),
            Some(slot) if std::mem::replace(&mut seen[slot], true) => None,
            Some(slot) => field(r, slot),
        })
    }

    /// A string with no escape in it, borrowed; `None` for any other.
    fn string(&mut self) -> Option<&'a str> {
        if self.peek()? != b'"' {
            return None;
        }
        let start = self.at + 1;
        let len = memchr::memchr2(b'"', b'\\', &self.bytes()[start..])?;
        if self.bytes()[start + len] != b'"' {
            return None;
        }
        self.at = start + len + 1;
        self.s.get(start..start + len)
    }

    /// A string the scanner keeps, or `null`.
    fn kept_string(&mut self) -> Option<Option<&'a str>> {
        if self.literal("null") {
            return Some(None);
        }
        self.string().map(Some)
    }

    /// A token count: a plain unsigned integer that fits in a u64, or `null`.
    fn count(&mut self) -> Option<Option<u64>> {
        if self.literal("null") {
            return Some(None);
        }
        let digits = self.bytes()[self.at..].iter().take_while(|b| b.is_ascii_digit()).count();
        let text = &self.s[self.at..self.at + digits];
        if digits == 0 || (digits > 1 && text.starts_with('0')) {
            return None;
        }
        // A fraction or exponent is not plain.
        if matches!(self.bytes().get(self.at + digits), Some(b'.' | b'e' | b'E')) {
            return None;
        }
        self.at += digits;
        text.parse().ok().map(Some)
    }

    fn message(&mut self) -> Option<Option<PlainMessage<'a>>> {
        if self.literal("null") {
            return Some(None);
        }
        let mut m = PlainMessage::default();
        self.wanted_fields(["id", "model", "usage", "stop_reason"], 2, |r, slot| {
            match slot {
                0 => m.id = r.kept_string()?,
                1 => m.model = r.kept_string()?,
                2 => m.usage = r.usage()?,
                _ if r.literal("null") => m.stop_reason = StopReason::Null,
                _ => {
                    r.skip_value(3)?;
                    m.stop_reason = StopReason::Set;
                }
            }
            Some(())
        })?;
        Some(Some(m))
    }

    fn usage(&mut self) -> Option<Option<PlainUsage>> {
        if self.literal("null") {
            return Some(None);
        }
        let mut u = PlainUsage::default();
        let names = [
            "input_tokens",
            "output_tokens",
            "cache_creation_input_tokens",
            "cache_read_input_tokens",
            "cache_creation",
        ];
        self.wanted_fields(names, 3, |r, slot| {
            if slot == 4 {
                u.cache_creation = r.cache_creation()?;
                return Some(());
            }
            let v = r.count()?;
            match slot {
                0 => u.input_tokens = v,
                1 => u.output_tokens = v,
                2 => u.cache_creation_input_tokens = v,
                _ => u.cache_read_input_tokens = v,
            }
            Some(())
        })?;
        Some(Some(u))
    }

    fn cache_creation(&mut self) -> Option<Option<PlainCacheCreation>> {
        if self.literal("null") {
            return Some(None);
        }
        let mut c = PlainCacheCreation::default();
        self.wanted_fields(["ephemeral_5m_input_tokens", "ephemeral_1h_input_tokens"], 4, |r, slot| {
            let v = r.count()?;
            match slot {
                0 => c.ephemeral_5m_input_tokens = v,
                _ => c.ephemeral_1h_input_tokens = v,
            }
            Some(())
        })?;
        Some(Some(c))
    }

    fn literal(&mut self, word: &str) -> bool {
        let found = self.s[self.at..].starts_with(word);
        if found {
            self.at += word.len();
        }
        found
    }

    /// Any JSON value, checked as serde_json checks what it ignores, and passed over.
    fn skip_value(&mut self, depth: usize) -> Option<()> {
        if depth > MAX_DEPTH {
            return None;
        }
        match self.peek()? {
            b'"' => self.skip_string(),
            b'{' => self.object(|r, _| r.skip_value(depth + 1)),
            b'[' => {
                self.at += 1;
                self.ws();
                if self.peek()? == b']' {
                    self.at += 1;
                    return Some(());
                }
                loop {
                    self.ws();
                    self.skip_value(depth + 1)?;
                    self.ws();
                    match self.peek()? {
                        b',' => self.at += 1,
                        b']' => {
                            self.at += 1;
                            return Some(());
                        }
                        _ => return None,
                    }
                }
            }
            b't' => self.literal("true").then_some(()),
            b'f' => self.literal("false").then_some(()),
            b'n' => self.literal("null").then_some(()),
            _ => self.skip_number(),
        }
    }

    /// A string, escapes and all: each escape must be one JSON allows, and a `\u` escape must not be
    /// half of a surrogate pair (left to serde_json).
    fn skip_string(&mut self) -> Option<()> {
        let b = self.bytes();
        let mut at = self.at + 1;
        loop {
            at += memchr::memchr2(b'"', b'\\', &b[at..])?;
            if b[at] == b'"' {
                self.at = at + 1;
                return Some(());
            }
            match *b.get(at + 1)? {
                b'"' | b'\\' | b'/' | b'b' | b'f' | b'n' | b'r' | b't' => at += 2,
                b'u' => {
                    let hex = std::str::from_utf8(b.get(at + 2..at + 6)?).ok()?;
                    let unit = u16::from_str_radix(hex, 16).ok()?;
                    if (0xD800..=0xDFFF).contains(&unit) || !hex.bytes().all(|c| c.is_ascii_hexdigit()) {
                        return None;
                    }
                    at += 6;
                }
                _ => return None,
            }
        }
    }

    /// A number as JSON writes one: `-?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?`.
    fn skip_number(&mut self) -> Option<()> {
        let b = self.bytes();
        let mut at = self.at;
        let digits = |at: &mut usize| {
            let n = b[*at..].iter().take_while(|c| c.is_ascii_digit()).count();
            *at += n;
            n
        };
        if b.get(at) == Some(&b'-') {
            at += 1;
        }
        let first = *b.get(at)?;
        let n = digits(&mut at);
        if n == 0 || (first == b'0' && n > 1) {
            return None;
        }
        if b.get(at) == Some(&b'.') {
            at += 1;
            if digits(&mut at) == 0 {
                return None;
            }
        }
        if matches!(b.get(at), Some(b'e' | b'E')) {
            at += 1;
            if matches!(b.get(at), Some(b'+' | b'-')) {
                at += 1;
            }
            if digits(&mut at) == 0 {
                return None;
            }
        }
        self.at = at;
        Some(())
    }
}
