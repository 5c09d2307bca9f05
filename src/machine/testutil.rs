//! Test helper: builds a [`Body`] from a tiny line-oriented notation, so that analysis tests do not
//! depend on the PTX parser.
//!
//! One statement per line: `NAME:` defines a label; `TBL: .branchtargets A B` a `brx.idx` table;
//! anything else is an instruction `[@p|@!p] opcode operand…` with operands separated by spaces.
//! An operand starting with an upper-case letter is a label, a number is an immediate, anything else
//! a register whose type follows its name: `p…` predicate, `rq…` `.b128`, `rd…` `.b64`, `rh…`
//! `.b16`, others `.b32`. All registers are declared in one `.reg` statement per register at the top.

use crate::ptx::ir::*;

fn reg(body: &mut Body, name: &str) -> Reg {
    if let Some(r) = body.reg_by_name(name) {
        return r;
    }
    let ty = if name.starts_with('p') {
        Type::Pred
    } else if name.starts_with("rq") {
        Type::B128
    } else if name.starts_with("rd") {
        Type::B64
    } else if name.starts_with("rh") {
        Type::B16
    } else {
        Type::B32
    };
    body.add_reg(name, RegType::scalar(ty))
}

fn label(body: &mut Body, name: &str) -> Label {
    if let Some(i) = body.labels.iter().position(|l| &**l == name) {
        return Label::new(i);
    }
    body.labels.push(name.into());
    Label::new(body.labels.len() - 1)
}

/// Builds a body from the notation described in the module doc.
pub fn build(text: &str) -> Body {
    let mut body = Body::default();
    let mut stmts = Vec::new();
    for line in text.lines().map(str::trim).filter(|l| !l.is_empty()) {
        let words: Vec<&str> = line.split_whitespace().collect();
        if let Some(name) = words[0].strip_suffix(':') {
            let l = label(&mut body, name);
            if words.get(1) == Some(&".branchtargets") {
                let targets = words[2..].iter().map(|t| label(&mut body, t)).collect();
                stmts.push(Stmt::BranchTargets { label: l, targets });
            } else {
                stmts.push(Stmt::Label(l));
            }
            continue;
        }
        let (guard, rest) = match words[0].strip_prefix('@') {
            Some(g) => {
                let (negated, name) = match g.strip_prefix('!') {
                    Some(n) => (true, n),
                    None => (false, g),
                };
                (
                    Some(Guard {
                        reg: reg(&mut body, name),
                        negated,
                    }),
                    &words[1..],
                )
            }
            None => (None, &words[..]),
        };
        let operands = rest[1..]
            .iter()
            .map(|w| {
                if w.starts_with(|c: char| c.is_ascii_uppercase()) {
                    Operand::Label(label(&mut body, w))
                } else if let Ok(v) = w.parse::<i64>() {
                    Operand::Imm(Imm::Int {
                        value: v,
                        unsigned: false,
                    })
                } else {
                    Operand::Reg(reg(&mut body, w))
                }
            })
            .collect();
        body.insts.push(InstData {
            guard,
            opcode: Opcode::from_name(rest[0]),
            mods: Default::default(),
            operands,
            loc: Loc::default(),
        });
        stmts.push(Stmt::Inst(Inst::new(body.insts.len() - 1)));
    }
    let decls = body.regs.iter().enumerate().map(|(i, r)| {
        Stmt::RegDecl(RegDecl {
            ty: r.ty,
            align: None,
            items: vec![RegDeclItem::Single(Reg::new(i))],
        })
    });
    body.stmts = decls.chain(stmts).collect();
    body
}

/// A tiny deterministic PRNG (xorshift64*), so the property tests need no dependency.
pub struct Rng(u64);
impl Rng {
    pub fn new(seed: u64) -> Rng {
        Rng(seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1)
    }
    pub fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }
    pub fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }
}

/// A random CFG of `n` blocks written in the test notation: block `k` is `Bk:` followed by
/// `ret` (no successors), `bra` (one) or `brx` through a table (several).
pub fn random_body(rng: &mut Rng) -> (Body, Vec<Vec<usize>>) {
    random_program(rng, false)
}

