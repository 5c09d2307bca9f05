//! The PTX parser: tokens ([`super::lexer`]) to the machine IR ([`super::ir`]).
//!
//! Recursive descent over the grammar of PTX ISA §4–§11 as emitted by LLVM's NVPTX back end (both
//! the typed-register style of LLVM ≤ 19 and the `.b32`/`.b64` style of LLVM 20+), nvcc 11–13 and
//! NVHPC. Instructions use one generic grammar (`[@[!]p] opcode{.mod} operand, …;`); which operand
//! is read or written is decided later by [`super::roles`].
//!
//! Errors never stop the parse: each is recorded with `file:line:col`, the offending token and what
//! was expected, the parser skips to the end of the statement, and goes on. The parser never panics.

use std::borrow::Cow;

use super::diag::{Diagnostic, ParseErrors};
use super::fxhash::FxMap;
use super::ir::*;
use super::label_scopes::{self, ScopeError};
use super::lexer::{Lexer, Tok, Token};

/// Parses a whole PTX module. `file` names the source in diagnostics.
pub fn parse_module(text: &str, file: &str) -> Result<Module, ParseErrors> {
    let mut p = Parser::new(text, file);
    let module = p.module();
    if p.errors.is_empty() {
        Ok(module)
    } else {
        Err(ParseErrors(p.errors))
    }
}

/// Marker for "an error was recorded; skip the statement".
struct Recover;

type PResult<T> = Result<T, Recover>;

/// Registers visible in the current function, innermost scope last. The tables are reused from
/// body to body (cleared, capacity kept).
#[derive(Default)]
struct Scopes<'a> {
    stack: Vec<FxMap<Cow<'a, str>, Reg>>,
    /// `%r<N>` ranges per scope.
    ranges: Vec<Ranges<'a>>,
    /// How many scopes are open (`stack[..depth]`).
    depth: usize,
}

/// The `%r<N>` ranges of one scope: prefix → (first reg, count). A scope declares a handful
/// (`%p`, `%r`, `%rd`, `%f`, …), so they are searched linearly, comparing the prefix's first eight
/// bytes as one integer; past [`Ranges::LINEAR`] entries a hash map takes over.
#[derive(Default)]
struct Ranges<'a> {
    list: Vec<RangeEntry<'a>>,
    map: FxMap<&'a str, (Reg, u32)>,
}

struct RangeEntry<'a> {
    /// The first eight bytes of the prefix, zero-padded, as an integer.
    key: u64,
    prefix: &'a str,
    first: Reg,
    count: u32,
}

/// The first eight bytes of `s`, zero-padded, as an integer (a cheap inequality test).
#[inline]
fn key8(s: &[u8]) -> u64 {
    // Byte by byte: a variable-length copy would be a call to memcpy.
    let mut k = 0u64;
    for (i, &c) in s.iter().take(8).enumerate() {
        k |= u64::from(c) << (8 * i);
    }
    k
}

impl<'a> Ranges<'a> {
    const LINEAR: usize = 16;

    fn clear(&mut self) {
        self.list.clear();
        self.map.clear();
    }
    fn insert(&mut self, prefix: &'a str, first: Reg, count: u32) {
        let key = key8(prefix.as_bytes());
        match self
            .list
            .iter_mut()
            .find(|e| e.key == key && e.prefix == prefix)
        {
            Some(e) => {
                e.first = first;
                e.count = count;
            }
            None => self.list.push(RangeEntry {
                key,
                prefix,
                first,
                count,
            }),
        }
        if self.list.len() > Self::LINEAR {
            if self.map.is_empty() {
                self.map
                    .extend(self.list.iter().map(|e| (e.prefix, (e.first, e.count))));
            } else {
                self.map.insert(prefix, (first, count));
            }
        }
    }
    #[inline]
    fn get(&self, prefix: &[u8]) -> Option<(Reg, u32)> {
        if self.list.len() > Self::LINEAR {
            let p = std::str::from_utf8(prefix).ok()?;
            return self.map.get(p).copied();
        }
        let key = key8(prefix);
        self.list
            .iter()
            .find(|e| {
                e.key == key
                    && e.prefix.len() == prefix.len()
                    && (prefix.len() <= 8 || e.prefix.as_bytes() == prefix)
            })
            .map(|e| (e.first, e.count))
    }
}

impl<'a> Scopes<'a> {
    fn reset(&mut self) {
        self.depth = 0;
    }
    fn push(&mut self) {
        if self.depth < self.stack.len() {
            self.stack[self.depth].clear();
            self.ranges[self.depth].clear();
        } else {
            self.stack.push(FxMap::default());
            self.ranges.push(Ranges::default());
        }
        self.depth += 1;
    }
    fn pop(&mut self) {
        self.depth = self.depth.saturating_sub(1);
    }
    fn insert_name(&mut self, name: Cow<'a, str>, r: Reg) {
        if let Some(m) = self.stack[..self.depth].last_mut() {
            m.insert(name, r);
        }
    }
    fn insert_range(&mut self, prefix: &'a str, first: Reg, count: u32) {
        if let Some(m) = self.ranges[..self.depth].last_mut() {
            m.insert(prefix, first, count);
        }
    }
    fn lookup(&self, name: &str) -> Option<Reg> {
        let d = self.depth;
        // `%r12` against range `%r<N>`: split the trailing decimal digits. Tried first because
        // range registers are the common case (a name cannot be declared both ways in a scope).
        let bytes = name.as_bytes();
        let mut split = bytes.len();
        while split > 0 && bytes[split - 1].is_ascii_digit() {
            split -= 1;
        }
        let (prefix, num) = bytes.split_at(split);
        // The index, when the name can be one of a range: digits after a non-empty prefix, no
        // leading zero (`%r01` is not `%r1`), and it fits in a u32.
        let index = if prefix.is_empty() || num.is_empty() || (num.len() > 1 && num[0] == b'0') {
            None
        } else {
            num.iter().try_fold(0u32, |acc, &c| {
                acc.checked_mul(10)?.checked_add(u32::from(c - b'0'))
            })
        };
        for (names, ranges) in self.stack[..d]
            .iter()
            .rev()
            .zip(self.ranges[..d].iter().rev())
        {
            if let Some(k) = index {
                if let Some((first, count)) = ranges.get(prefix) {
                    if k < count {
                        return Some(Reg(first.0 + k));
                    }
                }
            }
            if !names.is_empty() {
                if let Some(r) = names.get(name) {
                    return Some(*r);
                }
            }
        }
        None
    }
}

struct Parser<'a> {
    src: &'a str,
    file: &'a str,
    /// The streaming lexer, positioned after the last token of `buf`.
    lexer: Lexer<'a>,
    /// The current token.
    cur: Token,
    /// The token after it (the parser looks at most one token ahead).
    next: Token,
    /// Tokens lexed after `next`, [`Parser::WINDOW`] at a time: `buf[at..]` come next.
    buf: Vec<Token>,
    at: usize,
    /// The first token of the input (where "missing .version" is reported).
    first: Token,
    errors: Vec<Diagnostic>,
    /// Index into the lexer's line starts of the last located line (locations are asked for in
    /// order).
    line_cursor: usize,
    /// Per-body tables kept between bodies so their allocations are reused.
    scope_pool: Scopes<'a>,
    label_pool: FxMap<&'a str, Label>,
    /// The arena sizes of the previous body ([`Body::counts`]): the capacity reserved for the next
    /// one (compilers emit functions of similar sizes; a body that needs more grows, one that needs
    /// less is shrunk in place at its end).
    last_counts: BodyCounts,
    /// True while parsing the operands of `bra`: identifiers there are labels.
    branch_operands: bool,
    /// Opcode and modifier spellings seen recently, classified.
    opcodes: SpellingCache<Opcode>,
    modifiers: SpellingCache<Modifier>,
}

/// A small direct-mapped cache in front of a spelling → value classifier ([`Opcode::from_name`],
/// [`Modifier::parse`]) for spellings of at most eight bytes: the key is the spelling itself,
/// packed into an integer (identifier characters are never NUL, so it is exact), which saves
/// hashing the string and comparing it with `memcmp`.
struct SpellingCache<T> {
    slots: Vec<Option<(u64, T)>>,
}

impl<T: Clone> SpellingCache<T> {
    const BITS: u32 = 7;

    fn new() -> Self {
        SpellingCache {
            slots: vec![None; 1 << Self::BITS],
        }
    }

