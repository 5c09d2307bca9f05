//! The PTX printer: machine IR back to PTX text that ptxas accepts.
//!
//! The output is laid out like LLVM's NVPTX back end prints PTX (tab-indented bodies, one
//! statement a line) and is a fixed point of the parser: `parse(print(m)) == m`. Comments and
//! whitespace of the input are not kept; everything with meaning is.

use std::fmt::Write;

use super::ir::*;

/// Prints a whole module.
pub fn print_module(m: &Module) -> String {
    let mut p = Printer {
        out: String::with_capacity(4096),
    };
    p.module(m);
    p.out
}

/// Prints one instruction of `body` (without indentation or newline), for diagnostics and reports.
pub fn print_inst(body: &Body, inst: Inst) -> String {
    let mut p = Printer { out: String::new() };
    p.inst(body, body.inst(inst));
    p.out
}

/// Prints one operand of `body`.
pub fn print_operand(body: &Body, op: &Operand) -> String {
    let mut p = Printer { out: String::new() };
    p.operand(body, op);
    p.out
}

struct Printer {
    out: String,
}

/// Appends `v` in upper-case hexadecimal with at least `min_digits` digits (`{v:0N$X}` without
/// the formatting machinery: float constants are in every other line of arithmetic code).
fn push_hex(out: &mut String, v: u64, min_digits: usize) {
    const HEX: &[u8; 16] = b"0123456789ABCDEF";
    let mut buf = [b'0'; 16];
    let mut i = buf.len();
    let mut u = v;
    while u != 0 {
        i -= 1;
        buf[i] = HEX[(u & 0xF) as usize];
        u >>= 4;
    }
    let start = i.min(buf.len() - min_digits.clamp(1, 16));
    out.push_str(std::str::from_utf8(&buf[start..]).unwrap_or_default());
}

impl Printer {
    fn module(&mut self, m: &Module) {
        let _ = writeln!(self.out, ".version {}.{}", m.version.0, m.version.1);
        if !m.target.is_empty() {
            self.out.push_str(".target ");
            self.join(&m.target, ", ");
            self.out.push('\n');
        }
        if let Some(a) = m.address_size {
            let _ = writeln!(self.out, ".address_size {a}");
        }
        for item in &m.items {
            self.out.push('\n');
            match item {
                Item::Function(f) => self.function(f),
                Item::Var(v) => {
                    self.variable(v);
                    self.out.push_str(";\n");
                }
                Item::File { index, path, extra } => {
                    let _ = write!(self.out, ".file {index} \"{path}\"");
                    for e in extra {
                        let _ = write!(self.out, ", {e}");
                    }
                    self.out.push('\n');
                }
                Item::Section { name, text } => {
                    let _ = writeln!(self.out, ".section .{name}\n{{");
                    for line in text.lines() {
                        let _ = writeln!(self.out, "\t{line}");
                    }
                    self.out.push_str("}\n");
                }
                Item::Pragma(v) => {
                    self.pragma(v);
                    self.out.push('\n');
                }
                Item::Alias { alias, aliasee } => {
                    let _ = writeln!(self.out, ".alias {alias}, {aliasee};");
                }
            }
        }
    }

    fn join(&mut self, items: &[Box<str>], sep: &str) {
        for (i, s) in items.iter().enumerate() {
            if i > 0 {
                self.out.push_str(sep);
            }
            self.out.push_str(s);
        }
    }

    fn pragma(&mut self, v: &[Box<str>]) {
        self.out.push_str(".pragma ");
        for (i, s) in v.iter().enumerate() {
            if i > 0 {
                self.out.push_str(", ");
            }
            let _ = write!(self.out, "\"{s}\"");
        }
        self.out.push(';');
    }

