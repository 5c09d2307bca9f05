//! Reaching definitions, def-use chains, webs, and web splitting: the SSA-renaming utility of the
//! machine level.
//!
//! PTX registers are not SSA values: compilers reuse one virtual register for unrelated values, and
//! a guarded write (`@%p mov %r1, 0`) or an accumulator operand updates a register in place. The
//! spiller and the divergence analysis want one name per value, so this module computes:
//!
//! - **Reaching definitions** ([`ReachingDefs`]): the forward may-dataflow problem over the [`Cfg`]
//!   (Aho, Lam, Sethi, Ullman, *Compilers*, §9.2.4) on dense bit sets. Every register also has an
//!   *entry definition* standing for the value it holds on entry (never written: a live-in, such as
//!   an uninitialised register); it reaches the entry block and blocks without predecessors.
//!   A plain def with no guard kills the other defs of its register; a *partial* def — guarded, or a
//!   [`Role::UseDef`](crate::ptx::roles::Role::UseDef) operand — does not, since the old value may survive it.
//! - **Def-use chains**: for each use, the defs that reach it ([`ReachingDefs::reaching`]), and
//!   for each def the uses it reaches ([`ReachingDefs::uses_of`]).
//! - **Webs** ([`Webs`]): defs connected through shared uses (Muchnick, *Advanced Compiler Design
//!   and Implementation*, §16.3). A partial def joins the web of the defs reaching it, because it
//!   must write the same register to preserve the value it may keep. A web is a live range that
//!   can be given its own register name.
//! - **Splitting** ([`split_webs`]): gives each web of a register beyond the first its own fresh
//!   register, rewriting defs and uses. This is renaming, not full SSA: webs merged at a join point
//!   stay one register, so no φ-copies are ever needed.
//!
//! Operand positions are identified by *slots*: the index of the callback in
//! [`for_each_reg_role`](crate::ptx::roles::for_each_reg_role) order (the guard first, then operands left to right).

use super::bitset::BitSet;
use super::cfg::Cfg;
use super::slots::{for_each_slot_mut, slots};
use crate::ptx::ir::{Body, Inst, Reg, RegDecl, RegDeclItem, RegType, Stmt};

crate::ptx::ir::entity!(
    /// A definition site of a [`ReachingDefs`]; prints as `def3`.
    DefId,
    "def"
);
crate::ptx::ir::entity!(
    /// A use site of a [`ReachingDefs`]; prints as `use3`.
    UseId,
    "use"
);
crate::ptx::ir::entity!(
    /// A web of a [`Webs`]; prints as `web3`.
    Web,
    "web"
);

/// A register write: instruction, slot and register.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct DefSite {
    /// The instruction writing.
    pub inst: Inst,
    /// The operand position, in [`for_each_reg_role`](crate::ptx::roles::for_each_reg_role) order.
    pub slot: u32,
    /// The register written.
    pub reg: Reg,
    /// True when the write may keep the old value (guarded instruction, or [`Role::UseDef`](crate::ptx::roles::Role::UseDef)).
    pub partial: bool,
}

/// A register read: instruction, slot and register.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct UseSite {
    /// The instruction reading.
    pub inst: Inst,
    /// The operand position, in [`for_each_reg_role`](crate::ptx::roles::for_each_reg_role) order.
    pub slot: u32,
    /// The register read.
    pub reg: Reg,
}

/// Union-find over bit indices.
struct UnionFind(Vec<u32>);

impl UnionFind {
    fn new(n: usize) -> UnionFind {
        UnionFind((0..n as u32).collect())
    }
    fn find(&mut self, mut x: usize) -> usize {
        while self.0[x] as usize != x {
            let p = self.0[x] as usize;
            self.0[x] = self.0[p];
            x = p;
        }
        x
    }
    fn union(&mut self, a: usize, b: usize) {
        let (a, b) = (self.find(a), self.find(b));
        // The smaller index becomes the root: entry definitions (indices below the register count)
        // and earlier defs represent their web.
        if a < b {
            self.0[b] = a as u32;
        } else if b < a {
            self.0[a] = b as u32;
        }
    }
}

