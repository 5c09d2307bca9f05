//! Code generation for shuffle synthesis (PTXASW, CC'23, §5.2), with the PTX builder.
//!
//! Per function, once, at entry: `%laneid`, `%tid.x` and `%ntid.x` in registers (the shared lane
//! computation; the paper's `%tid.x % 32` is wrong unless `ntid.x` is a multiple of 32, so the
//! real `%laneid` is used). After each source load: a copy of the loaded component into a fresh
//! register (so later writes to the load's register do not matter). At each replaced load:
//!
//! ```text
//! activemask.b32 %m;  setp.ne.b32 %inc, %m, -1;          // incomplete or divergent warp
//! setp.gt.u32 %o, %lane, 31-N;                            // no source lane in the warp (N > 0)
//! add.u32 %t, %tx, N;  setp.ge.u32 %o2, %t, %ntx;         // the source lane is not (tid.x+N, y, z)
//! or.pred %pred, %inc, %o; or.pred %pred, %pred, %o2;
//! shfl.sync.down.b32 %dst, %copy, N, 31, %m;              // .up with clamp 0 for N < 0
//! @%pred ld.global… %dst, [addr];                         // the original load, corner cases only
//! ```
//!
//! The `tid.x` check (the run-time guard of the "lanes of a warp have consecutive `tid.x`"
//! assumption) is left out when `.reqntid` proves `ntid.x` a multiple of 32. 64-bit components are
//! shuffled as two 32-bit halves; `N = 0` becomes a `mov`. A guarded load (`@%q ld`) shuffles into
//! temporaries and writes its registers only where `%q` holds. Modes `no-load` and `no-corner`
//! (measurement only, not correct) drop the fallback load, and also the checks.

use std::collections::HashMap;

use super::detect::{LoadInfo, Replacement};
use super::symexec::LoopSpan;
use super::Mode;
use crate::ptx::builder::{op, Builder, InsertPoint};
use crate::ptx::ir::{
    Body, Component, FuncDirective, Function, Guard, Imm, Inst, Label, Modifier, Opcode, Operand,
    Reg, SpecialReg, Stmt, Type,
};

/// `shfl.sync.{down|up}.b32` of both halves of a 64-bit register; returns the result register.
fn shfl64(b: &mut Builder, src: Reg, delta: i32, mask: &Operand) -> Reg {
    let (lo, hi, lo2, hi2, out) = (
        b.new_reg(Type::B32),
        b.new_reg(Type::B32),
        b.new_reg(Type::B32),
        b.new_reg(Type::B32),
        b.new_reg(Type::B64),
    );
    b.inst(
        None,
        Opcode::Mov,
        vec![Modifier::Type(Type::B64)],
        vec![
            Operand::Vector(vec![op::reg(lo), op::reg(hi)]),
            op::reg(src),
        ],
    );
    shfl32(b, lo2, lo, delta, mask);
    shfl32(b, hi2, hi, delta, mask);
    b.inst(
        None,
        Opcode::Mov,
        vec![Modifier::Type(Type::B64)],
        vec![
            op::reg(out),
            Operand::Vector(vec![op::reg(lo2), op::reg(hi2)]),
        ],
    );
    out
}

/// `shfl.sync.down.b32 d, a, N, 31, mask` for `N > 0`, `shfl.sync.up.b32 d, a, -N, 0, mask` else.
fn shfl32(b: &mut Builder, d: Reg, a: Reg, delta: i32, mask: &Operand) {
    let (mode_w, amount, clamp) = if delta > 0 {
        ("down", delta, 31)
    } else {
        ("up", -delta, 0)
    };
    b.inst(
        None,
        Opcode::Shfl,
        vec![
            Modifier::Word("sync".into()),
            Modifier::Word(mode_w.into()),
            Modifier::Type(Type::B32),
        ],
        vec![
            op::reg(d),
            op::reg(a),
            op::int(i64::from(amount)),
            op::int(clamp),
            mask.clone(),
        ],
    );
}

fn pred(r: Reg) -> Guard {
    Guard {
        reg: r,
        negated: false,
    }
}

fn hex(v: u64) -> Operand {
    Operand::Imm(Imm::Hex {
        value: v,
        unsigned: false,
    })
}