    fn function(&mut self, f: &Function) {
        if let Some(l) = f.linkage {
            let _ = write!(self.out, ".{l} ");
        }
        self.out.push_str(match f.kind {
            FuncKind::Entry => ".entry ",
            FuncKind::Func => ".func ",
        });
        if let Some(r) = &f.returns {
            self.out.push('(');
            for (i, v) in r.iter().enumerate() {
                if i > 0 {
                    self.out.push_str(", ");
                }
                self.variable(v);
            }
            self.out.push_str(") ");
        }
        self.out.push_str(&f.name);
        if let Some(ps) = &f.params {
            if ps.is_empty() {
                self.out.push_str("()");
            } else {
                self.out.push_str("(\n");
                for (i, v) in ps.iter().enumerate() {
                    self.out.push('\t');
                    self.variable(v);
                    self.out
                        .push_str(if i + 1 < ps.len() { ",\n" } else { "\n" });
                }
                self.out.push(')');
            }
        }
        self.out.push('\n');
        for d in &f.directives {
            match d {
                FuncDirective::MaxNtid(v) => self.dir_list("maxntid", v),
                FuncDirective::ReqNtid(v) => self.dir_list("reqntid", v),
                FuncDirective::MinNctaPerSm(n) => self.dir_list("minnctapersm", &[*n]),
                FuncDirective::MaxNctaPerSm(n) => self.dir_list("maxnctapersm", &[*n]),
                FuncDirective::MaxNreg(n) => self.dir_list("maxnreg", &[*n]),
                FuncDirective::NoReturn => self.out.push_str(".noreturn"),
                FuncDirective::Pragma(v) => self.pragma(v),
                FuncDirective::Other { name, args } => self.dir_list(name, args),
            }
            self.out.push('\n');
        }
        match &f.body {
            None => self.out.push_str(";\n"),
            Some(b) => self.body(b),
        }
    }

    fn dir_list(&mut self, name: &str, v: &[u32]) {
        let _ = write!(self.out, ".{name}");
        for (i, x) in v.iter().enumerate() {
            let _ = write!(self.out, "{}{x}", if i == 0 { " " } else { ", " });
        }
    }

    fn body(&mut self, b: &Body) {
        self.out.push_str("{\n");
        let mut depth = 1usize;
        for s in &b.stmts {
            if matches!(s, Stmt::ScopeClose) {
                depth = depth.saturating_sub(1).max(1);
            }
            if !matches!(
                s,
                Stmt::Label(_)
                    | Stmt::BranchTargets { .. }
                    | Stmt::CallTargets { .. }
                    | Stmt::CallPrototype { .. }
            ) {
                for _ in 0..depth {
                    self.out.push('\t');
                }
            }
            match s {
                Stmt::Inst(i) => self.inst(b, b.inst(*i)),
                Stmt::Label(l) => {
                    self.out.push_str(b.label_name(*l));
                    self.out.push(':');
                }
                Stmt::RegDecl(d) => self.reg_decl(b, d),
                Stmt::Var(v) => {
                    self.variable(v);
                    self.out.push(';');
                }
                Stmt::ScopeOpen => {
                    self.out.push('{');
                    depth += 1;
                }
                Stmt::ScopeClose => self.out.push('}'),
                Stmt::BranchTargets { label, targets } => {
                    let _ = write!(self.out, "{}: .branchtargets ", b.label_name(*label));
                    for (i, t) in targets.iter().enumerate() {
                        if i > 0 {
                            self.out.push_str(", ");
                        }
                        self.out.push_str(b.label_name(*t));
                    }
                    self.out.push(';');
                }
                Stmt::CallTargets { label, targets } => {
                    let _ = write!(self.out, "{}: .calltargets ", b.label_name(*label));
                    self.join(targets, ", ");
                    self.out.push(';');
                }
                Stmt::CallPrototype { label, text } => {
                    let _ = write!(self.out, "{}: .callprototype {text};", b.label_name(*label));
                }
                Stmt::Pragma(v) => self.pragma(v),
                Stmt::Debug { name, text } => {
                    let _ = write!(self.out, ".{name} {text}");
                }
            }
            self.out.push('\n');
        }
        self.out.push_str("}\n");
    }

    fn reg_decl(&mut self, b: &Body, d: &RegDecl) {
        self.out.push_str(".reg ");
        if let Some(a) = d.align {
            let _ = write!(self.out, ".align {a} ");
        }
        if let Some(v) = d.ty.vec {
            let _ = write!(self.out, ".v{v} ");
        }
        self.out.push('.');
        self.out.push_str(d.ty.ty.as_str());
        self.out.push_str(" \t");
        for (i, item) in d.items.iter().enumerate() {
            if i > 0 {
                self.out.push_str(", ");
            }
            match item {
                RegDeclItem::Range { prefix, count, .. } => {
                    self.out.push_str(prefix);
                    self.out.push('<');
                    push_i64(&mut self.out, i64::from(*count));
                    self.out.push('>');
                }
                RegDeclItem::Single(r) => self.out.push_str(b.reg_name(*r)),
            }
        }
        self.out.push(';');
    }