/// Reaching definitions and def-use chains of a function body.
///
/// Bits `0..num_regs` of the dataflow sets are the entry definitions (bit `r` for register `r`);
/// bit `num_regs + d` is [`DefId`] `d`.
#[derive(Clone, Debug, Default)]
pub struct ReachingDefs {
    num_regs: usize,
    defs: Vec<DefSite>,
    uses: Vec<UseSite>,
    /// Per use: the real defs reaching it.
    reaching: Vec<Vec<DefId>>,
    /// Per use: true when the entry definition reaches it.
    from_entry: Vec<bool>,
    /// Per def: the uses it reaches.
    def_uses: Vec<Vec<UseId>>,
    /// Per partial def: the defs reaching the instruction (before it writes), entry as `None`.
    partial_merges: Vec<(DefId, Vec<Option<DefId>>)>,
}

impl ReachingDefs {
    /// Computes reaching definitions for `body`, whose CFG is `cfg`.
    pub fn compute(body: &Body, cfg: &Cfg) -> ReachingDefs {
        let num_regs = body.regs.len();
        let mut rd = ReachingDefs {
            num_regs,
            ..ReachingDefs::default()
        };

        // Pass 1: number the defs in layout order; per register, its def bits.
        let mut reg_bits: Vec<Vec<u32>> = (0..num_regs).map(|r| vec![r as u32]).collect();
        for b in cfg.blocks() {
            for &i in cfg.insts(b) {
                let data = body.inst(i);
                for (slot, s) in slots(data).slots.iter().enumerate() {
                    if s.writes() && s.reg.index() < num_regs {
                        reg_bits[s.reg.index()].push((num_regs + rd.defs.len()) as u32);
                        rd.defs.push(DefSite {
                            inst: i,
                            slot: slot as u32,
                            reg: s.reg,
                            partial: !s.kills,
                        });
                    }
                }
            }
        }
        let nbits = num_regs + rd.defs.len();

        // Pass 2: gen and kill per block.
        let n = cfg.num_blocks();
        let mut gen = vec![BitSet::new(nbits); n];
        let mut kill = vec![BitSet::new(nbits); n];
        let mut next_def = 0usize;
        let mut per_reg: Vec<Vec<u32>> = vec![Vec::new(); num_regs];
        let mut touched: Vec<usize> = Vec::new();
        for b in cfg.blocks() {
            let mut killed = BitSet::new(num_regs);
            for &i in cfg.insts(b) {
                let first = next_def;
                while next_def < rd.defs.len() && rd.defs[next_def].inst == i {
                    next_def += 1;
                }
                let defs = &rd.defs[first..next_def];
                for d in defs.iter().filter(|d| !d.partial) {
                    killed.insert(d.reg.index());
                    per_reg[d.reg.index()].clear();
                }
                for (k, d) in defs.iter().enumerate() {
                    per_reg[d.reg.index()].push((num_regs + first + k) as u32);
                    touched.push(d.reg.index());
                }
            }
            for r in touched.drain(..) {
                for bit in per_reg[r].drain(..) {
                    gen[b.index()].insert(bit as usize);
                }
            }
            for r in &killed {
                for &bit in &reg_bits[r] {
                    kill[b.index()].insert(bit as usize);
                }
            }
        }

        // Forward worklist in reverse post-order; unreachable blocks after.
        let mut entry_set = BitSet::new(nbits);
        (0..num_regs).for_each(|r| {
            entry_set.insert(r);
        });
        let mut live_in = vec![BitSet::new(nbits); n];
        let mut out = gen;
        // Round-robin passes in reverse post-order (unreachable blocks after), visiting only
        // blocks whose predecessors changed: about loop-connectedness + 2 passes.
        let order: Vec<_> = cfg
            .rpo()
            .iter()
            .copied()
            .chain(cfg.blocks().filter(|&b| !cfg.is_reachable(b)))
            .collect();
        let mut dirty = vec![true; n];
        let mut scratch = BitSet::new(nbits);
        let mut changed = true;
        while changed {
            changed = false;
            for &b in &order {
                if !std::mem::replace(&mut dirty[b.index()], false) {
                    continue;
                }
                let inb = &mut live_in[b.index()];
                if b == cfg.entry() || cfg.preds(b).is_empty() {
                    inb.union_with(&entry_set);
                }
                for &p in cfg.preds(b) {
                    inb.union_with(&out[p.index()]);
                }
                scratch.copy_from(inb);
                scratch.subtract(&kill[b.index()]);
                if out[b.index()].union_with(&scratch) {
                    for &s in cfg.succs(b) {
                        dirty[s.index()] = true;
                        changed = true;
                    }
                }
            }
        }

        // Pass 3: walk each block forward, resolving uses. A register's reaching defs are loaded
        // from the block's in-set when the block first touches it (testing only that register's
        // def bits), then updated by the block's own defs.
        let to_def =
            |bit: u32| (bit as usize >= num_regs).then(|| DefId::new(bit as usize - num_regs));
        rd.def_uses = vec![Vec::new(); rd.defs.len()];
        let mut loaded = vec![false; num_regs];
        let mut next_def = 0usize;
        for b in cfg.blocks() {
            let in_set = &live_in[b.index()];
            let mut load = |r: usize, per_reg: &mut Vec<Vec<u32>>, touched: &mut Vec<usize>| {
                if !std::mem::replace(&mut loaded[r], true) {
                    touched.push(r);
                    let list = &mut per_reg[r];
                    list.clear();
                    list.extend(
                        reg_bits[r]
                            .iter()
                            .copied()
                            .filter(|&bit| in_set.contains(bit as usize)),
                    );
                }
            };
            for &i in cfg.insts(b) {
                let data = body.inst(i);
                for (slot, s) in slots(data).slots.iter().enumerate() {
                    let r = s.reg;
                    if !s.reads() || r.index() >= num_regs {
                        continue;
                    }
                    load(r.index(), &mut per_reg, &mut touched);
                    let u = UseId::new(rd.uses.len());
                    rd.uses.push(UseSite {
                        inst: i,
                        slot: slot as u32,
                        reg: r,
                    });
                    let bits = &per_reg[r.index()];
                    let defs: Vec<DefId> = bits.iter().filter_map(|&bit| to_def(bit)).collect();
                    for d in &defs {
                        rd.def_uses[d.index()].push(u);
                    }
                    rd.from_entry
                        .push(bits.is_empty() || bits.iter().any(|&bit| (bit as usize) < num_regs));
                    rd.reaching.push(defs);
                }
                let first = next_def;
                while next_def < rd.defs.len() && rd.defs[next_def].inst == i {
                    next_def += 1;
                }
                for k in first..next_def {
                    let d = rd.defs[k];
                    load(d.reg.index(), &mut per_reg, &mut touched);
                    if d.partial {
                        let before = per_reg[d.reg.index()]
                            .iter()
                            .map(|&bit| to_def(bit))
                            .collect();
                        rd.partial_merges.push((DefId::new(k), before));
                    }
                }
                for d in rd.defs[first..next_def].iter().filter(|d| !d.partial) {
                    per_reg[d.reg.index()].clear();
                }
                for k in first..next_def {
                    per_reg[rd.defs[k].reg.index()].push((num_regs + k) as u32);
                }
            }
            for r in touched.drain(..) {
                per_reg[r].clear();
                loaded[r] = false;
            }
        }
        rd
    }