/// `[guard] add.s64 dst, base, offset;`: the address of one component of a load.
fn component_address(b: &mut Builder, guard: Option<Guard>, dst: Reg, base: Reg, offset: i64) {
    let ops = vec![op::reg(dst), op::reg(base), op::int(offset)];
    b.inst(guard, Opcode::Add, vec![Modifier::Type(Type::S64)], ops);
}

/// The run-time address checks of `r`'s checked components, or-ed into `p`: the source lane's
/// kept address (shuffled with `mask` when the delta is not 0) differs from the destination's.
fn address_checks(
    b: &mut Builder,
    r: &Replacement,
    d: &LoadInfo,
    src_addrs: &HashMap<(Inst, u32, bool), Reg>,
    mask: Option<&Operand>,
    mut p: Option<Reg>,
) -> Option<Reg> {
    // Linear components are checked by the stride vote (`stride_vote`), which needs the source
    // address register; any other checked component compares its address here.
    let by_vote = |c: &&crate::shuffle::detect::CompSource| {
        c.linear_stride.is_some()
            && c.cross.is_none()
            && src_addrs.contains_key(&(c.src, c.src_comp, false))
    };
    for c in r.comps.iter().filter(|c| c.checked && !by_vote(c)) {
        let (Some(sa), Some((dbase, doff))) = (
            src_addrs.get(&(c.src, c.src_comp, c.cross.is_some())),
            d.addr,
        ) else {
            continue;
        };
        let da = b.new_reg(Type::B64);
        component_address(b, None, da, dbase, doff + i64::from(c.comp * d.size));
        let sa2 = match mask {
            Some(m) if c.delta != 0 => shfl64(b, *sa, c.delta, m),
            _ => *sa,
        };
        let bad = b.new_reg(Type::Pred);
        b.setp("ne", Type::B64, bad, op::reg(sa2), op::reg(da));
        p = Some(match p {
            None => bad,
            Some(q) => {
                let p2 = b.new_reg(Type::Pred);
                b.binary(Opcode::Or, &[], Type::Pred, p2, op::reg(q), op::reg(bad));
                p2
            }
        });
    }
    p
}

/// The warp mask and corner predicates computed at one replacement, valid for the next ones
/// while control flows straight on: no label (a join: other paths would arrive without them) and
/// no branch, return, call or barrier in between (the set of converged lanes cannot change).
struct SharedCorner {
    /// The replacement (destination load) they were last used for.
    after: Inst,
    /// `activemask`.
    mask: Reg,
    /// The warp is incomplete or divergent (`mask != -1`).
    incomplete: Reg,
    /// Per delta: the corner-case predicate ([`corner_predicate`]).
    corners: HashMap<i32, Reg>,
    /// Per (source, component, stride): some lane's next lane did not load `σ` bytes further
    /// ([`stride_vote`]).
    strides: HashMap<(Inst, u32, i64), Reg>,
}

impl SharedCorner {
    /// The corner predicate of delta `n`, computed on first use.
    fn corner(&mut self, b: &mut Builder, n: i32, rooms: Rooms) -> Reg {
        if let Some(c) = self.corners.get(&n) {
            return *c;
        }
        let c = corner_predicate(b, n, self.incomplete, rooms);
        self.corners.insert(n, c);
        c
    }
}

/// One vote for the warp: true when some lane whose next lane (`laneid + 1`, same row) exists
/// did not see that lane's source address `src_addr` exactly `stride` bytes above its own. When
/// it is false, every lane `l` with lanes `l..l+N` in its row has `addr(l+N) = addr(l) + N·stride`,
/// which is what a linear checked component needs (instead of shuffling and comparing the
/// address per load).
fn stride_vote(b: &mut Builder, src_addr: Reg, stride: i64, next_corner: Reg, mask: Reg) -> Reg {
    let next = shfl64(b, src_addr, 1, &op::reg(mask));
    let expect = b.new_reg(Type::B64);
    b.inst(
        None,
        Opcode::Add,
        vec![Modifier::Type(Type::S64)],
        vec![op::reg(expect), op::reg(src_addr), op::int(stride)],
    );
    let off = b.new_reg(Type::Pred);
    b.inst(
        None,
        Opcode::Setp,
        vec![
            Modifier::Word("ne".into()),
            Modifier::Word("and".into()),
            Modifier::Type(Type::B64),
        ],
        vec![
            op::reg(off),
            op::reg(next),
            op::reg(expect),
            Operand::NotReg(next_corner),
        ],
    );
    let bad = b.new_reg(Type::Pred);
    b.inst(
        None,
        Opcode::Vote,
        vec![
            Modifier::Word("sync".into()),
            Modifier::Word("any".into()),
            Modifier::Type(Type::Pred),
        ],
        vec![op::reg(bad), op::reg(off), op::reg(mask)],
    );
    bad
}