    fn variable(&mut self, v: &Variable) {
        if let Some(l) = v.linkage {
            let _ = write!(self.out, ".{l} ");
        }
        self.out.push('.');
        self.out.push_str(v.space.as_str());
        if !v.attributes.is_empty() {
            self.out.push_str(" .attribute(");
            for (i, a) in v.attributes.iter().enumerate() {
                let _ = write!(self.out, "{}.{a}", if i > 0 { ", " } else { "" });
            }
            self.out.push(')');
        }
        if let Some(a) = v.align {
            let _ = write!(self.out, " .align {a}");
        }
        if let Some(n) = v.vec {
            let _ = write!(self.out, " .v{n}");
        }
        self.out.push_str(" .");
        self.out.push_str(v.ty.as_str());
        if let Some(p) = &v.ptr {
            self.out.push_str(" .ptr");
            if let Some(s) = p.space {
                let _ = write!(self.out, " .{s}");
            }
            if let Some(a) = p.align {
                let _ = write!(self.out, " .align {a}");
            }
        }
        if let Some(n) = &v.name {
            self.out.push(' ');
            self.out.push_str(n);
        }
        for d in &v.dims {
            match d {
                Some(n) => {
                    let _ = write!(self.out, "[{n}]");
                }
                None => self.out.push_str("[]"),
            }
        }
        if let Some(init) = &v.init {
            self.out.push_str(" = ");
            self.init(init);
        }
    }

    fn init(&mut self, i: &Init) {
        match i {
            Init::Imm(imm) => self.imm(imm),
            Init::Sym {
                name,
                generic,
                offset,
            } => {
                if *generic {
                    let _ = write!(self.out, "generic({name})");
                } else {
                    self.out.push_str(name);
                }
                self.offset(*offset, false);
            }
            Init::List(v) => {
                self.out.push('{');
                for (k, x) in v.iter().enumerate() {
                    if k > 0 {
                        self.out.push_str(", ");
                    }
                    self.init(x);
                }
                self.out.push('}');
            }
        }
    }

    fn offset(&mut self, off: i64, always: bool) {
        if off != 0 || always {
            self.out.push('+');
            push_i64(&mut self.out, off);
        }
    }

    fn imm(&mut self, imm: &Imm) {
        let _ = match imm {
            Imm::Int { value, unsigned } => {
                push_i64(&mut self.out, *value);
                if *unsigned {
                    self.out.push('U');
                }
                Ok(())
            }
            Imm::Hex { value, unsigned } => {
                self.out.push_str("0x");
                push_hex(&mut self.out, *value, 1);
                if *unsigned {
                    self.out.push('U');
                }
                Ok(())
            }
            Imm::F32(b) => {
                self.out.push_str("0f");
                push_hex(&mut self.out, u64::from(*b), 8);
                Ok(())
            }
            Imm::F64(b) => {
                self.out.push_str("0d");
                push_hex(&mut self.out, *b, 16);
                Ok(())
            }
            Imm::FloatDec(s) => write!(self.out, "{s}"),
        };
    }

    fn inst(&mut self, b: &Body, i: &InstData) {
        if let Some(g) = i.guard {
            self.out.push('@');
            if g.negated {
                self.out.push('!');
            }
            self.out.push_str(b.reg_name(g.reg));
            self.out.push(' ');
        }
        self.out.push_str(i.opcode.as_str());
        for m in &i.mods {
            self.out.push('.');
            match m {
                Modifier::Type(t) => self.out.push_str(t.as_str()),
                Modifier::Space(s) => self.out.push_str(s.as_str()),
                Modifier::Vec(n) => {
                    let _ = write!(self.out, "v{n}");
                }
                Modifier::Word(w) => self.out.push_str(w),
            }
        }
        for (k, op) in i.operands.iter().enumerate() {
            self.out.push_str(if k == 0 { " \t" } else { ", " });
            self.operand(b, op);
        }
        self.out.push(';');
    }

    fn operand(&mut self, b: &Body, op: &Operand) {
        match op {
            Operand::Reg(r) => self.out.push_str(b.reg_name(*r)),
            Operand::RegOffset(r, off) => {
                self.out.push_str(b.reg_name(*r));
                self.offset(*off, true);
            }
            Operand::RegComponent(r, c) => {
                self.out.push_str(b.reg_name(*r));
                self.out.push('.');
                self.out.push_str(c.as_str());
            }
            Operand::NotReg(r) => {
                self.out.push('!');
                self.out.push_str(b.reg_name(*r));
            }
            Operand::Special(s) => match s {
                SpecialOperand::Named(r, c) => {
                    self.out.push_str(r.as_str());
                    if let Some(c) = c {
                        self.out.push('.');
                        self.out.push_str(c.as_str());
                    }
                }
                SpecialOperand::EnvReg(i) => {
                    let _ = write!(self.out, "%envreg{i}");
                }
                SpecialOperand::Pm { index, wide } => {
                    let _ = write!(self.out, "%pm{index}{}", if *wide { "_64" } else { "" });
                }
            },
            Operand::Imm(imm) => self.imm(imm),
            Operand::Sym(s) => self.out.push_str(s),
            Operand::SymOffset(s, off) => {
                self.out.push_str(s);
                self.offset(*off, true);
            }
            Operand::Label(l) => self.out.push_str(b.label_name(*l)),
            Operand::Addr(a) => {
                self.out.push('[');
                self.address(b, a);
                self.out.push(']');
            }
            Operand::Bracket(v) => {
                self.out.push('[');
                for (k, o) in v.iter().enumerate() {
                    if k > 0 {
                        self.out.push_str(", ");
                    }
                    match o {
                        Operand::Addr(a) if k == 0 => self.address(b, a),
                        _ => self.operand(b, o),
                    }
                }
                self.out.push(']');
            }
            Operand::Vector(v) => self.list(b, v, '{', '}'),
            Operand::List(v) => self.list(b, v, '(', ')'),
            Operand::Pair(a, c) => {
                self.operand(b, a);
                self.out.push('|');
                self.operand(b, c);
            }
            Operand::Sink => self.out.push('_'),
        }
    }