/// Like [`random_body`], with up to four random instructions at the start of each block when
/// `code` is true: writes and reads of `r1`…`r3` and `p1`, `p2`, some of them guarded.
pub fn random_program(rng: &mut Rng, code: bool) -> (Body, Vec<Vec<usize>>) {
    let n = 1 + rng.below(10) as usize;
    let mut succs = vec![Vec::new(); n];
    let mut text = String::new();
    for (k, s) in succs.iter_mut().enumerate() {
        let m = match rng.below(8) {
            0 => 0,
            1..=4 => 1,
            _ => 2 + rng.below(2) as usize,
        };
        for _ in 0..m {
            let t = rng.below(n as u64) as usize;
            if !s.contains(&t) {
                s.push(t);
            }
        }
        text += &format!("B{k}:\n");
        for _ in 0..if code { rng.below(5) } else { 0 } {
            let r = |rng: &mut Rng| format!("r{}", 1 + rng.below(3));
            let p = |rng: &mut Rng| format!("p{}", 1 + rng.below(2));
            let line = match rng.below(6) {
                0 => format!("mov {} 1", r(rng)),
                1 => format!("add {} {} {}", r(rng), r(rng), r(rng)),
                2 => format!("@{} mov {} {}", p(rng), r(rng), r(rng)),
                3 => format!("st {}", r(rng)),
                4 => format!("setp {} {} {}", p(rng), r(rng), r(rng)),
                _ => format!("@!{} add {} {} 1", p(rng), r(rng), r(rng)),
            };
            text += &line;
            text.push('\n');
        }
        match s.len() {
            0 => text += "ret\n",
            1 => text += &format!("bra B{}\n", s[0]),
            _ => {
                let list: Vec<String> = s.iter().map(|t| format!("B{t}")).collect();
                text += &format!("T{k}: .branchtargets {}\nbrx r1 T{k}\n", list.join(" "));
            }
        }
    }
    (build(&text), succs)
}

/// Parses `body` as the body of a kernel `k` (the text between the braces) and returns it.
/// Panics (a test failure) on a parse error.
pub fn ptx(body: &str) -> Body {
    let text = format!(
        ".version 8.0\n.target sm_90\n.address_size 64\n.visible .entry k()\n{{\n{body}\n}}\n"
    );
    match crate::ptx::parse_module(&text, "test.ptx") {
        Ok(m) => m
            .functions()
            .find_map(|f| f.body.clone())
            .unwrap_or_default(),
        Err(e) => panic!("{e}\n{text}"),
    }
}

/// The register named `name` (a test failure when there is none).
pub fn reg_named(body: &Body, name: &str) -> Reg {
    body.reg_by_name(name)
        .unwrap_or_else(|| panic!("no register {name}"))
}

/// Normalises PTX text for comparison: one statement per line, whitespace runs collapsed, blank
/// lines dropped.
pub fn normalise(text: &str) -> String {
    text.lines()
        .map(|l| l.split_whitespace().collect::<Vec<_>>().join(" "))
        .filter(|l| !l.is_empty())
        .collect::<Vec<_>>()
        .join("\n")
}

/// Prints `body` (as the body of kernel `k`, see [`ptx`]) and returns the normalised text between
/// the braces.
pub fn print_body(body: &Body) -> String {
    let text = ".version 8.0\n.target sm_90\n.address_size 64\n.visible .entry k()\n{\n}\n";
    let mut m = crate::ptx::parse_module(text, "test.ptx").unwrap_or_default();
    if let Some(f) = m.functions_mut().next() {
        f.body = Some(body.clone());
    }
    let printed = crate::ptx::print_module(&m);
    let inner = printed.split_once('{').map_or("", |(_, rest)| rest);
    let inner = inner.rsplit_once('}').map_or("", |(body, _)| body);
    normalise(inner)
}

/// Reference answers by path search over instructions, for the property tests.
pub mod naive {
    use crate::machine::cfg::{Block, Cfg};
    use crate::machine::slots::slots;
    use crate::ptx::ir::{Body, Inst, Reg};