/// True when control goes from `from` to `to` without passing a label, a branch, a return, a
/// call or a barrier (both in `body`, `from` first).
pub(super) fn straight_line(body: &Body, from: Inst, to: Inst) -> bool {
    let pos = |x: Inst| {
        body.stmts
            .iter()
            .position(|s| matches!(s, Stmt::Inst(i) if *i == x))
    };
    let (Some(a), Some(z)) = (pos(from), pos(to)) else {
        return false;
    };
    if a >= z {
        return false;
    }
    body.stmts[a + 1..z].iter().all(|s| match s {
        Stmt::Label(_) => false,
        Stmt::Inst(i) => {
            let op = &body.inst(*i).opcode;
            !crate::ptx::roles::transfers_control(op)
                && !matches!(op, Opcode::Bar | Opcode::Barrier)
        }
        _ => true,
    })
}

/// How far a lane may shuffle: `up` = the lanes above it in its warp and row
/// (`min(31 − laneid, ntid.x − 1 − tid.x)`), `down` = the lanes below (`min(laneid, tid.x)`).
/// Under `.reqntid` with `ntid.x` a multiple of 32 rows are whole warps: the lane alone decides.
#[derive(Clone, Copy)]
struct Rooms {
    up: Reg,
    down: Reg,
}

fn lane_rooms(b: &mut Builder, static_rows: bool) -> Rooms {
    let lane = b.new_reg(Type::U32);
    b.mov(Type::U32, lane, op::sreg(SpecialReg::Laneid, None));
    let up = b.new_reg(Type::U32);
    b.binary(Opcode::Sub, &[], Type::U32, up, op::int(31), op::reg(lane));
    if static_rows {
        return Rooms { up, down: lane };
    }
    let tx = b.new_reg(Type::U32);
    let ntx = b.new_reg(Type::U32);
    b.mov(Type::U32, tx, op::sreg(SpecialReg::Tid, Some(Component::X)));
    b.mov(
        Type::U32,
        ntx,
        op::sreg(SpecialReg::Ntid, Some(Component::X)),
    );
    let row = b.new_reg(Type::U32);
    b.binary(Opcode::Sub, &[], Type::U32, row, op::reg(ntx), op::reg(tx));
    let row_up = b.new_reg(Type::U32);
    b.binary(
        Opcode::Sub,
        &[],
        Type::U32,
        row_up,
        op::reg(row),
        op::int(1),
    );
    let up2 = b.new_reg(Type::U32);
    b.binary(
        Opcode::Min,
        &[],
        Type::U32,
        up2,
        op::reg(up),
        op::reg(row_up),
    );
    let down = b.new_reg(Type::U32);
    b.binary(
        Opcode::Min,
        &[],
        Type::U32,
        down,
        op::reg(lane),
        op::reg(tx),
    );
    Rooms { up: up2, down }
}

/// The corner-case predicate of delta `n` (one `setp`): the warp is incomplete or divergent
/// (`incomplete`), or lane `laneid + n` is not in this lane's warp and row (`|n|` exceeds the
/// room in that direction: no such lane, or `tid.x + n` outside `[0, ntid.x)`).
fn corner_predicate(b: &mut Builder, n: i32, incomplete: Reg, rooms: Rooms) -> Reg {
    let room = if n > 0 { rooms.up } else { rooms.down };
    let c = b.new_reg(Type::Pred);
    b.inst(
        None,
        Opcode::Setp,
        vec![
            Modifier::Word("lt".into()),
            Modifier::Word("or".into()),
            Modifier::Type(Type::U32),
        ],
        vec![
            op::reg(c),
            op::reg(room),
            op::int(i64::from(n.unsigned_abs())),
            op::reg(incomplete),
        ],
    );
    c
}

/// True when `.reqntid` makes `ntid.x` a multiple of 32 (the warp's lanes then have consecutive
/// `tid.x` and equal `tid.y`, `tid.z`).
pub fn ntid_x_multiple_of_32(f: &Function) -> bool {
    f.directives.iter().any(|d| match d {
        FuncDirective::ReqNtid(v) => v.first().is_some_and(|x| x % 32 == 0),
        _ => false,
    })
}

