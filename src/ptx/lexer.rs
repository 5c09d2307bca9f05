//! The PTX lexer (ISA §4: syntax — identifiers, directives, constants, comments).
//!
//! Hand-written, zero-copy: a token is a kind plus a byte range of the source. Lexing never fails:
//! a byte that cannot start a token becomes [`Tok::Error`], which the parser reports with its
//! position, and an unterminated block comment or string runs to the end of the input and is
//! reported the same way.

/// The kind of a token. The text is the source slice `[start, end)`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Tok {
    /// An identifier: `foo`, `%r1`, `$L__BB0_2`, `_`, `%tid`.
    Ident,
    /// A dotted word: `.reg`, `.u32`, `.shared::cluster`, `.L2::cache_hint` (text includes the dot).
    Dot,
    /// An integer literal: decimal, `0x…`, octal `0…`, binary `0b…`, optional `U` suffix.
    Int,
    /// A float literal: decimal (`1.5`, `1e-3`), `0fXXXXXXXX`, `0dXXXXXXXXXXXXXXXX`.
    Float,
    /// A string literal including its quotes.
    Str,
    /// One punctuation character: `, ; : ( ) [ ] { } < > + - ! @ | = * / ~ & ?`.
    Punct(u8),
    /// A byte that starts no token, or an unterminated comment/string.
    Error,
    /// End of input.
    Eof,
}

/// A token: kind and byte range.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Token {
    /// What it is.
    pub kind: Tok,
    /// Byte offset of the first byte.
    pub start: u32,
    /// Byte offset one past the last byte.
    pub end: u32,
}

impl Token {
    /// The token's text in `src`.
    #[inline]
    pub fn text<'a>(&self, src: &'a str) -> &'a str {
        src.get(self.start as usize..self.end as usize)
            .unwrap_or("")
    }
}

/// Byte classes, looked up once per byte in the hot loop.
const SPACE: u8 = 1;
const IDENT_START: u8 = 2;
const IDENT_CONT: u8 = 4;

const fn byte_classes() -> [u8; 256] {
    let mut t = [0u8; 256];
    let mut b = 0;
    while b < 256 {
        let c = b as u8;
        let mut k = 0;
        if matches!(c, b' ' | b'\t' | b'\r' | b'\n' | 0x0b | 0x0c) {
            k |= SPACE;
        }
        if c.is_ascii_alphabetic() || c == b'_' || c == b'$' || c == b'%' {
            k |= IDENT_START;
        }
        if c.is_ascii_alphanumeric() || c == b'_' || c == b'$' {
            k |= IDENT_CONT;
        }
        t[b] = k;
        b += 1;
    }
    t
}

static CLASS: [u8; 256] = byte_classes();

#[inline]
fn is_ident_start(b: u8) -> bool {
    CLASS[b as usize] & IDENT_START != 0
}

#[inline]
fn is_ident_cont(b: u8) -> bool {
    CLASS[b as usize] & IDENT_CONT != 0
}

/// The tokens of a source and where its lines start.
#[derive(Clone, Debug)]
pub struct Lexed {
    /// The tokens; the last is always [`Tok::Eof`].
    pub tokens: Vec<Token>,
    /// Byte offset of the start of every line (the first is 0).
    pub line_starts: Vec<u32>,
}

/// Splits `src` into tokens; the last token is always [`Tok::Eof`]. Inputs over 4 GiB are cut at
/// 4 GiB (offsets are `u32`); the parser reports that.
pub fn lex(src: &str) -> Vec<Token> {
    lex_with_lines(src).tokens
}

/// [`lex`], also recording line starts (one pass over the input instead of two).
pub fn lex_with_lines(src: &str) -> Lexed {
    let mut lx = Lexer::new(src);
    let mut tokens = Vec::with_capacity(src.len() / 3 + 1);
    loop {
        let t = lx.next_token();
        tokens.push(t);
        if t.kind == Tok::Eof {
            break;
        }
    }
    Lexed {
        tokens,
        line_starts: lx.into_line_starts(),
    }
}

/// A streaming lexer: hands out one token at a time (the parser keeps a lookahead of two), so no
/// token array is written and read back. It records line starts as it passes them.
#[derive(Clone, Debug)]
pub struct Lexer<'a> {
    bytes: &'a [u8],
    /// Length lexed: the input, cut at 4 GiB.
    n: usize,
    /// The next byte to look at.
    i: usize,
    line_starts: Vec<u32>,
}