    /// All definition sites, in layout order.
    pub fn defs(&self) -> &[DefSite] {
        &self.defs
    }

    /// All use sites, in layout order.
    pub fn uses(&self) -> &[UseSite] {
        &self.uses
    }

    /// The definition `d`.
    pub fn def(&self, d: DefId) -> &DefSite {
        &self.defs[d.index()]
    }

    /// The use `u`.
    pub fn use_site(&self, u: UseId) -> &UseSite {
        &self.uses[u.index()]
    }

    /// The defs in the body that may reach use `u` (the use-def chain).
    pub fn reaching(&self, u: UseId) -> &[DefId] {
        &self.reaching[u.index()]
    }

    /// True when the register's value on entry may reach use `u` (a live-in, or a read of an
    /// uninitialised register on some path).
    pub fn reaches_from_entry(&self, u: UseId) -> bool {
        self.from_entry[u.index()]
    }

    /// The uses that def `d` may reach (the def-use chain).
    pub fn uses_of(&self, d: DefId) -> &[UseId] {
        &self.def_uses[d.index()]
    }
}

#[derive(Clone, Debug)]
struct WebData {
    reg: Reg,
    defs: Vec<DefId>,
    uses: Vec<UseId>,
    from_entry: bool,
}

/// The webs of a function body: maximal sets of defs and uses of one register connected through
/// def-use chains. [`Webs::webs_of`] lists a register's webs in order of first appearance: by
/// the first instruction in layout order that reads or writes them (a web holding the entry value
/// first among webs appearing at the same instruction).
#[derive(Clone, Debug, Default)]
pub struct Webs {
    webs: Vec<WebData>,
    def_web: Vec<Web>,
    use_web: Vec<Web>,
    reg_webs: Vec<Vec<Web>>,
}