/// Rewrites `body` for `reps`.
pub fn generate(
    body: &mut Body,
    loads: &[LoadInfo],
    reps: &[Replacement],
    mode: Mode,
    static_rows: bool,
    loops: &HashMap<u32, LoopSpan>,
) {
    if reps.is_empty() {
        return;
    }
    let info: HashMap<Inst, &LoadInfo> = loads.iter().map(|l| (l.inst, l)).collect();
    let entry_labels = cross_loop_labels(body, reps, loops);
    let kept = with_labelled_loops(reps, &entry_labels);
    let reps = &kept[..];
    let first = body.inst_order().next();
    let mut b = Builder::new(body);
    // The shared lane computation: how many lanes above and below this one are in the same warp
    // and row (computed once per kernel, at entry).
    let any_shfl = reps.iter().any(|r| r.comps.iter().any(|c| c.delta != 0));
    let mut rooms: Option<Rooms> = None;
    if any_shfl && mode != Mode::NoCorner {
        if let Some(f) = first {
            b.at(InsertPoint::Before(f));
        }
        rooms = Some(lane_rooms(&mut b, static_rows));
    }
    let copies = source_copies(&mut b, reps, &info);
    let (src_addrs, cross_regs) = if mode != Mode::NoCorner {
        source_addresses(&mut b, reps, &info)
    } else {
        Default::default()
    };
    let mut gen = Replacer {
        info: &info,
        mode,
        rooms,
        copies,
        src_addrs,
        shared: None,
        new_guards: Vec::new(),
        removed: Vec::new(),
    };
    for r in reps {
        gen.replace(&mut b, r);
    }
    drop(b);
    for (i, g) in gen.new_guards {
        body.inst_mut(i).guard = Some(g);
    }
    let removed = gen.removed;
    body.stmts
        .retain(|s| !matches!(s, Stmt::Inst(i) if removed.contains(i)));
    // Loop entries invalidate the addresses kept for reuse across iterations (1 is never the
    // address of an aligned 4- or 8-byte load).
    let mut headers: Vec<(&u32, &Vec<Reg>)> = cross_regs.iter().collect();
    headers.sort_by_key(|(h, _)| **h);
    for (h, regs) in headers {
        if let (Some(span), Some(labels)) = (loops.get(h), entry_labels.get(h)) {
            invalidate_at_entry(body, span, labels, regs);
        }
    }
}

/// The labels of the headers of loops with reuse across iterations, found before any code is
/// inserted in front of a header's first instruction.
fn cross_loop_labels(
    body: &Body,
    reps: &[Replacement],
    loops: &HashMap<u32, LoopSpan>,
) -> HashMap<u32, Vec<Label>> {
    let mut entry_labels: HashMap<u32, Vec<Label>> = HashMap::new();
    for r in reps {
        for c in &r.comps {
            if let Some(span) = c.cross.and_then(|h| loops.get(&h)) {
                entry_labels
                    .entry(span.header)
                    .or_insert_with(|| header_labels(body, span));
            }
        }
    }
    entry_labels
}

/// The replacements whose reuse across iterations can be invalidated at loop entry. A loop whose
/// header has no label cannot get the entry invalidation: no reuse across its iterations then
/// (cannot happen for a loop, whose back edge names the header; kept safe).
fn with_labelled_loops(
    reps: &[Replacement],
    entry_labels: &HashMap<u32, Vec<Label>>,
) -> Vec<Replacement> {
    reps.iter()
        .filter(|r| {
            let ok = r.comps.iter().all(|c| {
                c.cross
                    .is_none_or(|h| entry_labels.get(&h).is_some_and(|l| !l.is_empty()))
            });
            if !ok {
                log::warn!(
                    "shuffle: a loop header without a label: reuse across iterations dropped"
                );
            }
            ok
        })
        .cloned()
        .collect()
}