    #[inline]
    fn get(&mut self, s: &str, classify: impl FnOnce(&str) -> T) -> T {
        if s.is_empty() || s.len() > 8 {
            return classify(s);
        }
        let key = key8(s.as_bytes());
        let slot = (key.wrapping_mul(0x9E37_79B9_7F4A_7C15) >> (64 - Self::BITS)) as usize;
        if let Some(Some((k, v))) = self.slots.get(slot) {
            if *k == key {
                return v.clone();
            }
        }
        let v = classify(s);
        if let Some(e) = self.slots.get_mut(slot) {
            *e = Some((key, v.clone()));
        }
        v
    }
}

const MAX_ERRORS: usize = 200;

impl<'a> Parser<'a> {
    fn new(src: &'a str, file: &'a str) -> Parser<'a> {
        let mut lexer = Lexer::new(src);
        let cur = lexer.next_token();
        let next = lexer.next_token();
        let mut p = Parser {
            src,
            file,
            lexer,
            cur,
            next,
            buf: Vec::with_capacity(Self::WINDOW),
            at: 0,
            first: cur,
            errors: Vec::new(),
            line_cursor: 0,
            scope_pool: Scopes::default(),
            label_pool: FxMap::default(),
            last_counts: BodyCounts::default(),
            branch_operands: false,
            opcodes: SpellingCache::new(),
            modifiers: SpellingCache::new(),
        };
        if src.len() >= u32::MAX as usize - 1 {
            let t = p.peek();
            p.error_at(t, "input larger than 4 GiB is not supported");
        }
        p
    }

    // ---- token access ------------------------------------------------------------------------

    /// Tokens lexed at a time.
    const WINDOW: usize = 256;

    #[inline]
    fn peek(&self) -> Token {
        self.cur
    }
    /// The token after the current one.
    #[inline]
    fn peek_next(&self) -> Token {
        self.next
    }
    /// Moves to the next token (stays on end of input).
    #[inline]
    fn advance(&mut self) {
        if let Some(t) = self.buf.get(self.at) {
            self.cur = self.next;
            self.next = *t;
            self.at += 1;
        } else {
            self.refill();
        }
    }
    /// [`Parser::advance`] when the window is used up: lexes the next [`Parser::WINDOW`] tokens.
    #[inline(never)]
    fn refill(&mut self) {
        if self.cur.kind == Tok::Eof {
            return;
        }
        self.cur = self.next;
        if self.next.kind == Tok::Eof {
            return;
        }
        self.buf.clear();
        self.at = 0;
        self.lexer.next_tokens(&mut self.buf, Self::WINDOW);
        self.next = self.buf[0];
        self.at = 1;
    }
    #[inline]
    fn bump(&mut self) -> Token {
        let t = self.peek();
        self.advance();
        t
    }
    #[inline]
    fn text(&self, t: Token) -> &'a str {
        t.text(self.src)
    }
    #[inline]
    fn at_punct(&self, c: u8) -> bool {
        self.cur.kind == Tok::Punct(c)
    }
    #[inline]
    fn eat_punct(&mut self, c: u8) -> bool {
        if self.at_punct(c) {
            self.advance();
            true
        } else {
            false
        }
    }
    #[inline]
    fn at_dot(&self, word: &str) -> bool {
        let t = self.peek();
        t.kind == Tok::Dot && self.text(t) == word
    }
    fn eat_dot(&mut self, word: &str) -> bool {
        if self.at_dot(word) {
            self.advance();
            true
        } else {
            false
        }
    }

    // ---- locations and errors ----------------------------------------------------------------

    fn line_col(&mut self, off: u32) -> (u32, u32) {
        let ls = self.lexer.line_starts();
        let mut l = self.line_cursor.min(ls.len() - 1);
        if ls[l] > off {
            l = match ls.binary_search(&off) {
                Ok(l) => l,
                Err(l) => l - 1,
            };
        } else {
            while l + 1 < ls.len() && ls[l + 1] <= off {
                l += 1;
            }
        }
        self.line_cursor = l;
        (l as u32 + 1, off - ls[l] + 1)
    }

    fn loc(&mut self, t: Token) -> Loc {
        let (line, col) = self.line_col(t.start);
        Loc { line, col }
    }

    fn error_at(&mut self, t: Token, message: impl Into<String>) {
        if self.errors.len() >= MAX_ERRORS {
            return;
        }
        let (line, col) = {
            // Errors may be reported out of order; do not disturb the cursor.
            let ls = self.lexer.line_starts();
            let l = match ls.binary_search(&t.start) {
                Ok(l) => l,
                Err(l) => l - 1,
            };
            (l as u32 + 1, t.start - ls[l] + 1)
        };
        let found = match t.kind {
            Tok::Eof => "end of input".to_string(),
            _ => {
                let s = self.text(t);
                let mut s: String = s.chars().take(40).collect();
                if t.kind == Tok::Error && s.starts_with("/*") {
                    s = "unterminated comment".into();
                } else if t.kind == Tok::Error && s.starts_with('"') {
                    s = "unterminated string".into();
                }
                s
            }
        };
        self.errors.push(Diagnostic {
            file: self.file.to_string(),
            line,
            col,
            message: message.into(),
            found,
        });
    }

    fn expected<T>(&mut self, what: &str) -> PResult<T> {
        let t = self.peek();
        self.error_at(t, format!("expected {what}"));
        Err(Recover)
    }

    fn expect_punct(&mut self, c: u8) -> PResult<()> {
        if self.eat_punct(c) {
            Ok(())
        } else {
            self.expected(&format!("'{}'", c as char))
        }
    }

    /// Skips to just after the next `;` at this nesting level (or to a `}` closing it, or EOF).
    fn recover_statement(&mut self) {
        let mut depth = 0i32;
        loop {
            let t = self.peek();
            match t.kind {
                Tok::Eof => return,
                Tok::Punct(b';') if depth <= 0 => {
                    self.advance();
                    return;
                }
                Tok::Punct(b'{') | Tok::Punct(b'(') | Tok::Punct(b'[') => depth += 1,
                Tok::Punct(b'}') => {
                    if depth <= 0 {
                        return;
                    }
                    depth -= 1;
                }
                Tok::Punct(b')') | Tok::Punct(b']') => depth -= 1,
                _ => {}
            }
            self.advance();
        }
    }

    // ---- literals ----------------------------------------------------------------------------

    fn int_literal(&mut self) -> PResult<(Imm, Token)> {
        let neg = self.eat_punct(b'-');
        let t = self.peek();
        if t.kind != Tok::Int {
            return self.expected("an integer");
        }
        self.advance();
        match parse_int(self.text(t), neg) {
            Some(imm) => Ok((imm, t)),
            None => {
                self.error_at(t, "integer literal out of range");
                Err(Recover)
            }
        }
    }

    fn u32_literal(&mut self) -> PResult<u32> {
        let (imm, t) = self.int_literal()?;
        match imm.as_i64() {
            Some(v) if (0..=u32::MAX as i64).contains(&v) => Ok(v as u32),
            _ => {
                self.error_at(t, "expected a 32-bit unsigned integer");
                Err(Recover)
            }
        }
    }

    /// An immediate operand: integers, floats, with an optional leading `-`.
    fn imm(&mut self) -> PResult<Imm> {
        let neg = self.at_punct(b'-');
        let t = if neg { self.peek_next() } else { self.peek() };
        match t.kind {
            Tok::Int => Ok(self.int_literal()?.0),
            Tok::Float => {
                if neg {
                    self.advance();
                }
                self.advance();
                match parse_float(self.text(t), neg) {
                    Some(imm) => Ok(imm),
                    None => {
                        self.error_at(t, "malformed floating-point literal");
                        Err(Recover)
                    }
                }
            }
            _ => self.expected("a constant"),
        }
    }

    fn string(&mut self) -> PResult<Box<str>> {
        let t = self.peek();
        if t.kind != Tok::Str {
            return self.expected("a string");
        }
        self.advance();
        let s = self.text(t);
        Ok(s[1..s.len() - 1].into())
    }

    // ---- module ------------------------------------------------------------------------------

    fn module(&mut self) -> Module {
        let mut m = Module::default();
        let mut seen_version = false;
        loop {
            if self.errors.len() >= MAX_ERRORS {
                break;
            }
            let t = self.peek();
            let r: PResult<()> = match t.kind {
                Tok::Eof => break,
                Tok::Dot => match self.text(t) {
                    ".version" => {
                        self.advance();
                        seen_version = true;
                        self.version().map(|v| m.version = v)
                    }
                    ".target" => {
                        self.advance();
                        self.target().map(|v| m.target = v)
                    }
                    ".address_size" => {
                        self.advance();
                        self.u32_literal().map(|v| m.address_size = Some(v))
                    }
                    ".file" => {
                        self.advance();
                        self.file_directive().map(|i| m.items.push(i))
                    }
                    ".section" => {
                        self.advance();
                        self.section().map(|i| m.items.push(i))
                    }
                    ".pragma" => {
                        self.advance();
                        self.pragma_strings().map(|v| m.items.push(Item::Pragma(v)))
                    }
                    ".alias" => {
                        self.advance();
                        self.alias().map(|i| m.items.push(i))
                    }
                    _ => self.module_decl().map(|i| m.items.push(i)),
                },
                Tok::Punct(b'@') if self.text(self.peek_next()) == "@DWARF" => {
                    let tt = self.peek();
                    self.error_at(tt, "`@@DWARF` debug sections are not supported; compile with a newer toolchain or without -G");
                    Err(Recover)
                }
                _ => self.expected("a directive (.version, .target, .entry, .func, a variable, …)"),
            };
            if r.is_err() {
                self.recover_module();
            }
        }
        if !seen_version && self.errors.is_empty() {
            let t = self.first;
            self.error_at(t, "missing .version directive");
        }
        m
    }

    /// Skips to the next token that can start a module-level item.
    fn recover_module(&mut self) {
        let mut depth = 0i32;
        loop {
            let t = self.peek();
            match t.kind {
                Tok::Eof => return,
                Tok::Punct(b'{') => depth += 1,
                Tok::Punct(b'}') => {
                    depth -= 1;
                    if depth <= 0 {
                        self.advance();
                        return;
                    }
                }
                Tok::Punct(b';') if depth <= 0 => {
                    self.advance();
                    return;
                }
                Tok::Dot if depth <= 0 => {
                    if matches!(
                        self.text(t),
                        ".entry"
                            | ".func"
                            | ".visible"
                            | ".extern"
                            | ".weak"
                            | ".version"
                            | ".target"
                    ) {
                        return;
                    }
                }
                _ => {}
            }
            self.advance();
        }
    }

    fn version(&mut self) -> PResult<(u32, u32)> {
        let t = self.peek();
        if matches!(t.kind, Tok::Float | Tok::Int) {
            self.advance();
            let s = self.text(t);
            let mut it = s.splitn(2, '.');
            let major = it.next().and_then(|x| x.parse().ok());
            let minor = it.next().map_or(Some(0), |x| x.parse().ok());
            if let (Some(a), Some(b)) = (major, minor) {
                return Ok((a, b));
            }
            self.error_at(t, "malformed version");
            return Err(Recover);
        }
        self.expected("a version number like 8.7")
    }

    fn target(&mut self) -> PResult<Vec<Box<str>>> {
        let mut v = Vec::new();
        loop {
            let t = self.peek();
            if t.kind != Tok::Ident {
                return self.expected("a target name (sm_90, texmode_independent, debug, …)");
            }
            self.advance();
            v.push(self.text(t).into());
            if !self.eat_punct(b',') {
                return Ok(v);
            }
        }
    }

    fn file_directive(&mut self) -> PResult<Item> {
        let index = self.u32_literal()?;
        let path = self.string()?;
        let mut extra = Vec::new();
        while self.eat_punct(b',') {
            let (imm, _) = self.int_literal()?;
            extra.push(imm.bits());
        }
        Ok(Item::File { index, path, extra })
    }

    fn section(&mut self) -> PResult<Item> {
        let t = self.peek();
        if t.kind != Tok::Dot {
            return self.expected("a section name such as .debug_info");
        }
        self.advance();
        let name: Box<str> = self.text(t)[1..].into();
        let open = self.peek();
        self.expect_punct(b'{')?;
        let mut depth = 1;
        loop {
            let t = self.bump();
            match t.kind {
                Tok::Eof => {
                    self.error_at(open, "unclosed section body");
                    return Err(Recover);
                }
                Tok::Punct(b'{') => depth += 1,
                Tok::Punct(b'}') => {
                    depth -= 1;
                    if depth == 0 {
                        let text = self.src[open.end as usize..t.start as usize].trim();
                        let text: String =
                            text.lines().map(str::trim).collect::<Vec<_>>().join("\n");
                        return Ok(Item::Section {
                            name,
                            text: text.into(),
                        });
                    }
                }
                _ => {}
            }
        }
    }

    fn pragma_strings(&mut self) -> PResult<Vec<Box<str>>> {
        let mut v = vec![self.string()?];
        while self.eat_punct(b',') {
            v.push(self.string()?);
        }
        self.expect_punct(b';')?;
        Ok(v)
    }

    fn alias(&mut self) -> PResult<Item> {
        let a = self.ident("an alias name")?;
        self.expect_punct(b',')?;
        let b = self.ident("an aliasee name")?;
        self.expect_punct(b';')?;
        Ok(Item::Alias {
            alias: a.into(),
            aliasee: b.into(),
        })
    }

    fn ident(&mut self, what: &str) -> PResult<&'a str> {
        let t = self.peek();
        if t.kind == Tok::Ident {
            self.advance();
            Ok(self.text(t))
        } else {
            self.expected(what)
        }
    }

    /// `[linkage] (.entry|.func|variable)`.
    fn module_decl(&mut self) -> PResult<Item> {
        let start = self.peek();
        let mut linkage = None;
        while let Some(l) = self.peek_linkage() {
            if linkage.is_some() {
                let t = self.peek();
                self.error_at(t, "more than one linkage directive");
                return Err(Recover);
            }
            linkage = Some(l);
            self.advance();
        }
        if self.eat_dot(".entry") {
            return self
                .function(linkage, FuncKind::Entry, start)
                .map(Item::Function);
        }
        if self.eat_dot(".func") {
            return self
                .function(linkage, FuncKind::Func, start)
                .map(Item::Function);
        }
        let mut v = self.variable(true)?;
        v.linkage = linkage;
        self.expect_punct(b';')?;
        Ok(Item::Var(v))
    }

    fn peek_linkage(&self) -> Option<Linkage> {
        let t = self.peek();
        if t.kind != Tok::Dot {
            return None;
        }
        Linkage::from_str(&self.text(t)[1..])
    }

    // ---- variables ---------------------------------------------------------------------------

    /// `space [.attribute(...)] [.align N] [.ptr [.space] [.align N]] [.vN] type name[dims] [= init]`.
    /// With `allow_init` false (parameters) no initialiser is accepted; a missing name is allowed
    /// only for parameters (`.param .b32 _` in prototypes is the sink identifier anyway).
    fn variable(&mut self, allow_init: bool) -> PResult<Variable> {
        let start = self.peek();
        let loc = self.loc(start);
        let t = self.peek();
        let space = if t.kind == Tok::Dot {
            StateSpace::from_str(&self.text(t)[1..])
        } else {
            None
        };
        let Some(space) = space else {
            return self.expected("a state space (.global, .shared, .const, .local, .param, .reg)");
        };
        self.advance();
        let mut v = Variable {
            linkage: None,
            space,
            align: None,
            vec: None,
            ty: Type::B8,
            ptr: None,
            name: None,
            dims: Vec::new(),
            init: None,
            attributes: Vec::new(),
            loc,
        };
        let mut ty = None;
        loop {
            let t = self.peek();
            if t.kind != Tok::Dot {
                break;
            }
            let w = &self.text(t)[1..];
            self.advance();
            match w {
                "align" => {
                    let a = self.u32_literal()?;
                    if v.ptr.is_some() {
                        if let Some(p) = v.ptr.as_mut() {
                            p.align = Some(a);
                        }
                    } else {
                        v.align = Some(a);
                    }
                }
                "ptr" => {
                    v.ptr = Some(PtrAttr {
                        space: None,
                        align: None,
                    })
                }
                "attribute" => {
                    self.expect_punct(b'(')?;
                    loop {
                        let a = self.peek();
                        if a.kind != Tok::Dot {
                            return self.expected("an attribute such as .managed");
                        }
                        self.advance();
                        v.attributes.push(self.text(a)[1..].into());
                        if !self.eat_punct(b',') {
                            break;
                        }
                    }
                    self.expect_punct(b')')?;
                }
                "v2" | "v4" | "v8" => v.vec = Some(w[1..].parse().unwrap_or(1)),
                _ => {
                    if let (Some(p), Some(sp)) = (v.ptr.as_mut(), StateSpace::from_str(w)) {
                        p.space = Some(sp);
                    } else if let Some(tt) = Type::from_str(w) {
                        if ty.is_some() {
                            self.error_at(t, "more than one type in a declaration");
                            return Err(Recover);
                        }
                        ty = Some(tt);
                    } else {
                        self.error_at(t, "unexpected directive in a declaration");
                        return Err(Recover);
                    }
                }
            }
        }
        let Some(ty) = ty else {
            return self.expected("a type (.b32, .u64, .f32, …)");
        };
        v.ty = ty;
        let name = self.ident("a name")?;
        v.name = Some(name.into());
        while self.eat_punct(b'[') {
            if self.eat_punct(b']') {
                v.dims.push(None);
                continue;
            }
            let (imm, t) = self.int_literal()?;
            match imm.as_i64() {
                Some(n) if n >= 0 => v.dims.push(Some(n as u64)),
                _ => {
                    self.error_at(t, "array size must be a non-negative integer");
                    return Err(Recover);
                }
            }
            self.expect_punct(b']')?;
        }
        if allow_init && self.eat_punct(b'=') {
            v.init = Some(self.init()?);
        }
        Ok(v)
    }

    fn init(&mut self) -> PResult<Init> {
        if self.eat_punct(b'{') {
            let mut items = Vec::new();
            if !self.at_punct(b'}') {
                loop {
                    items.push(self.init()?);
                    if !self.eat_punct(b',') {
                        break;
                    }
                }
            }
            self.expect_punct(b'}')?;
            return Ok(Init::List(items));
        }
        let t = self.peek();
        if t.kind == Tok::Ident {
            self.advance();
            let mut generic = false;
            let mut name = self.text(t);
            if name == "generic" && self.at_punct(b'(') {
                self.advance();
                name = self.ident("a symbol")?;
                self.expect_punct(b')')?;
                generic = true;
            }
            let offset = self.opt_offset()?;
            return Ok(Init::Sym {
                name: name.into(),
                generic,
                offset,
            });
        }
        Ok(Init::Imm(self.imm()?))
    }

    /// `+N`, `+-N`, `-N` after a symbol or register; 0 when absent.
    fn opt_offset(&mut self) -> PResult<i64> {
        if self.at_punct(b'+') && matches!(self.peek_next().kind, Tok::Int | Tok::Punct(b'-')) {
            self.advance();
            let (imm, t) = self.int_literal()?;
            let mut off = self.offset_value(imm, t)?;
            // ptxas folds further terms (`[%rd1+8+4]`, `[%rd1+8-4]`, `[g+4+4]`; not after a
            // negative first one): so does the parser, and the printer writes the sum.
            while (self.at_punct(b'+') || self.at_punct(b'-')) && self.peek_next().kind == Tok::Int
            {
                if self.at_punct(b'+') {
                    self.advance();
                }
                let (imm, t) = self.int_literal()?;
                off = off.wrapping_add(self.offset_value(imm, t)?);
            }
            return Ok(off);
        }
        if self.at_punct(b'-') && self.peek_next().kind == Tok::Int {
            let (imm, t) = self.int_literal()?;
            return self.offset_value(imm, t);
        }
        Ok(0)
    }

    fn offset_value(&mut self, imm: Imm, t: Token) -> PResult<i64> {
        match imm {
            Imm::Int { value, .. } => Ok(value),
            Imm::Hex { value, .. } => Ok(value as i64),
            _ => {
                self.error_at(t, "expected an integer offset");
                Err(Recover)
            }
        }
    }

    // ---- functions ---------------------------------------------------------------------------

    fn function(
        &mut self,
        linkage: Option<Linkage>,
        kind: FuncKind,
        start: Token,
    ) -> PResult<Function> {
        let loc = self.loc(start);
        let mut returns = None;
        if kind == FuncKind::Func && self.at_punct(b'(') {
            returns = Some(self.param_list()?);
        }
        let name = self.ident("a function name")?;
        let params = if self.at_punct(b'(') {
            Some(self.param_list()?)
        } else {
            None
        };
        let mut directives = Vec::new();
        loop {
            let t = self.peek();
            if t.kind != Tok::Dot {
                break;
            }
            self.advance();
            let d = match self.text(t) {
                ".maxntid" => FuncDirective::MaxNtid(self.u32_list()?),
                ".reqntid" => FuncDirective::ReqNtid(self.u32_list()?),
                ".minnctapersm" => FuncDirective::MinNctaPerSm(self.u32_literal()?),
                ".maxnctapersm" => FuncDirective::MaxNctaPerSm(self.u32_literal()?),
                ".maxnreg" => FuncDirective::MaxNreg(self.u32_literal()?),
                ".noreturn" => FuncDirective::NoReturn,
                ".pragma" => FuncDirective::Pragma(self.pragma_strings()?),
                ".explicitcluster" | ".blocksareclusters" | ".reqnctapercluster"
                | ".maxclusterrank" => {
                    let args = if self.cur.kind == Tok::Int {
                        self.u32_list()?
                    } else {
                        Vec::new()
                    };
                    FuncDirective::Other {
                        name: self.text(t)[1..].into(),
                        args,
                    }
                }
                _ => {
                    self.error_at(t, "expected a function directive (.maxntid, .reqntid, .minnctapersm, .maxnreg, .noreturn, .pragma) or a body");
                    return Err(Recover);
                }
            };
            directives.push(d);
        }
        let body = if self.eat_punct(b';') {
            None
        } else if self.at_punct(b'{') {
            self.advance();
            // `.reg`-space parameters and results of a `.func` are registers of its body.
            let reg_params: Vec<&Variable> = returns
                .iter()
                .flatten()
                .chain(params.iter().flatten())
                .filter(|v| v.space == StateSpace::Reg)
                .collect();
            Some(self.body(&reg_params))
        } else {
            return self.expected("'{' or ';'");
        };
        Ok(Function {
            linkage,
            kind,
            returns,
            name: name.into(),
            params,
            directives,
            body,
            loc,
        })
    }

    fn u32_list(&mut self) -> PResult<Vec<u32>> {
        let mut v = vec![self.u32_literal()?];
        while self.eat_punct(b',') {
            v.push(self.u32_literal()?);
        }
        Ok(v)
    }

    fn param_list(&mut self) -> PResult<Vec<Variable>> {
        self.expect_punct(b'(')?;
        let mut v = Vec::new();
        if self.eat_punct(b')') {
            return Ok(v);
        }
        loop {
            let p = self.variable(false)?;
            if !matches!(p.space, StateSpace::Param | StateSpace::Reg) {
                let t = self.peek();
                self.error_at(t, "parameters must be in .param or .reg space");
                return Err(Recover);
            }
            v.push(p);
            if self.eat_punct(b')') {
                v.shrink_to_fit();
                return Ok(v);
            }
            self.expect_punct(b',')?;
        }
    }

    // ---- bodies ------------------------------------------------------------------------------

    /// Parses statements up to the `}` that closes the body (already past the `{`).
    fn body(&mut self, reg_params: &[&Variable]) -> Body {
        let mut scopes = std::mem::take(&mut self.scope_pool);
        scopes.reset();
        let mut labels = std::mem::take(&mut self.label_pool);
        labels.clear();
        let mut body = Body::default();
        body.reserve(self.last_counts);
        let mut b = BodyBuilder {
            body,
            scopes,
            labels,
            label_defined: Vec::new(),
            label_first_use: Vec::new(),
            repeated: Vec::new(),
            sym_operands: false,
        };
        b.scopes.push();
        for v in reg_params {
            if let Some(name) = &v.name {
                let r = b.body.add_reg(
                    name,
                    RegType {
                        vec: v.vec,
                        ty: v.ty,
                    },
                );
                b.scopes.insert_name(Cow::Owned(name.to_string()), r);
            }
        }
        let mut depth = 0usize;
        loop {
            if self.errors.len() >= MAX_ERRORS {
                // Too many errors: skip the rest of the body.
                self.recover_module();
                break;
            }
            let t = self.peek();
            match t.kind {
                Tok::Eof => {
                    self.error_at(t, "unclosed function body: expected '}'");
                    break;
                }
                Tok::Punct(b'}') => {
                    self.advance();
                    if depth == 0 {
                        break;
                    }
                    depth -= 1;
                    b.scopes.pop();
                    b.body.stmts.push(Stmt::ScopeClose);
                    continue;
                }
                Tok::Punct(b'{') => {
                    self.advance();
                    depth += 1;
                    b.scopes.push();
                    b.body.stmts.push(Stmt::ScopeOpen);
                    continue;
                }
                _ => {}
            }
            if self.statement(&mut b).is_err() {
                self.recover_statement();
            }
        }
        self.finish_body(b)
    }

    fn finish_body(&mut self, mut b: BodyBuilder<'a>) -> Body {
        // Labels used but never defined are errors — unless the name is not a label at all:
        // branch operands were resolved as labels eagerly.
        for (i, defined) in b.label_defined.iter().enumerate() {
            if !defined {
                if let Some(t) = b.label_first_use[i] {
                    self.error_at(t, format!("undefined label `{}`", b.body.labels[i]));
                }
            }
        }
        // Identifiers that name a label of this function are labels wherever they appear
        // (`brx.idx` tables, call prototypes).
        if b.sym_operands && !b.labels.is_empty() {
            let labels = &b.labels;
            for inst in &mut b.body.insts {
                for op in &mut inst.operands {
                    resolve_labels(op, labels);
                }
            }
        }
        if !b.repeated.is_empty() {
            self.scope_labels(&mut b);
        }
        self.scope_pool = b.scopes;
        self.label_pool = b.labels;
        self.last_counts = b.body.counts();
        b.body.shrink_to_fit();
        b.body
    }

    /// Binds the labels of a body that defines a name more than once to their blocks
    /// ([`label_scopes`]) and reports what cannot be bound.
    fn scope_labels(&mut self, b: &mut BodyBuilder<'a>) {
        for e in label_scopes::scope_labels(&mut b.body) {
            match e {
                ScopeError::DefinedTwice(l) => {
                    if let Some(&(_, t)) = b.repeated.iter().find(|(r, _)| *r == l) {
                        let name = self.text(t).to_string();
                        self.error_at(t, format!("label `{name}` defined twice in one block"));
                    }
                }
                ScopeError::NotInScope(l) => {
                    if let Some(t) = b.label_first_use[l.index()] {
                        let name = self.text(t).to_string();
                        self.error_at(
                            t,
                            format!(
                                "`{name}` is defined only in blocks that do not enclose this use"
                            ),
                        );
                    }
                }
            }
        }
    }

    fn statement(&mut self, b: &mut BodyBuilder<'a>) -> PResult<()> {
        let t = self.peek();
        match t.kind {
            Tok::Dot => {
                let w = self.text(t);
                match w {
                    ".reg" => {
                        self.advance();
                        let d = self.reg_decl(b)?;
                        b.body.stmts.push(Stmt::RegDecl(d));
                        Ok(())
                    }
                    ".local" | ".shared" | ".param" | ".const" | ".global" | ".shared::cta" => {
                        let v = self.variable(true)?;
                        self.expect_punct(b';')?;
                        b.body.stmts.push(Stmt::Var(Box::new(v)));
                        Ok(())
                    }
                    ".pragma" => {
                        self.advance();
                        let v = self.pragma_strings()?;
                        b.body.stmts.push(Stmt::Pragma(v));
                        Ok(())
                    }
                    ".loc" => {
                        self.advance();
                        let text = self.rest_of_line_directive(t)?;
                        b.body.stmts.push(Stmt::Debug {
                            name: w[1..].into(),
                            text,
                        });
                        Ok(())
                    }
                    _ => {
                        self.error_at(t, "unexpected directive in a function body");
                        Err(Recover)
                    }
                }
            }
            Tok::Ident if self.peek_next().kind == Tok::Punct(b':') => {
                self.advance();
                self.advance();
                let name = self.text(t);
                let mut label = b.intern_label(name);
                if !b.mark_defined(label) {
                    // Defined again: right when the two are in different `{ … }` blocks
                    // (`label_scopes`), checked at the end of the body.
                    label = b.repeated_label(name, t);
                }
                let d = self.peek();
                if d.kind == Tok::Dot {
                    match self.text(d) {
                        ".branchtargets" => {
                            self.advance();
                            let mut targets = Vec::new();
                            loop {
                                let lt = self.peek();
                                let ln = self.ident("a label")?;
                                targets.push(b.use_label(ln, lt));
                                if !self.eat_punct(b',') {
                                    break;
                                }
                            }
                            self.expect_punct(b';')?;
                            b.body.stmts.push(Stmt::BranchTargets { label, targets });
                            return Ok(());
                        }
                        ".calltargets" => {
                            self.advance();
                            let mut targets = Vec::new();
                            loop {
                                targets.push(self.ident("a function name")?.into());
                                if !self.eat_punct(b',') {
                                    break;
                                }
                            }
                            self.expect_punct(b';')?;
                            b.body.stmts.push(Stmt::CallTargets { label, targets });
                            return Ok(());
                        }
                        ".callprototype" => {
                            self.advance();
                            let text = self.tokens_until_semicolon()?;
                            b.body.stmts.push(Stmt::CallPrototype { label, text });
                            return Ok(());
                        }
                        _ => {}
                    }
                }
                b.body.stmts.push(Stmt::Label(label));
                Ok(())
            }
            Tok::Ident | Tok::Punct(b'@') => {
                let id = self.instruction(b)?;
                b.body.stmts.push(Stmt::Inst(id));
                Ok(())
            }
            _ => self.expected("an instruction, a label, a declaration or '}'"),
        }
    }

    /// The tokens of a debug directive up to the end of its line, joined by single spaces
    /// (commas attached). `.loc` has no terminating `;`.
    fn rest_of_line_directive(&mut self, start: Token) -> PResult<Box<str>> {
        // The start of the next line (the lexer may not have reached it yet).
        let line_end = self.src[start.start as usize..]
            .find('\n')
            .map_or(u32::MAX, |k| start.start + k as u32 + 1);
        let mut out = String::new();
        // While the source already reads like the joined text, only the span is remembered and
        // copied once at the end.
        let mut span: Option<(u32, u32)> = None;
        let mut verbatim = true;
        while self.cur.kind != Tok::Eof && self.cur.start < line_end {
            let t = self.peek();
            if t.kind == Tok::Punct(b';') {
                self.advance();
                break;
            }
            if t.kind == Tok::Punct(b'}') || t.kind == Tok::Punct(b'{') {
                break;
            }
            self.advance();
            if t.kind == Tok::Error {
                self.error_at(t, "unexpected character");
                return Err(Recover);
            }
            let s = self.text(t);
            if verbatim {
                match span {
                    None => {
                        span = Some((t.start, t.end));
                        continue;
                    }
                    Some((a, e)) => {
                        let gap = &self.src[e as usize..t.start as usize];
                        if gap == if s == "," { "" } else { " " } {
                            span = Some((a, t.end));
                            continue;
                        }
                        verbatim = false;
                        out.push_str(&self.src[a as usize..e as usize]);
                    }
                }
            }
            if !out.is_empty() && s != "," {
                out.push(' ');
            }
            out.push_str(s);
        }
        if verbatim {
            return Ok(span
                .map_or("", |(a, e)| &self.src[a as usize..e as usize])
                .into());
        }
        Ok(out.into())
    }

    /// The tokens up to a `;` (consumed), joined by single spaces.
    fn tokens_until_semicolon(&mut self) -> PResult<Box<str>> {
        let mut out = String::new();
        loop {
            let t = self.peek();
            match t.kind {
                Tok::Eof | Tok::Error => return self.expected("';'"),
                Tok::Punct(b';') => {
                    self.advance();
                    return Ok(out.into());
                }
                _ => {
                    self.advance();
                    if !out.is_empty() {
                        out.push(' ');
                    }
                    out.push_str(self.text(t));
                }
            }
        }
    }

    fn reg_decl(&mut self, b: &mut BodyBuilder<'a>) -> PResult<RegDecl> {
        let mut vec = None;
        let mut align = None;
        let mut ty = None;
        loop {
            let t = self.peek();
            if t.kind != Tok::Dot {
                break;
            }
            let w = &self.text(t)[1..];
            self.advance();
            match w {
                "v2" | "v4" | "v8" => vec = Some(w[1..].parse().unwrap_or(1)),
                "align" => align = Some(self.u32_literal()?),
                _ => match Type::from_str(w) {
                    Some(tt) if ty.is_none() => ty = Some(tt),
                    _ => {
                        self.error_at(t, "expected a register type");
                        return Err(Recover);
                    }
                },
            }
        }
        let Some(ty) = ty else {
            return self.expected("a register type (.b32, .pred, …)");
        };
        let rty = RegType { vec, ty };
        let mut items = Vec::new();
        loop {
            let t = self.peek();
            let name = self.ident("a register name")?;
            if self.eat_punct(b'<') {
                let count = self.u32_literal()?;
                self.expect_punct(b'>')?;
                if b.body.regs.len() as u64 + u64::from(count) > (1u64 << 28) {
                    self.error_at(t, "too many registers");
                    return Err(Recover);
                }
                let first = b.body.add_reg_range(name, count, rty);
                b.scopes.insert_range(name, first, count);
                items.push(RegDeclItem::Range {
                    prefix: name.into(),
                    count,
                    first,
                });
            } else {
                let r = b.body.add_reg(name, rty);
                b.scopes.insert_name(Cow::Borrowed(name), r);
                items.push(RegDeclItem::Single(r));
            }
            if !self.eat_punct(b',') {
                break;
            }
        }
        self.expect_punct(b';')?;
        Ok(RegDecl {
            ty: rty,
            align,
            items,
        })
    }

    /// Parses one instruction into the body's instruction arena (built in place there rather than
    /// returned: an `InstData` is 192 bytes) and returns its id.
    fn instruction(&mut self, b: &mut BodyBuilder<'a>) -> PResult<Inst> {
        let start = self.peek();
        let loc = self.loc(start);
        let mut guard = None;
        if self.eat_punct(b'@') {
            let negated = self.eat_punct(b'!');
            let t = self.peek();
            let name = self.ident("a predicate register")?;
            match b.scopes.lookup(name) {
                Some(reg) => guard = Some(Guard { reg, negated }),
                None => {
                    self.error_at(t, format!("unknown register `{name}`"));
                    return Err(Recover);
                }
            }
        }
        let ot = self.peek();
        let op_name = self.ident("an instruction opcode")?;
        let opcode = self.opcodes.get(op_name, Opcode::from_name);
        if let Opcode::Other(_) = opcode {
            log::debug!(
                "{}:{}:{}: opcode `{op_name}` is not modelled; kept as an opaque instruction",
                self.file,
                loc.line,
                loc.col
            );
        }
        let _ = ot;
        // Modifiers and operands go straight into the instruction's inline vectors (no
        // allocation unless an instruction has more than three of either).
        let mut mods = Mods::new();
        while self.cur.kind == Tok::Dot {
            let t = self.bump();
            mods.push(self.modifiers.get(&self.text(t)[1..], Modifier::parse));
        }
        // Branch targets are labels even when defined later.
        self.branch_operands = matches!(opcode, Opcode::Bra);
        let mut operands = Operands::new();
        self.operand_list(b, &mut operands)?;
        let id = Inst::new(b.body.insts.len());
        b.body.insts.push(InstData {
            guard,
            opcode,
            mods,
            operands,
            loc,
        });
        Ok(id)
    }

    /// The operands of an instruction up to and including its `;`, appended to `out`.
    fn operand_list(&mut self, b: &mut BodyBuilder<'a>, out: &mut Operands) -> PResult<()> {
        if self.eat_punct(b';') {
            return Ok(());
        }
        loop {
            out.push(self.operand(b, true)?);
            if self.eat_punct(b';') {
                return Ok(());
            }
            if !self.eat_punct(b',') {
                return self.expected("',' or ';'");
            }
        }
    }

    /// One operand. `allow_pair` admits `a|b`.
    fn operand(&mut self, b: &mut BodyBuilder<'a>, allow_pair: bool) -> PResult<Operand> {
        let first = self.simple_operand(b)?;
        if allow_pair && self.eat_punct(b'|') {
            let second = self.simple_operand(b)?;
            return Ok(Operand::Pair(Box::new(first), Box::new(second)));
        }
        Ok(first)
    }

    fn simple_operand(&mut self, b: &mut BodyBuilder<'a>) -> PResult<Operand> {
        let t = self.peek();
        match t.kind {
            Tok::Punct(b'[') => {
                self.advance();
                let mut parts = vec![self.address_part(b)?];
                while self.eat_punct(b',') {
                    parts.push(self.bracket_element(b)?);
                }
                self.expect_punct(b']')?;
                if parts.len() == 1 {
                    if let Some(Operand::Addr(a)) = parts.pop() {
                        return Ok(Operand::Addr(a));
                    }
                    return self.expected("an address");
                }
                Ok(Operand::Bracket(parts))
            }
            Tok::Punct(b'{') => {
                self.advance();
                let mut v = Vec::new();
                if !self.at_punct(b'}') {
                    loop {
                        v.push(self.operand(b, false)?);
                        if !self.eat_punct(b',') {
                            break;
                        }
                    }
                }
                self.expect_punct(b'}')?;
                Ok(Operand::Vector(v))
            }
            Tok::Punct(b'(') => {
                self.advance();
                let mut v = Vec::new();
                if !self.at_punct(b')') {
                    loop {
                        v.push(self.operand(b, false)?);
                        if !self.eat_punct(b',') {
                            break;
                        }
                    }
                }
                self.expect_punct(b')')?;
                Ok(Operand::List(v))
            }
            Tok::Punct(b'!') => {
                self.advance();
                let rt = self.peek();
                let name = self.ident("a predicate register")?;
                match b.scopes.lookup(name) {
                    Some(r) => Ok(Operand::NotReg(r)),
                    None => {
                        self.error_at(rt, format!("unknown register `{name}`"));
                        Err(Recover)
                    }
                }
            }
            Tok::Ident => {
                self.advance();
                let name = self.text(t);
                if name == "_" {
                    return Ok(Operand::Sink);
                }
                if let Some(r) = b.scopes.lookup(name) {
                    let c = self.peek();
                    if c.kind == Tok::Dot {
                        if let Some(comp) = Component::parse(&self.text(c)[1..]) {
                            self.advance();
                            return Ok(Operand::RegComponent(r, comp));
                        }
                        self.error_at(c, "expected a vector component .x, .y, .z or .w");
                        return Err(Recover);
                    }
                    let before = self.cur.start;
                    let off = self.opt_offset()?;
                    return Ok(if self.cur.start != before {
                        Operand::RegOffset(r, off)
                    } else {
                        Operand::Reg(r)
                    });
                }
                if name.starts_with('%') || name == "WARP_SZ" {
                    if let Some(s) = self.special(name, t)? {
                        return Ok(Operand::Special(s));
                    }
                    self.error_at(t, format!("unknown register `{name}`"));
                    return Err(Recover);
                }
                if self.branch_operands {
                    return Ok(Operand::Label(b.use_label(name, t)));
                }
                let off_start = self.cur.start;
                let off = self.opt_offset()?;
                if self.cur.start != off_start {
                    return Ok(Operand::SymOffset(name.into(), off));
                }
                b.sym_operands = true;
                Ok(Operand::Sym(name.into()))
            }
            Tok::Int | Tok::Float | Tok::Punct(b'-') => Ok(Operand::Imm(self.imm()?)),
            _ => self.expected("an operand"),
        }
    }

    /// A special register with an optional `.x/.y/.z` component.
    fn special(&mut self, name: &str, t: Token) -> PResult<Option<SpecialOperand>> {
        if let Some(n) = name.strip_prefix("%envreg") {
            if let Ok(i) = n.parse::<u32>() {
                if i < 32 {
                    return Ok(Some(SpecialOperand::EnvReg(i)));
                }
            }
        }
        if let Some(n) = name.strip_prefix("%pm") {
            let (n, wide) = match n.strip_suffix("_64") {
                Some(n) => (n, true),
                None => (n, false),
            };
            if let Ok(index) = n.parse::<u32>() {
                if index < 8 {
                    return Ok(Some(SpecialOperand::Pm { index, wide }));
                }
            }
        }
        let Some(sreg) = SpecialReg::from_str(name) else {
            return Ok(None);
        };
        let mut comp = None;
        if sreg.has_components() {
            let c = self.peek();
            if c.kind == Tok::Dot {
                match Component::parse(&self.text(c)[1..]) {
                    Some(x) if x != Component::W => {
                        self.advance();
                        comp = Some(x);
                    }
                    _ => {
                        self.error_at(c, format!("expected .x, .y or .z after {name}"));
                        return Err(Recover);
                    }
                }
            }
        } else if self.cur.kind == Tok::Dot {
            let c = self.peek();
            self.error_at(c, format!("{name} has no components"));
            let _ = t;
            return Err(Recover);
        }
        Ok(Some(SpecialOperand::Named(sreg, comp)))
    }

    /// The first part of a bracket: `reg[+off]`, `sym[+off]`, `imm`.
    fn address_part(&mut self, b: &mut BodyBuilder<'a>) -> PResult<Operand> {
        let t = self.peek();
        match t.kind {
            Tok::Ident => {
                self.advance();
                let name = self.text(t);
                let base = match b.scopes.lookup(name) {
                    Some(r) => AddrBase::Reg(r),
                    None if name.starts_with('%') => {
                        self.error_at(t, format!("unknown register `{name}`"));
                        return Err(Recover);
                    }
                    None => AddrBase::Sym(name.into()),
                };
                let offset = self.opt_offset()?;
                Ok(Operand::Addr(Address { base, offset }))
            }
            Tok::Int | Tok::Punct(b'-') => {
                let (imm, it) = self.int_literal()?;
                let offset = self.offset_value(imm, it)?;
                Ok(Operand::Addr(Address {
                    base: AddrBase::None,
                    offset,
                }))
            }
            _ => self.expected("an address (register, symbol or constant)"),
        }
    }

    /// Later elements of a multi-part bracket (texture coordinates etc.).
    fn bracket_element(&mut self, b: &mut BodyBuilder<'a>) -> PResult<Operand> {
        self.operand(b, false)
    }
}