impl Webs {
    /// Groups the defs and uses of `rd` into webs.
    pub fn compute(body: &Body, rd: &ReachingDefs) -> Webs {
        let nr = rd.num_regs;
        let mut uf = UnionFind::new(nr + rd.defs.len());
        // The entry definition of a register takes part only if some use or partial def sees it.
        let mut entry_used = vec![false; nr];
        for (u, site) in rd.uses.iter().enumerate() {
            let defs = &rd.reaching[u];
            let anchor = if rd.from_entry[u] {
                entry_used[site.reg.index()] = true;
                site.reg.index()
            } else {
                match defs.first() {
                    Some(d) => nr + d.index(),
                    None => continue,
                }
            };
            for d in defs {
                uf.union(anchor, nr + d.index());
            }
        }
        for (d, before) in &rd.partial_merges {
            let reg = rd.defs[d.index()].reg.index();
            for b in before {
                match b {
                    Some(b) => uf.union(nr + d.index(), nr + b.index()),
                    None => {
                        entry_used[reg] = true;
                        uf.union(nr + d.index(), reg)
                    }
                }
            }
        }
        // Defs of one register in one instruction share a web (they are contiguous in `defs`).
        let mut start = 0;
        while start < rd.defs.len() {
            let inst = rd.defs[start].inst;
            let end = start
                + rd.defs[start..]
                    .iter()
                    .take_while(|d| d.inst == inst)
                    .count();
            for a in start..end {
                for b in a + 1..end {
                    if rd.defs[a].reg == rd.defs[b].reg {
                        uf.union(nr + a, nr + b);
                    }
                }
            }
            start = end;
        }

        let mut webs = Webs {
            reg_webs: vec![Vec::new(); body.regs.len()],
            ..Webs::default()
        };
        let mut root_web: Vec<Option<Web>> = vec![None; nr + rd.defs.len()];
        let mut web_for = |root: usize, reg: Reg, webs: &mut Webs| -> Web {
            *root_web[root].get_or_insert_with(|| {
                let w = Web::new(webs.webs.len());
                webs.webs.push(WebData {
                    reg,
                    defs: Vec::new(),
                    uses: Vec::new(),
                    from_entry: false,
                });
                if let Some(list) = webs.reg_webs.get_mut(reg.index()) {
                    list.push(w);
                }
                w
            })
        };
        for (r, &used) in entry_used.iter().enumerate() {
            if used {
                let w = web_for(uf.find(r), Reg::new(r), &mut webs);
                webs.webs[w.index()].from_entry = true;
            }
        }
        for (d, site) in rd.defs.iter().enumerate() {
            let w = web_for(uf.find(nr + d), site.reg, &mut webs);
            webs.webs[w.index()].defs.push(DefId::new(d));
            webs.def_web.push(w);
        }
        for (u, site) in rd.uses.iter().enumerate() {
            let bit = if rd.from_entry[u] {
                site.reg.index()
            } else {
                nr + rd.reaching[u][0].index()
            };
            let w = web_for(uf.find(bit), site.reg, &mut webs);
            webs.webs[w.index()].uses.push(UseId::new(u));
            webs.use_web.push(w);
        }
        // Order each register's webs by first appearance. Def and use ids follow the layout.
        let mut layout_pos = vec![usize::MAX; body.insts.len()];
        for (k, i) in body.inst_order().enumerate() {
            if let Some(p) = layout_pos.get_mut(i.index()) {
                *p = k;
            }
        }
        let pos = |i: Inst| layout_pos.get(i.index()).copied().unwrap_or(usize::MAX);
        let first: Vec<(usize, bool)> = webs
            .webs
            .iter()
            .map(|w| {
                let d = w
                    .defs
                    .first()
                    .map_or(usize::MAX, |&d| pos(rd.defs[d.index()].inst));
                let u = w
                    .uses
                    .first()
                    .map_or(usize::MAX, |&u| pos(rd.uses[u.index()].inst));
                (d.min(u), !w.from_entry)
            })
            .collect();
        for list in &mut webs.reg_webs {
            list.sort_by_key(|w| first[w.index()]);
        }
        webs
    }

    /// The number of webs.
    pub fn num_webs(&self) -> usize {
        self.webs.len()
    }