impl<'a> Lexer<'a> {
    /// A lexer at the start of `src`.
    pub fn new(src: &'a str) -> Lexer<'a> {
        let bytes = src.as_bytes();
        let n = bytes.len().min(u32::MAX as usize - 1);
        let mut line_starts = Vec::with_capacity(n / 24 + 1);
        line_starts.push(0u32);
        Lexer {
            bytes,
            n,
            i: 0,
            line_starts,
        }
    }

    /// The start offsets of the lines seen so far (every line that begins at or before the end
    /// of the last token handed out; the first is 0).
    #[inline]
    pub fn line_starts(&self) -> &[u32] {
        &self.line_starts
    }

    /// The line starts seen so far.
    pub fn into_line_starts(self) -> Vec<u32> {
        self.line_starts
    }

    /// Appends up to `max` tokens to `out`, stopping after [`Tok::Eof`]; returns how many. The
    /// parser reads tokens in such small batches: the lexing loop stays hot and no token array
    /// of the whole input is written.
    pub fn next_tokens(&mut self, out: &mut Vec<Token>, max: usize) -> usize {
        for k in 0..max {
            let t = self.lex_one();
            out.push(t);
            if t.kind == Tok::Eof {
                return k + 1;
            }
        }
        max
    }

    /// The next token; [`Tok::Eof`] at the end, and again on every later call.
    pub fn next_token(&mut self) -> Token {
        self.lex_one()
    }

    #[inline(always)]
    fn lex_one(&mut self) -> Token {
        let bytes = self.bytes;
        let n = self.n;
        let mut i = self.i;
        loop {
            if i >= n {
                self.i = n;
                return Token {
                    kind: Tok::Eof,
                    start: n as u32,
                    end: n as u32,
                };
            }
            let b = bytes[i];
            if CLASS[b as usize] & SPACE != 0 {
                if b == b'\n' {
                    self.line_starts.push(i as u32 + 1);
                }
                i += 1;
                continue;
            }
            let start = i;
            let kind = match b {
                b'/' if i + 1 < n && bytes[i + 1] == b'/' => {
                    i += 2;
                    while i < n && bytes[i] != b'\n' {
                        i += 1;
                    }
                    continue;
                }
                b'/' if i + 1 < n && bytes[i + 1] == b'*' => {
                    i += 2;
                    let mut closed = false;
                    while i + 1 < n {
                        if bytes[i] == b'*' && bytes[i + 1] == b'/' {
                            closed = true;
                            break;
                        }
                        if bytes[i] == b'\n' {
                            self.line_starts.push(i as u32 + 1);
                        }
                        i += 1;
                    }
                    if closed {
                        i += 2;
                        continue;
                    }
                    if i < n && bytes[i] == b'\n' {
                        self.line_starts.push(i as u32 + 1);
                    }
                    i = n;
                    Tok::Error
                }
                b'"' => {
                    i += 1;
                    let mut closed = false;
                    while i < n {
                        match bytes[i] {
                            b'\\' => i += 2,
                            b'"' => {
                                closed = true;
                                i += 1;
                                break;
                            }
                            b'\n' => break,
                            _ => i += 1,
                        }
                    }
                    i = i.min(n);
                    if closed {
                        Tok::Str
                    } else {
                        Tok::Error
                    }
                }
                // Modifiers may start with a digit: `.1d`, `.2d`, `.3d`; `::` joins qualified
                // ones: `.shared::cluster`, `.mbarrier::complete_tx::bytes`.
                b'.' if i + 1 < n && is_ident_cont(bytes[i + 1]) => {
                    i += 1;
                    loop {
                        while i < n && is_ident_cont(bytes[i]) {
                            i += 1;
                        }
                        if i + 2 < n
                            && bytes[i] == b':'
                            && bytes[i + 1] == b':'
                            && is_ident_cont(bytes[i + 2])
                        {
                            i += 2;
                            continue;
                        }
                        break;
                    }
                    Tok::Dot
                }
                b'0'..=b'9' => {
                    let (k, end) = lex_number(bytes, i, n);
                    i = end;
                    k
                }
                _ if is_ident_start(b) => {
                    i += 1;
                    while i < n && is_ident_cont(bytes[i]) {
                        i += 1;
                    }
                    Tok::Ident
                }
                b',' | b';' | b':' | b'(' | b')' | b'[' | b']' | b'{' | b'}' | b'<' | b'>'
                | b'+' | b'-' | b'!' | b'@' | b'|' | b'=' | b'*' | b'/' | b'~' | b'&' | b'?' => {
                    i += 1;
                    Tok::Punct(b)
                }
                _ => {
                    // One UTF-8 scalar (or byte) that starts no token.
                    i += 1;
                    while i < n && (bytes[i] & 0xC0) == 0x80 {
                        i += 1;
                    }
                    Tok::Error
                }
            };
            self.i = i;
            return Token {
                kind,
                start: start as u32,
                end: i as u32,
            };
        }
    }
}

/// Lexes a numeric literal starting at `i`; returns its kind and end.
fn lex_number(b: &[u8], mut i: usize, n: usize) -> (Tok, usize) {
    let at = |j: usize| if j < n { b[j] } else { 0 };
    if at(i) == b'0'
        && matches!(at(i + 1), b'f' | b'F' | b'd' | b'D')
        && at(i + 2).is_ascii_hexdigit()
    {
        i += 2;
        while at(i).is_ascii_hexdigit() {
            i += 1;
        }
        return (Tok::Float, i);
    }
    if at(i) == b'0' && matches!(at(i + 1), b'x' | b'X') {
        i += 2;
        while at(i).is_ascii_hexdigit() {
            i += 1;
        }
        if matches!(at(i), b'U' | b'u') {
            i += 1;
        }
        return (Tok::Int, i);
    }
    if at(i) == b'0' && matches!(at(i + 1), b'b' | b'B') && matches!(at(i + 2), b'0' | b'1') {
        i += 2;
        while matches!(at(i), b'0' | b'1') {
            i += 1;
        }
        if matches!(at(i), b'U' | b'u') {
            i += 1;
        }
        return (Tok::Int, i);
    }
    let mut float = false;
    while at(i).is_ascii_digit() {
        i += 1;
    }
    if at(i) == b'.' && at(i + 1).is_ascii_digit()
        || at(i) == b'.' && !is_ident_start(at(i + 1)) && at(i + 1) != b'.'
    {
        float = true;
        i += 1;
        while at(i).is_ascii_digit() {
            i += 1;
        }
    }
    if matches!(at(i), b'e' | b'E')
        && (at(i + 1).is_ascii_digit()
            || matches!(at(i + 1), b'+' | b'-') && at(i + 2).is_ascii_digit())
    {
        float = true;
        i += 2;
        while at(i).is_ascii_digit() {
            i += 1;
        }
    }
    if float {
        return (Tok::Float, i);
    }
    if matches!(at(i), b'U' | b'u') {
        i += 1;
    }
    (Tok::Int, i)
}

/// Maps byte offsets to 1-based line and column numbers.
#[derive(Clone, Debug)]
pub struct LineIndex {
    line_starts: Vec<u32>,
}

impl LineIndex {
    /// Indexes the line starts of `src`.
    pub fn new(src: &str) -> LineIndex {
        let mut line_starts = vec![0u32];
        line_starts.extend(
            src.bytes()
                .enumerate()
                .filter(|(_, b)| *b == b'\n')
                .map(|(i, _)| i as u32 + 1),
        );
        LineIndex { line_starts }
    }
    /// The 1-based (line, column) of byte offset `off`.
    pub fn line_col(&self, off: u32) -> (u32, u32) {
        let line = match self.line_starts.binary_search(&off) {
            Ok(l) => l,
            Err(l) => l - 1,
        };
        (line as u32 + 1, off - self.line_starts[line] + 1)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn kinds(s: &str) -> Vec<(Tok, &str)> {
        lex(s).iter().map(|t| (t.kind, t.text(s))).collect()
    }

    #[test]
    fn lexes_an_instruction() {
        let k = kinds("@!%p1 ld.global.nc.v4.f32 {%f1,%f2}, [%rd1+-16]; // c\n");
        let texts: Vec<_> = k.iter().map(|x| x.1).collect();
        assert_eq!(
            texts,
            [
                "@", "!", "%p1", "ld", ".global", ".nc", ".v4", ".f32", "{", "%f1", ",", "%f2",
                "}", ",", "[", "%rd1", "+", "-", "16", "]", ";", ""
            ]
        );
    }

    #[test]
    fn lexes_numbers() {
        let k = kinds("0f3F800000 0d3FF0000000000000 0x1fU 017 0b101 1.5 1e-3 42 3. .2d");
        let ks: Vec<_> = k.iter().map(|x| x.0).collect();
        use Tok::*;
        assert_eq!(
            ks,
            [Float, Float, Int, Int, Int, Float, Float, Int, Float, Dot, Eof]
        );
    }

    #[test]
    fn qualified_modifiers_are_one_token() {
        let k = kinds("cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes");
        assert_eq!(k[2].1, ".bulk");
        assert_eq!(k[3].1, ".shared::cluster");
        assert_eq!(k[5].1, ".mbarrier::complete_tx::bytes");
    }

    #[test]
    fn bad_input_becomes_error_tokens() {
        let k = kinds("a # \"open /* x");
        assert_eq!(k[1].0, Tok::Error);
        assert_eq!(k[2].0, Tok::Error);
        let k = kinds("/* never closed");
        assert_eq!(k[0].0, Tok::Error);
        let k = kinds("é");
        assert_eq!(k[0], (Tok::Error, "é"));
    }

    #[test]
    fn line_starts_are_recorded_during_lexing() {
        let src = "a\n/* x\ny */ b // c\n\"s\"\n";
        assert_eq!(
            lex_with_lines(src).line_starts,
            LineIndex::new(src).line_starts
        );
    }

    #[test]
    fn batches_and_single_tokens_agree() {
        let src = "a.b 1 /* x\ny */ \"s\" // c\n{%r<2>}; 0f3F800000 é";
        let all = lex(src);
        let mut lx = Lexer::new(src);
        let mut batched = Vec::new();
        while batched.last().is_none_or(|t: &Token| t.kind != Tok::Eof) {
            lx.next_tokens(&mut batched, 3);
        }
        assert_eq!(batched, all);
        // After the end, end of input again.
        assert_eq!(lx.next_token().kind, Tok::Eof);
        assert_eq!(lx.line_starts(), &LineIndex::new(src).line_starts[..]);
    }

    #[test]
    fn line_index() {
        let li = LineIndex::new("ab\ncd\n\nx");
        assert_eq!(li.line_col(0), (1, 1));
        assert_eq!(li.line_col(4), (2, 2));
        assert_eq!(li.line_col(7), (4, 1));
    }
}