/// Copies of the sources, unless the source's register has no other definition in the kernel
/// (clang's PTX is mostly single-assignment): then it still holds the source's value at the
/// destination, which the source reaches on every path without executing again.
fn source_copies(
    b: &mut Builder,
    reps: &[Replacement],
    info: &HashMap<Inst, &LoadInfo>,
) -> HashMap<(Inst, u32), Reg> {
    let mut def_count: HashMap<Reg, usize> = HashMap::new();
    for i in b.body().inst_order() {
        for d in crate::ptx::roles::defs(b.body().inst(i)) {
            *def_count.entry(d).or_insert(0) += 1;
        }
    }
    let mut copies: HashMap<(Inst, u32), Reg> = HashMap::new();
    for r in reps {
        for c in &r.comps {
            if copies.contains_key(&(c.src, c.src_comp)) {
                continue;
            }
            let src = info[&c.src];
            let Some(sreg) = src.regs[c.src_comp as usize] else {
                continue;
            };
            if c.cross.is_none() && def_count.get(&sreg) == Some(&1) {
                copies.insert((c.src, c.src_comp), sreg);
                continue;
            }
            let ty = if src.size == 8 { Type::B64 } else { Type::B32 };
            let cp = b.new_reg(ty);
            let guard = b.body().inst(c.src).guard;
            b.at(InsertPoint::After(c.src));
            b.inst(
                guard,
                Opcode::Mov,
                vec![Modifier::Type(ty)],
                vec![op::reg(cp), op::reg(sreg)],
            );
            copies.insert((c.src, c.src_comp), cp);
        }
    }
    copies
}

/// Where each checked source keeps its address: (source, component, across iterations) → the
/// register.
type SourceAddrs = HashMap<(Inst, u32, bool), Reg>;

/// Source addresses for the run-time address check (computed before the source load, whose
/// destination may be its own base register). For reuse across iterations the address goes to
/// a temporary first and into the register other lanes read only after the load, so that a
/// load that is its own source (a sliding window) shuffles the previous iteration's address.
/// Also returns, per loop header, the registers to invalidate at its entry.
fn source_addresses(
    b: &mut Builder,
    reps: &[Replacement],
    info: &HashMap<Inst, &LoadInfo>,
) -> (SourceAddrs, HashMap<u32, Vec<Reg>>) {
    let mut src_addrs: SourceAddrs = HashMap::new();
    let mut cross_regs: HashMap<u32, Vec<Reg>> = HashMap::new();
    for r in reps {
        for c in r.comps.iter().filter(|c| c.checked) {
            let key = (c.src, c.src_comp, c.cross.is_some());
            if src_addrs.contains_key(&key) {
                continue;
            }
            let src = info[&c.src];
            let Some((base, off)) = src.addr else {
                continue;
            };
            let a = b.new_reg(Type::B64);
            let guard = b.body().inst(c.src).guard;
            let at = if c.cross.is_some() {
                b.new_reg(Type::B64)
            } else {
                a
            };
            b.at(InsertPoint::Before(c.src));
            let offset = off + i64::from(c.src_comp * src.size);
            component_address(b, guard, at, base, offset);
            if let Some(h) = c.cross {
                b.at(InsertPoint::After(c.src));
                b.inst(
                    guard,
                    Opcode::Mov,
                    vec![Modifier::Type(Type::B64)],
                    vec![op::reg(a), op::reg(at)],
                );
                cross_regs.entry(h).or_default().push(a);
            }
            src_addrs.insert(key, a);
        }
    }
    (src_addrs, cross_regs)
}

/// Rewrites the replacements one after another, with what they share.
struct Replacer<'a> {
    info: &'a HashMap<Inst, &'a LoadInfo>,
    mode: Mode,
    rooms: Option<Rooms>,
    copies: HashMap<(Inst, u32), Reg>,
    src_addrs: SourceAddrs,
    /// The warp mask, the incomplete-warp predicate and the per-delta corner predicates of the
    /// previous replacement: reused while control flows straight from it to the next one.
    shared: Option<SharedCorner>,
    /// Edits of existing instructions, applied once the builder is done.
    new_guards: Vec<(Inst, Guard)>,
    removed: Vec<Inst>,
}