    /// The register of web `w`.
    pub fn reg(&self, w: Web) -> Reg {
        self.webs[w.index()].reg
    }

    /// The defs of web `w`, in layout order.
    pub fn defs(&self, w: Web) -> &[DefId] {
        &self.webs[w.index()].defs
    }

    /// The uses of web `w`, in layout order.
    pub fn uses(&self, w: Web) -> &[UseId] {
        &self.webs[w.index()].uses
    }

    /// True when web `w` includes the register's value on entry.
    pub fn from_entry(&self, w: Web) -> bool {
        self.webs[w.index()].from_entry
    }

    /// The webs of register `r`, in order of first appearance.
    pub fn webs_of(&self, r: Reg) -> &[Web] {
        self.reg_webs.get(r.index()).map_or(&[], Vec::as_slice)
    }

    /// The web of def `d`.
    pub fn web_of_def(&self, d: DefId) -> Web {
        self.def_web[d.index()]
    }

    /// The web of use `u`.
    pub fn web_of_use(&self, u: UseId) -> Web {
        self.use_web[u.index()]
    }
}

/// The registers of `body` that renaming must leave alone: those named in positions that
/// [`roles`](crate::ptx::roles) does not report, and all registers of an instruction whose slots cannot be located
/// (see [`super::slots`]).
fn unsplittable(body: &Body) -> Vec<bool> {
    let mut fixed = vec![false; body.regs.len()];
    for data in &body.insts {
        let s = slots(data);
        let all = if s.exact { &[][..] } else { &s.slots[..] };
        for r in s.hidden.iter().copied().chain(all.iter().map(|s| s.reg)) {
            if let Some(x) = fixed.get_mut(r.index()) {
                *x = true;
            }
        }
    }
    fixed
}