/// Per-body parsing state.
struct BodyBuilder<'a> {
    body: Body,
    scopes: Scopes<'a>,
    labels: FxMap<&'a str, Label>,
    label_defined: Vec<bool>,
    /// The first token that referred to a label before its definition (for "undefined label").
    label_first_use: Vec<Option<Token>>,
    /// The second and later definitions of a name, each its own label, with its token
    /// (`label_scopes` binds the uses to them).
    repeated: Vec<(Label, Token)>,
    /// True when some operand is a bare symbol that may turn out to be a label.
    sym_operands: bool,
}

impl<'a> BodyBuilder<'a> {
    fn intern_label(&mut self, name: &'a str) -> Label {
        if let Some(l) = self.labels.get(name) {
            return *l;
        }
        let l = Label::new(self.body.labels.len());
        self.body.labels.push(name.into());
        self.labels.insert(name, l);
        self.label_defined.push(false);
        self.label_first_use.push(None);
        l
    }
    /// A label for another definition of `name` (at `t`), defined.
    fn repeated_label(&mut self, name: &'a str, t: Token) -> Label {
        let l = Label::new(self.body.labels.len());
        self.body.labels.push(name.into());
        self.label_defined.push(true);
        self.label_first_use.push(None);
        self.repeated.push((l, t));
        l
    }
    /// Marks `l` defined; false when it already was.
    fn mark_defined(&mut self, l: Label) -> bool {
        !std::mem::replace(&mut self.label_defined[l.index()], true)
    }
    fn use_label(&mut self, name: &'a str, t: Token) -> Label {
        let l = self.intern_label(name);
        if self.label_first_use[l.index()].is_none() {
            self.label_first_use[l.index()] = Some(t);
        }
        l
    }
}