impl Replacer<'_> {
    /// One replacement: the value moves (delta 0) or the shuffles, under the corner and address
    /// checks, and the original load kept for the lanes where they fail.
    fn replace(&mut self, b: &mut Builder, r: &Replacement) {
        let d = self.info[&r.dst];
        let dguard = b.body().inst(r.dst).guard;
        if self
            .shared
            .as_ref()
            .is_some_and(|sc| !straight_line(b.body(), sc.after, r.dst))
        {
            self.shared = None;
        }
        b.at(InsertPoint::Before(r.dst));
        let ty = if d.size == 8 { Type::B64 } else { Type::B32 };
        let all_zero = r.comps.iter().all(|c| c.delta == 0 && c.cross.is_none());
        if all_zero {
            for c in &r.comps {
                let Some(dst) = d.regs[c.comp as usize] else {
                    continue;
                };
                let ops = vec![op::reg(dst), op::reg(self.copies[&(c.src, c.src_comp)])];
                b.inst(dguard, Opcode::Mov, vec![Modifier::Type(ty)], ops);
            }
            self.removed.push(r.dst);
            return;
        }
        let (mask, corner) = self.mask_and_corner(b, r, d);
        // Shuffles (into temporaries when the load is guarded).
        let mut writes: Vec<(Reg, Reg, Type)> = Vec::new();
        for c in &r.comps {
            let Some(dst) = d.regs[c.comp as usize] else {
                continue;
            };
            let target = if dguard.is_some() { b.new_reg(ty) } else { dst };
            if dguard.is_some() {
                writes.push((dst, target, ty));
            }
            let copy = self.copies[&(c.src, c.src_comp)];
            if c.delta == 0 {
                b.mov(ty, target, op::reg(copy));
                continue;
            }
            if d.size == 8 {
                let v = shfl64(b, copy, c.delta, &mask);
                b.mov(Type::B64, target, op::reg(v));
            } else {
                shfl32(b, target, copy, c.delta, &mask);
            }
        }
        self.keep_load_where(b, r.dst, corner, dguard, &writes);
    }

    /// The warp mask and the corner-case predicate (with the address checks or-ed in) of `r`.
    fn mask_and_corner(
        &mut self,
        b: &mut Builder,
        r: &Replacement,
        d: &LoadInfo,
    ) -> (Operand, Option<Reg>) {
        if self.mode == Mode::NoCorner {
            return (hex(0xffff_ffff), None);
        }
        if !r.comps.iter().any(|c| c.delta != 0) {
            // Reuse of this lane's own previous iteration only: the address check alone.
            let p = address_checks(b, r, d, &self.src_addrs, None, None);
            return (hex(0xffff_ffff), p);
        }
        let mut sc = match self.shared.take() {
            Some(sc) => sc,
            None => {
                let m = b.new_reg(Type::B32);
                b.inst(
                    None,
                    Opcode::Activemask,
                    vec![Modifier::Type(Type::B32)],
                    vec![op::reg(m)],
                );
                let p = b.new_reg(Type::Pred);
                b.setp("ne", Type::B32, p, op::reg(m), op::int(-1));
                SharedCorner {
                    after: r.dst,
                    mask: m,
                    incomplete: p,
                    corners: HashMap::new(),
                    strides: HashMap::new(),
                }
            }
        };
        let m = sc.mask;
        let mut deltas: Vec<i32> = r
            .comps
            .iter()
            .map(|c| c.delta)
            .filter(|n| *n != 0)
            .collect();
        deltas.sort_unstable();
        deltas.dedup();
        // corner(n) = incomplete warp ∨ no lane laneid+n ∨ tid.x+n outside the row; one
        // predicate per delta, or-ed together when the load has several.
        let lanes = self
            .rooms
            .expect("lane rooms are computed when a delta is not 0");
        let mut preds: Vec<Reg> = Vec::new();
        for n in deltas {
            preds.push(sc.corner(b, n, lanes));
        }
        // Linear checked components: one stride vote per source (shared).
        for c in r.comps.iter().filter(|c| c.checked && c.cross.is_none()) {
            let (Some(stride), Some(sa)) = (
                c.linear_stride,
                self.src_addrs.get(&(c.src, c.src_comp, false)),
            ) else {
                continue;
            };
            let key = (c.src, c.src_comp, stride);
            let bad = match sc.strides.get(&key) {
                Some(v) => *v,
                None => {
                    let next = sc.corner(b, 1, lanes);
                    let v = stride_vote(b, *sa, stride, next, m);
                    sc.strides.insert(key, v);
                    v
                }
            };
            if !preds.contains(&bad) {
                preds.push(bad);
            }
        }
        let mut p: Option<Reg> = None;
        for c in preds {
            p = Some(match p {
                None => c,
                Some(q) => {
                    let p2 = b.new_reg(Type::Pred);
                    b.binary(Opcode::Or, &[], Type::Pred, p2, op::reg(q), op::reg(c));
                    p2
                }
            });
        }
        let p = p.unwrap_or(sc.incomplete);
        sc.after = r.dst;
        self.shared = Some(sc);
        // Run-time address comparison (checked deltas).
        let p = address_checks(b, r, d, &self.src_addrs, Some(&op::reg(m)), Some(p));
        (op::reg(m), p)
    }

    /// The original load `dst` runs only where the corner predicate holds (`Full` mode); the
    /// shuffled temporaries of a guarded load move into place where it does not. In the
    /// measurement modes the load is removed.
    fn keep_load_where(
        &mut self,
        b: &mut Builder,
        dst: Inst,
        corner: Option<Reg>,
        dguard: Option<Guard>,
        writes: &[(Reg, Reg, Type)],
    ) {
        let move_all = |b: &mut Builder, g: Option<Guard>| {
            for (dst, tmp, ty) in writes {
                let ops = vec![op::reg(*dst), op::reg(*tmp)];
                b.inst(g, Opcode::Mov, vec![Modifier::Type(*ty)], ops);
            }
        };
        match (self.mode, corner, dguard) {
            (Mode::Full, Some(p), None) => {
                self.new_guards.push((dst, pred(p)));
            }
            (Mode::Full, Some(p), Some(g)) => {
                let not = |b: &mut Builder, x: Reg| {
                    let q = b.new_reg(Type::Pred);
                    let ops = vec![op::reg(q), op::reg(x)];
                    b.inst(None, Opcode::Not, vec![Modifier::Type(Type::Pred)], ops);
                    q
                };
                // q: the load's own condition.
                let q = if g.negated { not(b, g.reg) } else { g.reg };
                let np = not(b, p);
                let take = b.new_reg(Type::Pred);
                b.binary(Opcode::And, &[], Type::Pred, take, op::reg(q), op::reg(np));
                let reload = b.new_reg(Type::Pred);
                b.binary(Opcode::And, &[], Type::Pred, reload, op::reg(q), op::reg(p));
                move_all(b, Some(pred(take)));
                self.new_guards.push((dst, pred(reload)));
            }
            _ => {
                // Measurement modes: the original load is gone.
                move_all(b, dguard);
                self.removed.push(dst);
            }
        }
    }
}