    fn address(&mut self, b: &Body, a: &Address) {
        match &a.base {
            AddrBase::Reg(r) => {
                self.out.push_str(b.reg_name(*r));
                self.offset(a.offset, false);
            }
            AddrBase::Sym(s) => {
                self.out.push_str(s);
                self.offset(a.offset, false);
            }
            AddrBase::None => {
                push_i64(&mut self.out, a.offset);
            }
        }
    }

    fn list(&mut self, b: &Body, v: &[Operand], open: char, close: char) {
        self.out.push(open);
        for (k, o) in v.iter().enumerate() {
            if k > 0 {
                self.out.push_str(", ");
            }
            self.operand(b, o);
        }
        self.out.push(close);
    }
}

#[cfg(test)]
mod tests {
    use super::super::parse::parse_module;
    use super::*;

    #[test]
    fn hex_formatting() {
        for (v, n) in [
            (0u64, 1),
            (0, 8),
            (0x3F80_0000, 8),
            (0x1F, 1),
            (u64::MAX, 16),
            (5, 16),
        ] {
            let mut s = String::new();
            push_hex(&mut s, v, n);
            assert_eq!(s, format!("{v:0n$X}"));
        }
    }

    #[test]
    fn decimal_formatting() {
        for v in [0, 7, -7, 10, 12345, i64::MIN, i64::MAX] {
            let mut s = String::new();
            push_i64(&mut s, v);
            assert_eq!(s, v.to_string());
        }
    }

    #[test]
    fn round_trip_is_a_fixed_point() {
        let src = r#"
.version 8.7
.target sm_90
.address_size 64
.global .align 4 .b8 table[8] = {1, 2, 3, 4, 5, 6, 7, 8};
.global .u64 ptr = generic(table)+4;
.extern .func (.param .b32 r) ext(.param .b32 a);
.visible .entry k(
    .param .u64 .ptr .global .align 16 k_param_0,
    .param .align 8 .b8 k_param_1[16]
) .maxntid 128, 1, 1 .minnctapersm 2
{
    .reg .pred %p<2>;
    .reg .b32 %r<5>;
    .reg .b64 %rd<3>;
    .shared .align 4 .b8 smem[512];
    ld.param.u64 %rd1, [k_param_0];
    mov.u32 %r1, %tid.x;
    setp.eq.s32 %p1|%p0, %r1, 0;
    mov.f32 %r2, 0f3F800000;
    mov.f64 %rd2, 0d3FF0000000000000;
    mov.u32 %r3, 0xFFU;
    add.s32 %r4, %r1, -1;
    st.shared.u32 [smem+-4], %r1;
    st.shared.v2.u32 [%r1+8], {%r2, %r3};
    shfl.sync.down.b32 %r2|%p1, %r2, 1, 31, -1;
    { .param .b32 a; .param .b32 r;
      st.param.b32 [a], %r1;
      call.uni (r), ext, (a);
      ld.param.b32 %r1, [r];
    }
    @!%p1 bra $L__BB0_2;
    .loc 1 5 3
    .pragma "nounroll";
$L__BB0_2:
    ret;
}
"#;
        let m1 = parse_module(src, "rt.ptx").unwrap();
        let text = print_module(&m1);
        let m2 = parse_module(&text, "printed.ptx").unwrap_or_else(|e| panic!("{e}\n{text}"));
        assert_eq!(m1, m2, "{text}");
        assert_eq!(print_module(&m2), text);
        assert!(text.contains("[smem+-4]"), "{text}");
        assert!(text.contains("%r2|%p1"), "{text}");
    }
}