/// Moves the elements of `pool` into a new vector of exactly their number (one allocation and one
/// copy), leaving `pool` empty with its capacity.
fn resolve_labels(op: &mut Operand, labels: &FxMap<&str, Label>) {
    match op {
        Operand::Sym(name) => {
            if let Some(l) = labels.get(&**name) {
                *op = Operand::Label(*l);
            }
        }
        Operand::Vector(v) | Operand::List(v) | Operand::Bracket(v) => {
            v.iter_mut().for_each(|o| resolve_labels(o, labels))
        }
        Operand::Pair(a, b) => {
            resolve_labels(a, labels);
            resolve_labels(b, labels);
        }
        _ => {}
    }
}

/// Parses an integer literal's text (with the sign given apart).
pub(crate) fn parse_int(s: &str, neg: bool) -> Option<Imm> {
    let (s, unsigned) = match s.strip_suffix(['U', 'u']) {
        Some(x) => (x, true),
        None => (s, false),
    };
    let (digits, radix) = if let Some(h) = s.strip_prefix("0x").or_else(|| s.strip_prefix("0X")) {
        (h, 16)
    } else if let Some(bn) = s.strip_prefix("0b").or_else(|| s.strip_prefix("0B")) {
        (bn, 2)
    } else if s.len() > 1 && s.starts_with('0') {
        (&s[1..], 8)
    } else {
        (s, 10)
    };
    let v = u64::from_str_radix(digits, radix).ok()?;
    if radix == 10 {
        if neg {
            if v > (i64::MAX as u64) + 1 {
                return None;
            }
            return Some(Imm::Int {
                value: (v as i64).wrapping_neg(),
                unsigned,
            });
        }
        if v > i64::MAX as u64 {
            return Some(Imm::Hex { value: v, unsigned });
        }
        return Some(Imm::Int {
            value: v as i64,
            unsigned,
        });
    }
    if neg {
        return Some(Imm::Int {
            value: (v as i64).wrapping_neg(),
            unsigned,
        });
    }
    Some(Imm::Hex { value: v, unsigned })
}