/// Splits every register with several webs: each web beyond the first gets a fresh register of the
/// same type, named `<name>_w<k>` (`%r5_w1`), declared by a new `.reg` statement after the last
/// register declaration at the top level of the body; its defs and uses are rewritten. Returns the
/// number of registers added. A register whose only web is its first stays as it is.
pub fn split_webs(body: &mut Body) -> usize {
    let cfg = Cfg::compute(body);
    let rd = ReachingDefs::compute(body, &cfg);
    let webs = Webs::compute(body, &rd);
    let fixed = unsplittable(body);

    let mut names: std::collections::HashSet<Box<str>> = (0..body.regs.len())
        .map(|r| body.reg_name(Reg::new(r)).into())
        .collect();
    let mut web_reg: Vec<Option<Reg>> = vec![None; webs.num_webs()];
    let mut new_regs: Vec<(Reg, Reg)> = Vec::new(); // (new, original)
    for (r, &fixed) in fixed.iter().enumerate() {
        let reg = Reg::new(r);
        if fixed {
            continue;
        }
        for (k, &w) in webs.webs_of(reg).iter().enumerate().skip(1) {
            let base: Box<str> = body.reg_name(reg).into();
            let mut suffix = k;
            let name: Box<str> = loop {
                let candidate: Box<str> = format!("{base}_w{suffix}").into();
                if !names.contains(&candidate) {
                    break candidate;
                }
                suffix += 1;
            };
            names.insert(name.clone());
            let ty = body.regs[r].ty;
            let new = body.add_reg(&name, ty);
            web_reg[w.index()] = Some(new);
            new_regs.push((new, reg));
        }
    }
    if new_regs.is_empty() {
        return 0;
    }

    // Rewrites, per instruction: (slot, new register).
    let mut changes: Vec<(Inst, u32, Reg)> = Vec::new();
    for (d, site) in rd.defs().iter().enumerate() {
        if let Some(new) = web_reg[webs.web_of_def(DefId::new(d)).index()] {
            changes.push((site.inst, site.slot, new));
        }
    }
    for (u, site) in rd.uses().iter().enumerate() {
        if let Some(new) = web_reg[webs.web_of_use(UseId::new(u)).index()] {
            changes.push((site.inst, site.slot, new));
        }
    }
    changes.sort_unstable_by_key(|&(i, slot, _)| (i, slot));
    changes.dedup_by_key(|&mut (i, slot, _)| (i, slot));
    for group in changes.chunk_by(|a, b| a.0 == b.0) {
        let inst = group[0].0;
        let mut next = group.iter().peekable();
        for_each_slot_mut(body.inst_mut(inst), |slot, r| {
            if let Some(&&(_, s, new)) = next.peek() {
                if s as usize == slot {
                    *r = new;
                    next.next();
                }
            }
        });
    }

    // Declarations: grouped by type and alignment, after the last top-level `.reg`.
    let align_of = |r: Reg| {
        body.stmts.iter().find_map(|s| match s {
            Stmt::RegDecl(d)
                if d.items.iter().any(|it| match it {
                    RegDeclItem::Single(x) => *x == r,
                    RegDeclItem::Range { first, count, .. } => {
                        (first.0..first.0.saturating_add(*count)).contains(&r.0)
                    }
                }) =>
            {
                Some(d.align)
            }
            _ => None,
        })
    };
    let mut decls: Vec<RegDecl> = Vec::new();
    for &(new, orig) in &new_regs {
        let ty: RegType = body.regs[new.index()].ty;
        let align = align_of(orig).flatten();
        match decls.iter_mut().find(|d| d.ty == ty && d.align == align) {
            Some(d) => d.items.push(RegDeclItem::Single(new)),
            None => decls.push(RegDecl {
                ty,
                align,
                items: vec![RegDeclItem::Single(new)],
            }),
        }
    }
    let mut depth = 0i32;
    let mut at = 0;
    for (k, s) in body.stmts.iter().enumerate() {
        match s {
            Stmt::ScopeOpen => depth += 1,
            Stmt::ScopeClose => depth -= 1,
            Stmt::RegDecl(_) if depth == 0 => at = k + 1,
            _ => {}
        }
    }
    body.stmts
        .splice(at..at, decls.into_iter().map(Stmt::RegDecl));
    new_regs.len()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::machine::testutil::*;

    /// Splits the webs of `input` and checks the number of new registers and the printed body.
    #[track_caller]
    fn check_split(input: &str, added: usize, expected: &str) {
        let mut body = ptx(input);
        assert_eq!(split_webs(&mut body), added, "{}", print_body(&body));
        assert_eq!(print_body(&body), normalise(expected));
        assert_eq!(split_webs(&mut body), 0, "splitting twice");
    }

    #[test]
    fn chains_in_a_diamond() {
        let body = ptx("
            .reg .b32 %r1;
            .reg .b64 %rd1;
            .reg .pred %p1;
            @%p1 bra ELSE;
            mov.b32 %r1, 1;
            bra JOIN;
        ELSE:
            mov.b32 %r1, 2;
        JOIN:
            st.global.u32 [%rd1], %r1;
            ret;
        ");
        let cfg = Cfg::compute(&body);
        let rd = ReachingDefs::compute(&body, &cfg);
        assert_eq!(rd.defs().len(), 2);
        // Uses: %p1 (guard of bra), %rd1 and %r1 (st).
        assert_eq!(rd.uses().len(), 3);
        assert!(rd.reaches_from_entry(UseId(0)), "%p1 is never written");
        assert!(rd.reaching(UseId(0)).is_empty());
        let st_r1 = UseId(2);
        assert_eq!(rd.use_site(st_r1).reg, reg_named(&body, "%r1"));
        assert_eq!(rd.use_site(st_r1).slot, 1);
        assert_eq!(rd.reaching(st_r1), &[DefId(0), DefId(1)]);
        assert!(!rd.reaches_from_entry(st_r1));
        assert_eq!(rd.uses_of(DefId(0)), &[st_r1]);
        assert!(!rd.def(DefId(0)).partial);
        let webs = Webs::compute(&body, &rd);
        let r1 = reg_named(&body, "%r1");
        assert_eq!(webs.webs_of(r1).len(), 1);
        let w = webs.webs_of(r1)[0];
        assert_eq!(webs.defs(w), &[DefId(0), DefId(1)]);
        assert_eq!(webs.uses(w), &[st_r1]);
        assert_eq!(webs.reg(w), r1);
        assert!(!webs.from_entry(w));
        assert_eq!(webs.web_of_def(DefId(1)), w);
        assert_eq!(webs.web_of_use(st_r1), w);
    }

    #[test]
    fn reused_register_is_split() {
        check_split(
            "
            .reg .b32 %r1;
            .reg .b64 %rd1;
            mov.b32 %r1, 1;
            st.global.u32 [%rd1], %r1;
            mov.b32 %r1, 2;
            add.s32 %r1, %r1, 3;
            st.global.u32 [%rd1+4], %r1;
            ret;
            ",
            2,
            "
            .reg .b32 %r1;
            .reg .b64 %rd1;
            .reg .b32 %r1_w1, %r1_w2;
            mov.b32 %r1, 1;
            st.global.u32 [%rd1], %r1;
            mov.b32 %r1_w1, 2;
            add.s32 %r1_w2, %r1_w1, 3;
            st.global.u32 [%rd1+4], %r1_w2;
            ret;
            ",
        );
    }

    #[test]
    fn diamond_merge_is_not_split() {
        let text = "
            .reg .b32 %r1;
            .reg .b64 %rd1;
            .reg .pred %p1;
            @%p1 bra ELSE;
            mov.b32 %r1, 1;
            bra JOIN;
        ELSE:
            mov.b32 %r1, 2;
        JOIN:
            st.global.u32 [%rd1], %r1;
            ret;
        ";
        let mut body = ptx(text);
        let copy = body.clone();
        assert_eq!(split_webs(&mut body), 0);
        assert_eq!(body, copy);
    }

    #[test]
    fn ranges_and_declarations() {
        // New registers are declared after the last top-level `.reg`, not inside the scope.
        check_split(
            "
            .reg .b32 %r<3>;
            .reg .pred %p<2>;
            mov.b32 %r1, 1;
            setp.eq.s32 %p1, %r1, 0;
            {
                .reg .b32 %t;
                mov.b32 %t, 0;
            }
            selp.b32 %r1, 4, 5, %p1;
            mov.b32 %r2, %r1;
            ret;
            ",
            1,
            "
            .reg .b32 %r<3>;
            .reg .pred %p<2>;
            .reg .b32 %r1_w1;
            mov.b32 %r1, 1;
            setp.eq.s32 %p1, %r1, 0;
            {
            .reg .b32 %t;
            mov.b32 %t, 0;
            }
            selp.b32 %r1_w1, 4, 5, %p1;
            mov.b32 %r2, %r1_w1;
            ret;
            ",
        );
    }

    #[test]
    fn guarded_def_merges_with_reaching_defs() {
        // The guarded write joins the web of the first value; the dead last write is separate.
        check_split(
            "
            .reg .b32 %r1;
            .reg .b64 %rd1;
            .reg .pred %p1;
            mov.b32 %r1, 1;
            @%p1 mov.b32 %r1, 2;
            st.global.u32 [%rd1], %r1;
            mov.b32 %r1, 5;
            ret;
            ",
            1,
            "
            .reg .b32 %r1;
            .reg .b64 %rd1;
            .reg .pred %p1;
            .reg .b32 %r1_w1;
            mov.b32 %r1, 1;
            @%p1 mov.b32 %r1, 2;
            st.global.u32 [%rd1], %r1;
            mov.b32 %r1_w1, 5;
            ret;
            ",
        );
    }

    #[test]
    fn loop_carried_register_is_one_web() {
        check_split(
            "
            .reg .b32 %r1;
            .reg .b64 %rd1;
            .reg .pred %p1;
            mov.b32 %r1, 0;
        HEAD:
            add.s32 %r1, %r1, 1;
            setp.lt.s32 %p1, %r1, 10;
            @%p1 bra HEAD;
            mov.b32 %r1, 7;
            st.global.u32 [%rd1], %r1;
            ret;
            ",
            1,
            "
            .reg .b32 %r1;
            .reg .b64 %rd1;
            .reg .pred %p1;
            .reg .b32 %r1_w1;
            mov.b32 %r1, 0;
            HEAD:
            add.s32 %r1, %r1, 1;
            setp.lt.s32 %p1, %r1, 10;
            @%p1 bra HEAD;
            mov.b32 %r1_w1, 7;
            st.global.u32 [%rd1], %r1_w1;
            ret;
            ",
        );
    }

    #[test]
    fn predicates_and_vectors_are_renamed() {
        check_split(
            "
            .reg .b32 %r<3>;
            .reg .b64 %rd1;
            .reg .pred %p1;
            setp.eq.s32 %p1, %r1, 0;
            @%p1 st.global.u32 [%rd1], %r1;
            ld.global.v2.u32 {%r1, %r2}, [%rd1];
            setp.eq.s32 %p1, %r1, %r2;
            @!%p1 st.global.u32 [%rd1], %r1;
            ret;
            ",
            2,
            "
            .reg .b32 %r<3>;
            .reg .b64 %rd1;
            .reg .pred %p1;
            .reg .b32 %r1_w1;
            .reg .pred %p1_w1;
            setp.eq.s32 %p1, %r1, 0;
            @%p1 st.global.u32 [%rd1], %r1;
            ld.global.v2.u32 {%r1_w1, %r2}, [%rd1];
            setp.eq.s32 %p1_w1, %r1_w1, %r2;
            @!%p1_w1 st.global.u32 [%rd1], %r1_w1;
            ret;
            ",
        );
    }

    #[test]
    fn uninitialised_use_keeps_the_original_name() {
        check_split(
            "
            .reg .b32 %r1;
            .reg .b64 %rd1;
            st.global.u32 [%rd1], %r1;
            mov.b32 %r1, 2;
            st.global.u32 [%rd1], %r1;
            ret;
            ",
            1,
            "
            .reg .b32 %r1;
            .reg .b64 %rd1;
            .reg .b32 %r1_w1;
            st.global.u32 [%rd1], %r1;
            mov.b32 %r1_w1, 2;
            st.global.u32 [%rd1], %r1_w1;
            ret;
            ",
        );
    }

    #[test]
    fn new_names_avoid_collisions() {
        check_split(
            "
            .reg .b32 %r1, %r1_w1;
            mov.b32 %r1, 1;
            mov.b32 %r1_w1, %r1;
            mov.b32 %r1, 2;
            mov.b32 %r1_w1, %r1;
            ret;
            ",
            2,
            "
            .reg .b32 %r1, %r1_w1;
            .reg .b32 %r1_w2, %r1_w1_w1;
            mov.b32 %r1, 1;
            mov.b32 %r1_w1, %r1;
            mov.b32 %r1_w2, 2;
            mov.b32 %r1_w1_w1, %r1_w2;
            ret;
            ",
        );
    }

    #[test]
    fn opaque_instruction_merges_through_its_operands() {
        // An unknown opcode reads and may write every operand: nothing is split across it.
        check_split(
            "
            .reg .b32 %r1;
            mov.b32 %r1, 1;
            frobnicate.b32 %r1;
            mov.b32 %r1, 2;
            frobnicate.b32 %r1;
            ret;
            ",
            1,
            "
            .reg .b32 %r1;
            .reg .b32 %r1_w1;
            mov.b32 %r1, 1;
            frobnicate.b32 %r1;
            mov.b32 %r1_w1, 2;
            frobnicate.b32 %r1_w1;
            ret;
            ",
        );
    }

    #[test]
    fn vector_component_write_is_partial() {
        let body = ptx("
            .reg .v2 .b32 %v;
            .reg .b64 %rd1;
            mov.b32 %v.x, 1;
            mov.b32 %v.y, 2;
            st.global.v2.u32 [%rd1], %v;
            ret;
        ");
        let cfg = Cfg::compute(&body);
        let rd = ReachingDefs::compute(&body, &cfg);
        assert!(rd.defs().iter().all(|d| d.partial));
        let mut split = body.clone();
        assert_eq!(split_webs(&mut split), 0);
    }

    #[test]
    fn random_programs_match_path_search_and_split_safely() {
        let mut rng = Rng::new(5);
        let mut split = 0;
        for _ in 0..300 {
            let (mut body, _) = random_program(&mut rng, true);
            let cfg = Cfg::compute(&body);
            let rd = ReachingDefs::compute(&body, &cfg);
            for (u, site) in rd.uses().iter().enumerate() {
                let u = UseId::new(u);
                for (d, def) in rd.defs().iter().enumerate() {
                    if def.reg != site.reg {
                        continue;
                    }
                    let want = naive::def_reaches(&body, &cfg, def.inst, site.inst, site.reg);
                    let got = rd.reaching(u).contains(&DefId::new(d));
                    assert_eq!(
                        got, want,
                        "def{d} at {} reaching {u} at {}",
                        def.inst, site.inst
                    );
                }
                let want = naive::entry_reaches(&body, &cfg, site.inst, site.reg)
                    || rd.reaching(u).is_empty();
                assert_eq!(rd.reaches_from_entry(u), want, "entry reaching {u}");
            }
            let before = chains(&body);
            split += split_webs(&mut body);
            assert_eq!(chains(&body), before);
            assert_eq!(split_webs(&mut body), 0);
        }
        assert!(split > 50, "the generator exercises splitting ({split})");
    }
}