/// The labels just before the loop header's first instruction (with `.pragma` and debug lines
/// among them), in layout order.
fn header_labels(body: &Body, span: &LoopSpan) -> Vec<Label> {
    let Some(mut at) = body
        .stmts
        .iter()
        .position(|s| *s == Stmt::Inst(span.header_inst))
    else {
        return Vec::new();
    };
    let mut labels = Vec::new();
    while at > 0 {
        match &body.stmts[at - 1] {
            Stmt::Label(l) => labels.push(*l),
            Stmt::Pragma(_) | Stmt::Debug { .. } => {}
            _ => break,
        }
        at -= 1;
    }
    labels.reverse();
    labels
}

/// Sets each of `regs` to 1 on every entry into the loop `span` (not on its back edges): a new
/// label with the assignments goes before the header's labels (`header_labels`), where the
/// fall-through entry passes, and branches from outside the loop to the header are redirected
/// to it.
fn invalidate_at_entry(body: &mut Body, span: &LoopSpan, header_labels: &[Label], regs: &[Reg]) {
    let Some(first) = header_labels.first() else {
        return;
    };
    let Some(at) = body.stmts.iter().position(|s| *s == Stmt::Label(*first)) else {
        return;
    };
    let inside: std::collections::HashSet<Inst> = span.insts.iter().copied().collect();
    let mut b = Builder::new(body);
    let entry = b.new_label("$ws_loop_entry");
    b.at(InsertPoint::Stmt(at));
    b.place_label(entry);
    for r in regs {
        b.mov(Type::B64, *r, op::int(1));
    }
    drop(b);
    let outside: Vec<Inst> = body
        .inst_order()
        .filter(|i| !inside.contains(i) && body.inst(*i).opcode == Opcode::Bra)
        .collect();
    for i in outside {
        for o in body.inst_mut(i).operands.iter_mut() {
            if let Operand::Label(l) = o {
                if header_labels.contains(l) {
                    *l = entry;
                }
            }
        }
    }
}