    /// The first instructions reached on entering `b` (looking through empty blocks).
    pub fn entry_insts(cfg: &Cfg, b: Block) -> Vec<Inst> {
        let (mut out, mut seen, mut stack) = (Vec::new(), vec![false; cfg.num_blocks()], vec![b]);
        while let Some(x) = stack.pop() {
            if std::mem::replace(&mut seen[x.index()], true) {
                continue;
            }
            match cfg.insts(x).first() {
                Some(&i) => out.push(i),
                None => stack.extend_from_slice(cfg.succs(x)),
            }
        }
        out
    }

    /// The instructions that may execute right after `i`.
    pub fn next(cfg: &Cfg, i: Inst) -> Vec<Inst> {
        let Some(b) = cfg.block_of(i) else {
            return vec![];
        };
        let insts = cfg.insts(b);
        let k = insts.iter().position(|&x| x == i).unwrap_or(0);
        match insts.get(k + 1) {
            Some(&n) => vec![n],
            None => cfg
                .succs(b)
                .iter()
                .flat_map(|&s| entry_insts(cfg, s))
                .collect(),
        }
    }

    fn reads(body: &Body, i: Inst, r: Reg) -> bool {
        slots(body.inst(i))
            .slots
            .iter()
            .any(|s| s.reg == r && s.reads())
    }

    fn kills(body: &Body, i: Inst, r: Reg) -> bool {
        slots(body.inst(i))
            .slots
            .iter()
            .any(|s| s.reg == r && s.kills)
    }

    /// Searches forward from `start` (each visited instruction checked by `hit` first, then
    /// stopped at a kill of `r`).
    fn search(
        body: &Body,
        cfg: &Cfg,
        start: Vec<Inst>,
        r: Reg,
        hit: impl Fn(Inst) -> bool,
    ) -> bool {
        let mut seen = vec![false; body.insts.len()];
        let mut stack = start;
        while let Some(x) = stack.pop() {
            if std::mem::replace(&mut seen[x.index()], true) {
                continue;
            }
            if hit(x) {
                return true;
            }
            if !kills(body, x, r) {
                stack.extend(next(cfg, x));
            }
        }
        false
    }

    /// True when `r` is live just before `q`: some path from `q` reads it before a kill.
    pub fn live_before(body: &Body, cfg: &Cfg, q: Inst, r: Reg) -> bool {
        search(body, cfg, vec![q], r, |x| reads(body, x, r))
    }

    /// True when the write of `r` at `d` reaches instruction `q`.
    pub fn def_reaches(body: &Body, cfg: &Cfg, d: Inst, q: Inst, r: Reg) -> bool {
        search(body, cfg, next(cfg, d), r, |x| x == q)
    }

    /// True when the entry value of `r` reaches `q` (from the entry block, or from a block without
    /// predecessors).
    pub fn entry_reaches(body: &Body, cfg: &Cfg, q: Inst, r: Reg) -> bool {
        let starts = cfg
            .blocks()
            .filter(|&b| b == cfg.entry() || cfg.preds(b).is_empty())
            .flat_map(|b| entry_insts(cfg, b))
            .collect();
        search(body, cfg, starts, r, |x| x == q)
    }
}

/// A use site `(inst, slot)`, the def sites `(inst, slot)` reaching it, and whether the entry value
/// reaches it.
pub type Chain = ((Inst, u32), Vec<(Inst, u32)>, bool);

/// The use-def chains of `body` by position, so that they can be compared across renaming.
pub fn chains(body: &Body) -> Vec<Chain> {
    use crate::machine::{Cfg, ReachingDefs, UseId};
    let cfg = Cfg::compute(body);
    let rd = ReachingDefs::compute(body, &cfg);
    (0..rd.uses().len())
        .map(|u| {
            let u = UseId::new(u);
            let s = rd.use_site(u);
            let defs = rd
                .reaching(u)
                .iter()
                .map(|&d| (rd.def(d).inst, rd.def(d).slot))
                .collect();
            ((s.inst, s.slot), defs, rd.reaches_from_entry(u))
        })
        .collect()
}