/// Parses a float literal's text (with the sign given apart).
pub(crate) fn parse_float(s: &str, neg: bool) -> Option<Imm> {
    let b = s.as_bytes();
    if b.len() > 2 && b[0] == b'0' && matches!(b[1], b'f' | b'F') {
        if s.len() != 10 {
            return None;
        }
        let v = u32::from_str_radix(&s[2..], 16).ok()?;
        return Some(Imm::F32(if neg { v ^ 0x8000_0000 } else { v }));
    }
    if b.len() > 2 && b[0] == b'0' && matches!(b[1], b'd' | b'D') {
        if s.len() != 18 {
            return None;
        }
        let v = u64::from_str_radix(&s[2..], 16).ok()?;
        return Some(Imm::F64(if neg { v ^ 0x8000_0000_0000_0000 } else { v }));
    }
    s.parse::<f64>().ok()?;
    Some(Imm::FloatDec(if neg {
        format!("-{s}").into()
    } else {
        s.into()
    }))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn wrap(body: &str) -> String {
        format!(".version 8.7\n.target sm_90\n.address_size 64\n.visible .entry k(.param .u64 p)\n{{\n{body}\n}}\n")
    }

    #[test]
    fn parses_a_small_kernel() {
        let src = wrap(".reg .b32 %r<4>;\n.reg .pred %p<2>;\n.reg .b64 %rd<3>;\nld.param.u64 %rd1, [p];\nmov.u32 %r1, %tid.x;\nsetp.lt.s32 %p1, %r1, 32;\n@!%p1 bra $L__BB0_2;\nst.global.u32 [%rd1+4], %r1;\n$L__BB0_2:\nret;");
        let m = parse_module(&src, "t.ptx").unwrap();
        assert_eq!(m.version, (8, 7));
        let f = m.function("k").unwrap();
        let b = f.body.as_ref().unwrap();
        assert_eq!(b.regs.len(), 9);
        assert_eq!(b.insts.len(), 6);
        let bra = &b.insts[3];
        assert_eq!(bra.opcode, Opcode::Bra);
        assert!(bra.guard.unwrap().negated);
        assert!(matches!(bra.operands[0], Operand::Label(_)));
        assert_eq!(
            b.insts[1].operands[1],
            Operand::Special(SpecialOperand::Named(SpecialReg::Tid, Some(Component::X)))
        );
        assert_eq!(
            b.insts[4].operands[0],
            Operand::Addr(Address {
                base: AddrBase::Reg(Reg(8 - 1)),
                offset: 4
            })
        );
    }

    #[test]
    fn address_offsets_fold_as_ptxas_does() {
        // ptxas 12.9 accepts `[%rd1+8+4]`, `[%rd1+8-4]` and `[g+4+4]` (a constant expression
        // after the first `+`), and refuses `[%rd1-8+16]`.
        let src = format!(
            ".version 8.0\n.target sm_80\n.address_size 64\n.global .b32 g[4];\n{}",
            &wrap(".reg .b32 %r<4>;\n.reg .b64 %rd<3>;\nld.param.u64 %rd1, [p];\nld.global.u32 %r1, [%rd1+8+4];\nld.global.u32 %r2, [%rd1+8-4];\nst.global.u32 [g+4+0x4], %r1;\nret;")
                [".version 8.7\n.target sm_90\n.address_size 64\n".len()..]
        );
        let m = parse_module(&src, "t.ptx").unwrap();
        let b = m.function("k").unwrap().body.as_ref().unwrap();
        let offset = |i: usize, o: usize| match &b.insts[i].operands[o] {
            Operand::Addr(a) => a.offset,
            other => panic!("{other:?}"),
        };
        assert_eq!((offset(1, 1), offset(2, 1), offset(3, 0)), (12, 4, 8));
        let bad = wrap(".reg .b32 %r<2>;\n.reg .b64 %rd<2>;\nld.global.u32 %r1, [%rd1-8+16];");
        assert!(parse_module(&bad, "bad.ptx").is_err());
    }

    #[test]
    fn reports_all_errors_with_positions() {
        let src = wrap(".reg .b32 %r<2>;\nmov.u32 %r9, 1;\nadd.u32 %r1, %r1 2;\nbra NOWHERE;");
        let e = parse_module(&src, "bad.ptx").unwrap_err();
        let msgs: Vec<String> = e.0.iter().map(|d| d.to_string()).collect();
        assert_eq!(msgs.len(), 3, "{msgs:?}");
        assert!(
            msgs[0].starts_with("bad.ptx:7:9: error: unknown register `%r9`"),
            "{}",
            msgs[0]
        );
        assert!(
            msgs[1].contains("bad.ptx:8:18: error: expected ',' or ';', found `2`"),
            "{}",
            msgs[1]
        );
        assert!(msgs[2].contains("undefined label `NOWHERE`"), "{}", msgs[2]);
    }

    #[test]
    fn literals() {
        assert_eq!(
            parse_int("0x1F", false),
            Some(Imm::Hex {
                value: 31,
                unsigned: false
            })
        );
        assert_eq!(
            parse_int("017", false),
            Some(Imm::Hex {
                value: 15,
                unsigned: false
            })
        );
        assert_eq!(
            parse_int("0b101", false),
            Some(Imm::Hex {
                value: 5,
                unsigned: false
            })
        );
        assert_eq!(
            parse_int("5", true),
            Some(Imm::Int {
                value: -5,
                unsigned: false
            })
        );
        assert_eq!(
            parse_int("9223372036854775808", true),
            Some(Imm::Int {
                value: i64::MIN,
                unsigned: false
            })
        );
        assert_eq!(parse_int("99999999999999999999", false), None);
        assert_eq!(parse_float("0f3F800000", true), Some(Imm::F32(0xBF80_0000)));
        assert_eq!(
            parse_float("0d3FF0000000000000", false),
            Some(Imm::F64(0x3FF0_0000_0000_0000))
        );
        assert_eq!(parse_float("0f3F80", false), None);
    }

    #[test]
    fn scopes_shadow_and_close() {
        let src = wrap(".reg .b32 a;\n{\n.reg .b64 a;\nmov.b64 a, 1;\n}\nmov.b32 a, 2;");
        let m = parse_module(&src, "s.ptx").unwrap();
        let b = m.functions().next().unwrap().body.as_ref().unwrap();
        assert_eq!(b.insts[0].operands[0], Operand::Reg(Reg(1)));
        assert_eq!(b.insts[1].operands[0], Operand::Reg(Reg(0)));
    }

    #[test]
    fn range_registers_across_digit_boundaries() {
        let src =
            wrap(".reg .b32 %r<120>;\nmov.b32 %r9, %r10;\nmov.b32 %r99, %r100;\nmov.b32 %r119, 0;");
        let m = parse_module(&src, "r.ptx").unwrap();
        let b = m.functions().next().unwrap().body.as_ref().unwrap();
        for k in [0u32, 9, 10, 99, 100, 119] {
            assert_eq!(b.reg_name(Reg(k)), format!("%r{k}"));
        }
        assert_eq!(b.insts[1].operands[1], Operand::Reg(Reg(100)));
        for bad in ["%r120", "%r010", "%r99999999999"] {
            let e = parse_module(
                &wrap(&format!(".reg .b32 %r<120>;\nmov.b32 {bad}, 0;")),
                "r.ptx",
            )
            .unwrap_err();
            assert!(e.to_string().contains("unknown register"), "{bad}: {e}");
        }
    }

    #[test]
    fn many_ranges_and_long_prefixes() {
        // More ranges than the linear table holds, and prefixes that share their first 8 bytes.
        let mut decls = String::new();
        for c in 'a'..='x' {
            decls.push_str(&format!(".reg .b32 %q{c}<3>;\n"));
        }
        decls.push_str(
            ".reg .b64 %longpref_a<2>;\n.reg .b64 %longpref_bb<4>;\n.reg .b64 %longpre<5>;\n",
        );
        let src = wrap(&format!(
            "{decls}mov.b32 %qx2, %qa0;\nmov.b64 %longpref_bb3, %longpref_a1;\nmov.b64 %longpre4, 0;"
        ));
        let m = parse_module(&src, "q.ptx").unwrap();
        let b = m.functions().next().unwrap().body.as_ref().unwrap();
        let name = |op: &Operand| match op {
            Operand::Reg(r) => b.reg_name(*r).to_string(),
            o => format!("{o:?}"),
        };
        let got: Vec<String> = b
            .insts
            .iter()
            .flat_map(|i| i.operands.iter().map(name))
            .collect();
        assert_eq!(
            got[..5],
            ["%qx2", "%qa0", "%longpref_bb3", "%longpref_a1", "%longpre4"]
        );
        let e =
            parse_module(&wrap(&format!("{decls}mov.b64 %longpref_b1, 0;")), "q.ptx").unwrap_err();
        assert!(
            e.to_string().contains("unknown register `%longpref_b1`"),
            "{e}"
        );
    }

    #[test]
    fn long_bodies_cross_the_token_window() {
        // Far more tokens than one lexing window; the error at the end keeps its position.
        let mut body = String::from(".reg .b32 %r<4>;\n");
        for _ in 0..400 {
            body.push_str("add.s32 %r1, %r2, %r3;\n");
        }
        let m = parse_module(&wrap(&body), "w.ptx").unwrap();
        assert_eq!(
            m.functions()
                .next()
                .unwrap()
                .body
                .as_ref()
                .unwrap()
                .insts
                .len(),
            400
        );
        body.push_str("add.s32 %r1, %r2 %r3;");
        let e = parse_module(&wrap(&body), "w.ptx").unwrap_err();
        assert!(
            e.to_string()
                .starts_with("w.ptx:407:18: error: expected ',' or ';'"),
            "{e}"
        );
        // Input that ends inside a body.
        let e = parse_module(
            ".version 8.7\n.target sm_90\n.entry k()\n{\nret;",
            "eof.ptx",
        )
        .unwrap_err();
        assert!(
            e.to_string()
                .contains("eof.ptx:5:5: error: unclosed function body"),
            "{e}"
        );
    }

    #[test]
    fn debug_directives_are_normalised() {
        let src = wrap(".loc\t1 12 5\nret;\n.loc 1  13,\t7 // c\nret;");
        let m = parse_module(&src, "l.ptx").unwrap();
        let b = m.functions().next().unwrap().body.as_ref().unwrap();
        let texts: Vec<&str> = b
            .stmts
            .iter()
            .filter_map(|s| match s {
                Stmt::Debug { text, .. } => Some(&**text),
                _ => None,
            })
            .collect();
        assert_eq!(texts, ["1 12 5", "1 13, 7"]);
    }

    #[test]
    fn garbage_never_panics() {
        for s in [
            "",
            "}",
            "{",
            ".version",
            ".entry",
            ".version 8.7 .entry k( {",
            "\u{0}\u{1}",
            ".visible .entry k() { @ ; [ ] }",
            "/*",
            "\"",
            ".version 1.0 .target sm_90 .func (.param .b32 r) f ( .reg .b32 x ) { ret; }",
        ] {
            let _ = parse_module(s, "g.ptx");
        }
    }
}
