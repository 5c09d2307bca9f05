//! The order ptxas's list scheduler is expected to issue each basic block in when registers are
//! plentiful: critical path first. A long-latency instruction (a load from global, local or
//! generic memory, a texture fetch, an instruction ptxas expands into a subroutine) and the
//! arithmetic that feeds it come as early as their dependencies allow, so that several loads are
//! in flight at once — and their results and addresses are live at once, which the PTX order's
//! pressure does not see (issue 12: ptxas's count on small kernels is often twice the PTX
//! pressure; `stencil1d_naive` keeps 7 loads in flight). The register model
//! ([`super::regmodel`]) counts pressure on this order too.
//!
//! Dependencies kept (the PTX semantics, not ptxas's exact rules): registers (read after write,
//! write after read, write after write, through [`slots`]); memory (a load is ordered with stores,
//! atomics and anything else that writes memory or has side effects, unless the two name
//! different state spaces among shared, global and local, which never alias; loads pass loads);
//! the carry flag (its readers and writers keep their order); and fences — control flow, calls,
//! barriers and other block-level synchronisation, asynchronous results, instructions [`roles`]
//! does not understand — which nothing crosses (except that in the pressure-first order
//! register-only arithmetic may sink past a barrier or memory fence: Triton's int8 matmul computes
//! its 32 output pointers before the epilogue's `bar.sync`s and stores through them after; that
//! order's epilogue peak falls from 198 to 138 units; the register-model table does not change,
//! as its main loop's 184 still lets no more warps be resident than the latency-first order's
//! 215). Warp-level instructions (`mma.sync`, `ldmatrix`, `shfl.sync`) are no fence: every lane
//! of a warp meets them in one block's order, and ptxas interleaves a Triton matmul's `ldmatrix`
//! with its `mma`s. The scheduler is a list scheduler with a clock, one instruction a cycle: an
//! instruction is ready once its predecessors have issued and the latency of each whose register it
//! reads has passed (an order edge — anti- and output dependences, memory order — only orders the
//! issue, one cycle: a chain of 64 ordered byte stores no longer holds its values back 4 cycles a
//! store while the arithmetic feeding them runs ahead, as in Triton's fp8 matmul on sm_90a,
//! +11 % → +3 %), and among the ready ones the one with the longest latency path to the block's end
//! goes first (ties in PTX order); when none is ready the clock moves to the first that will be. So
//! loads issue while a chain of dependent arithmetic waits on its latencies, as on the hardware (a
//! scheduler without a clock issued an accumulation chain before the loads that feed its later
//! links; the clock took the register model from 59 to 61 of 144 kernels within ±10 % of ptxas,
//! docs/benchmarks.md).
//!
//! [`pressure_first`] is the other order ptxas's scheduler takes, when registers decide
//! occupancy: among the ready instructions, the one that adds the fewest live register units
//! (units it defines less units whose last reader it is) goes first, so loads sink to their uses
//! and a sum is finished before the next is started (`heavy_fft_radix8`: ptxas uses 40 registers
//! where the latency-first order needs 71 and this order 58). The greedy choice issues an
//! instruction as soon as it costs nothing and may then hold its result far from its use, so a
//! last pass sinks register-only arithmetic to its first dependent wherever that looks free
//! (Triton's 64×64×32 matmul on sm_80: 87 → 82 units; the register model 97 → 99 of 144
//! kernels within ±10 %, docs/benchmarks.md) — and, in a second version of the order, only
//! where the block's peak does not grow; the lower of the two is kept ([`sink_arithmetic`]).
//! One instruction at a time, the greedy cannot see that a load which adds 4 units lets a
//! product free 2 (Triton's layer norm issues both rows of one pointer before either of the
//! other, where ptxas pairs them), so it also weighs each instruction with the few it waits on
//! ([`Greedy`]); the register model takes, of the orders the weighings give, the one that needs
//! the fewest registers (99 → 101 of 144 kernels), and takes it where it lets more warps be
//! resident.

use crate::machine::bitset::BitSet;
use crate::machine::cfg::{Block, Cfg};
use crate::machine::liveness::Liveness;
use crate::machine::pressure::{reg_class, RegClass};
use crate::machine::slots::slots;
use crate::ptx::ir::{Body, Inst, InstData, Opcode, StateSpace, Stmt};
use crate::ptx::roles::{self, Control, Sync};
use std::collections::{HashMap, HashSet};

/// Relative latencies (their ratio is what orders the ready list).
const LATENCY_ALU: u32 = 4;
/// Shared memory.
const LATENCY_SHARED: u32 = 8;
/// Global, local, generic memory, textures, and the expanded subroutines.
const LATENCY_LONG: u32 = 24;

/// How an instruction takes part in the memory and fence order.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Order {
    /// Neither memory nor a fence.
    Free,
    /// Reads memory only: passes other loads.
    Load,
    /// Writes memory or has side effects: ordered with every memory instruction.
    Store,
    /// A barrier or memory fence (`bar.sync`, `membar`): no memory instruction crosses it,
    /// and register-only arithmetic after it stays after it; in the pressure-first order,
    /// arithmetic before it may sink past it.
    Barrier,
    /// Nothing crosses it.
    Fence,
}

/// `body` with the instructions of each reachable block in latency-first order (the statements
/// are permuted within each block; labels, declarations, terminators and instruction ids stay).
/// `long_latency` says which instructions ptxas expands into long sequences. The result is for
/// counting: an instruction may move across the braces of a nested scope (a call's `.param`
/// block), so it is not meant to be printed.
pub fn latency_first(body: &Body, cfg: &Cfg, long_latency: impl Fn(&InstData) -> bool) -> Body {
    reorder_blocks(body, cfg, |_, insts| {
        schedule_block(body, insts, &long_latency)
    })
}

/// `body` with each reachable block's instructions permuted into `order(block, insts)`.
fn reorder_blocks(
    body: &Body,
    cfg: &Cfg,
    mut order: impl FnMut(Block, &[Inst]) -> Vec<Inst>,
) -> Body {
    let mut out = body.clone();
    let position = body.stmt_positions();
    for b in cfg.blocks().filter(|&b| cfg.is_reachable(b)) {
        let insts = cfg.insts(b);
        for (&slot_of, &inst) in insts.iter().zip(&order(b, insts)) {
            if let Some(&k) = position.get(&slot_of) {
                out.stmts[k] = Stmt::Inst(inst);
            }
        }
    }
    out
}

/// `body` with each reachable block in pressure-first order: among the instructions whose
/// dependencies have issued, the one that adds the fewest register units (`weight`, as the
/// pressure counts them: units defined less units whose last reader it is) goes first, ties in
/// PTX order; then register-only arithmetic sinks towards its uses (`sink_arithmetic`).
pub fn pressure_first(
    body: &Body,
    cfg: &Cfg,
    liveness: &Liveness,
    weight: &impl Fn(usize, u32) -> u32,
    greedy: Greedy,
) -> Body {
    reorder_blocks(body, cfg, |b, insts| {
        pressure_block(body, insts, liveness.live_out(b), weight, greedy)
    })
}

/// How the pressure-first greedy weighs its next step.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Greedy {
    /// Each ready instruction alone: the fewest units added.
    Step,
    /// Also each instruction together with the few unissued ones it waits on, by units added
    /// per instruction issued (`pick_sparing`).
    Lookahead,
    /// As `Lookahead`, by units added in all.
    LookaheadTotal,
}

impl Greedy {
    /// Every weighing, the plain step first.
    pub const ALL: [Greedy; 3] = [Greedy::Step, Greedy::Lookahead, Greedy::LookaheadTotal];
}

/// The pressure-first order of one block's instructions (`live_out`: the registers live after
/// the block).
fn pressure_block(
    body: &Body,
    insts: &[Inst],
    live_out: &BitSet,
    weight: &impl Fn(usize, u32) -> u32,
    greedy: Greedy,
) -> Vec<Inst> {
    let (effects, mut preds, mut succs) = dag(body, insts, true);
    hold_defaults_back(body, insts, &mut preds, &mut succs);
    let units = |r: usize| match reg_class(body.regs[r].ty) {
        RegClass::General(u) => weight(r, u),
        _ => 0,
    };
    let (reads, writes) = registers_by_position(body, insts);
    let free: Vec<bool> = effects.iter().map(|e| order_of(e) == Order::Free).collect();
    let graph = BlockGraph {
        preds,
        succs,
        reads,
        writes,
    };
    let Some(mut order) = greedy_sparing(&graph, live_out, &units, greedy) else {
        return insts.to_vec();
    };
    let mut checked = order.clone();
    sink_arithmetic(&mut order, &free, &graph, &units, live_out, false);
    sink_arithmetic(&mut checked, &free, &graph, &units, live_out, true);
    if block_peak(&checked, &graph, &units, live_out) < block_peak(&order, &graph, &units, live_out)
    {
        order = checked;
    }
    order.into_iter().map(|k| insts[k]).collect()
}

/// A block's dependence graph and register operands, by position in the block.
struct BlockGraph {
    /// The earlier positions each must follow.
    preds: Vec<Vec<usize>>,
    /// The later positions that must follow each.
    succs: Vec<Vec<usize>>,
    /// The registers each reads (deduplicated).
    reads: Vec<Vec<usize>>,
    /// The registers each writes.
    writes: Vec<Vec<usize>>,
}

/// Per position of `insts`, the registers its instruction reads (deduplicated) and writes.
fn registers_by_position(body: &Body, insts: &[Inst]) -> (Vec<Vec<usize>>, Vec<Vec<usize>>) {
    let reads = insts
        .iter()
        .map(|&i| {
            let mut v: Vec<usize> = roles::uses(body.inst(i))
                .iter()
                .map(|r| r.index())
                .collect();
            v.sort_unstable();
            v.dedup();
            v
        })
        .collect();
    let writes = insts
        .iter()
        .map(|&i| {
            roles::defs(body.inst(i))
                .iter()
                .map(|r| r.index())
                .collect()
        })
        .collect();
    (reads, writes)
}

/// The pressure-first greedy over one block's graph: each step issues the ready instruction
/// that adds the fewest register units; with a lookahead `greedy`, [`pick_sparing`] also weighs
/// an instruction together with the few unissued ones it waits on. `None` when some instruction
/// never became ready.
fn greedy_sparing(
    graph: &BlockGraph,
    live_out: &BitSet,
    units: &impl Fn(usize) -> u32,
    greedy: Greedy,
) -> Option<Vec<usize>> {
    let BlockGraph {
        preds,
        succs,
        reads,
        writes,
    } = graph;
    let n = preds.len();
    let mut readers_left: HashMap<usize, u32> = HashMap::new();
    for rs in reads {
        for &r in rs {
            *readers_left.entry(r).or_default() += 1;
        }
    }
    let mut live: HashSet<usize> = HashSet::new();
    let mut waiting: Vec<usize> = preds.iter().map(Vec::len).collect();
    let mut ready: Vec<usize> = (0..n).filter(|&i| waiting[i] == 0).collect();
    let mut order = Vec::with_capacity(n);
    let mut issued = vec![false; n];
    while !ready.is_empty() {
        let cost = |seq: &[usize]| {
            sequence_cost(seq, reads, writes, &readers_left, &live, live_out, units)
        };
        let k = pick_sparing(&ready, graph, &issued, greedy, &cost);
        let i = ready.swap_remove(k);
        order.push(i);
        issued[i] = true;
        for &r in &reads[i] {
            if let Some(c) = readers_left.get_mut(&r) {
                *c -= 1;
                if *c == 0 && !live_out.contains(r) {
                    live.remove(&r);
                }
            }
        }
        for &r in &writes[i] {
            live.insert(r);
        }
        for &j in &succs[i] {
            waiting[j] -= 1;
            if waiting[j] == 0 {
                ready.push(j);
            }
        }
    }
    (order.len() == n).then_some(order)
}

/// How many unissued predecessors an instruction may wait on and still be weighed, with them,
/// as one step of the pressure-first greedy ([`pick_sparing`]).
const LOOKAHEAD_PREDS: usize = 6;

/// The position in `ready` the pressure-first greedy issues next. Each ready instruction is
/// weighed alone (units added); with a lookahead weighing ([`Greedy`]), so is each instruction
/// whose unissued ancestors (at most [`LOOKAHEAD_PREDS`]) would be issued just before it, in
/// position order, by the units the whole sequence adds (`cost`), per instruction issued
/// (`Lookahead`) or in all (`LookaheadTotal`). The least wins, ties to the earliest position;
/// a sequence issues its first instruction and is weighed again next step. So the load, and its
/// guarded defaults, that lets a product free one operand from each of two pointers comes before
/// a second load from the first pointer (Triton's layer norm: ptxas pairs the two pointers'
/// loads; its epilogue peak falls from 42 to 32 units).
fn pick_sparing(
    ready: &[usize],
    graph: &BlockGraph,
    issued: &[bool],
    greedy: Greedy,
    cost: &impl Fn(&[usize]) -> i64,
) -> usize {
    // (cost, length, tie, position in `ready`); compared by cost per instruction.
    let mut best: Option<(i64, i64, usize, usize)> = None;
    let mut consider = |c: i64, len: usize, tie: usize, first: usize| {
        let len = if greedy == Greedy::LookaheadTotal {
            1
        } else {
            len as i64
        };
        let better =
            best.is_none_or(|(bc, bl, bt, _)| (c * bl).cmp(&(bc * len)).then(tie.cmp(&bt)).is_lt());
        if better {
            best = Some((c, len, tie, first));
        }
    };
    for (k, &i) in ready.iter().enumerate() {
        consider(cost(&[i]), 1, i, k);
    }
    if greedy == Greedy::Step {
        return best.expect("ready is not empty").3;
    }
    let (preds, succs) = (&graph.preds, &graph.succs);
    let mut seen: HashSet<usize> = HashSet::new();
    let mut frontier: Vec<usize> = ready.to_vec();
    while let Some(i) = frontier.pop() {
        for &j in &succs[i] {
            if !seen.insert(j) {
                continue;
            }
            let Some(mut seq) = unissued_ancestors(j, preds, issued) else {
                continue;
            };
            frontier.push(j);
            seq.sort_unstable();
            // The sequence starts with its earliest ancestor that is ready. Positions need not
            // be a topological order (a guarded load's default waits on its address), so that
            // is not always the earliest one; a set of unissued ancestors always holds one
            // whose own predecessors are all issued.
            let Some((at, k)) = seq
                .iter()
                .enumerate()
                .find_map(|(at, a)| ready.iter().position(|x| x == a).map(|k| (at, k)))
            else {
                continue;
            };
            let first = seq.remove(at);
            seq.insert(0, first);
            seq.push(j);
            consider(cost(&seq), seq.len(), j, k);
        }
    }
    best.expect("ready is not empty").3
}

/// The unissued instructions `j` waits on, directly or through others (positions), when there
/// are at most [`LOOKAHEAD_PREDS`].
fn unissued_ancestors(j: usize, preds: &[Vec<usize>], issued: &[bool]) -> Option<Vec<usize>> {
    let mut found: Vec<usize> = Vec::new();
    let mut stack = vec![j];
    while let Some(x) = stack.pop() {
        for &p in &preds[x] {
            if !issued[p] && !found.contains(&p) {
                if found.len() == LOOKAHEAD_PREDS {
                    return None;
                }
                found.push(p);
                stack.push(p);
            }
        }
    }
    Some(found)
}

/// The register units live after issuing `seq` (positions, in order) less those live before:
/// each instruction adds the units it defines that are not live and frees the units of the
/// sources whose last remaining reader it is.
fn sequence_cost(
    seq: &[usize],
    reads: &[Vec<usize>],
    writes: &[Vec<usize>],
    readers_left: &HashMap<usize, u32>,
    live: &HashSet<usize>,
    live_out: &BitSet,
    units: &impl Fn(usize) -> u32,
) -> i64 {
    // A sequence is a few instructions (at most LOOKAHEAD_PREDS + 1), one at every step of the
    // plain greedy: what the earlier ones read and defined is looked up in them, not collected.
    let mut total = 0i64;
    for (k, &i) in seq.iter().enumerate() {
        let earlier = &seq[..k];
        for &r in &reads[i] {
            let read_before = earlier.iter().filter(|&&e| reads[e].contains(&r)).count() as u32;
            if readers_left[&r] - read_before == 1
                && !live_out.contains(r)
                && !writes[i].contains(&r)
            {
                total -= i64::from(units(r));
            }
        }
        for &r in &writes[i] {
            let defined_before = earlier.iter().any(|&e| writes[e].contains(&r));
            if !live.contains(&r) && !reads[i].contains(&r) && !defined_before {
                total += i64::from(units(r));
            }
        }
    }
    total
}

/// Moves each register-only instruction of `order` (positions into the block), from the last
/// up, down to just before the first instruction that must follow it, where the values it
/// defines (not live out of the block) are at least as many units as the sources it reads last
/// (which then live longer). The greedy order issues an instruction as soon as it costs nothing
/// (an address computed from a pointer it reads last) and holds its result to a use many
/// instructions later; ptxas computes it next to the use.
///
/// A move past other readers of a source makes the moved instruction the source's last reader,
/// and moves add up: unchecked, NVRTC's `heavy_stencil33_dynsmem` (36 shared loads, each read by
/// four accumulators) had one accumulator's whole chain sunk below the others' and all 36 loads
/// live, 75 units where the PTX order needs 46. With `checked`, a move that raises the block's
/// peak is refused; unchecked sinking still finds lower peaks elsewhere, where a chain of moves
/// passes above the peak on the way (Triton's int8 matmul epilogue), so [`pressure_block`]
/// keeps whichever of the two orders peaks lower.
fn sink_arithmetic(
    order: &mut Vec<usize>,
    free: &[bool],
    graph: &BlockGraph,
    units: &impl Fn(usize) -> u32,
    live_out: &BitSet,
    checked: bool,
) {
    let (succs, reads, writes) = (&graph.succs, &graph.reads, &graph.writes);
    let peak = checked.then(|| block_peak(order, graph, units, live_out));
    let mut k = order.len();
    while k > 0 {
        k -= 1;
        let i = order[k];
        if !free[i] {
            continue;
        }
        let Some(first) = succs[i]
            .iter()
            .filter_map(|j| order.iter().position(|x| x == j))
            .min()
        else {
            continue;
        };
        if first <= k + 1 {
            continue;
        }
        let read_later = |r: usize| order[k + 1..].iter().any(|&x| reads[x].contains(&r));
        let shorter: u32 = writes[i]
            .iter()
            .filter(|&&r| !live_out.contains(r) && !reads[i].contains(&r))
            .map(|&r| units(r))
            .sum();
        let longer: u32 = reads[i]
            .iter()
            .filter(|&&r| !writes[i].contains(&r) && !live_out.contains(r) && !read_later(r))
            .map(|&r| units(r))
            .sum();
        if shorter > 0 && shorter >= longer {
            let x = order.remove(k);
            order.insert(first - 1, x);
            // Past another reader of a source, the moved instruction becomes its last reader
            // and the source lives on to it: moves add up, so each is checked against the peak
            // (and undone when it raises it).
            if peak.is_some_and(|p| block_peak(order, graph, units, live_out) > p) {
                order.remove(first - 1);
                order.insert(k, x);
            }
        }
    }
}

/// The most register units live at once over a block issued in `order` (positions), counting
/// the registers the block reads or writes (those only live through it add the same to every
/// point).
fn block_peak(
    order: &[usize],
    graph: &BlockGraph,
    units: &impl Fn(usize) -> u32,
    live_out: &BitSet,
) -> u32 {
    let (reads, writes) = (&graph.reads, &graph.writes);
    let mut live: HashSet<usize> = order
        .iter()
        .flat_map(|&i| reads[i].iter().chain(&writes[i]))
        .copied()
        .filter(|&r| live_out.contains(r))
        .collect();
    let mut now: u32 = live.iter().map(|&r| units(r)).sum();
    let mut peak = now;
    for &i in order.iter().rev() {
        for &r in &writes[i] {
            if live.remove(&r) {
                now -= units(r);
            }
        }
        for &r in &reads[i] {
            if live.insert(r) {
                now += units(r);
            }
        }
        peak = peak.max(now);
    }
    peak
}

/// The latency-first order of one block's instructions.
fn schedule_block(
    body: &Body,
    insts: &[Inst],
    long_latency: &impl Fn(&InstData) -> bool,
) -> Vec<Inst> {
    let n = insts.len();
    let (effects, preds, succs) = dag(body, insts, false);
    let latency: Vec<u32> = insts
        .iter()
        .zip(&effects)
        .map(|(&i, e)| latency_of(body.inst(i), e, long_latency))
        .collect();
    // A successor waits for an instruction's latency only where it reads a register the
    // instruction writes; an order edge (anti- and output dependences, memory order) only
    // orders the issue.
    let (reads, writes) = registers_by_position(body, insts);
    let edge_latency = |i: usize, j: usize| {
        if writes[i].iter().any(|r| reads[j].contains(r)) {
            latency[i]
        } else {
            ORDER_LATENCY
        }
    };
    // The longest latency path from each instruction to the block's end (edges go forward).
    let mut path = vec![0u32; n];
    for i in (0..n).rev() {
        let after = succs[i].iter().map(|&j| edge_latency(i, j) + path[j]).max();
        path[i] = after.unwrap_or(0).max(latency[i]);
    }
    let mut waiting: Vec<usize> = preds.iter().map(Vec::len).collect();
    // Per position: the cycle its operands are ready (the issue cycle of each predecessor plus
    // its latency).
    let mut earliest = vec![0u32; n];
    let mut ready: Vec<usize> = (0..n).filter(|&i| waiting[i] == 0).collect();
    let mut clock = 0u32;
    let mut order = Vec::with_capacity(n);
    while !ready.is_empty() {
        let pick = (0..ready.len())
            .filter(|&k| earliest[ready[k]] <= clock)
            .max_by(|&a, &b| {
                let (a, b) = (ready[a], ready[b]);
                path[a].cmp(&path[b]).then(b.cmp(&a))
            });
        let Some(k) = pick else {
            // Nothing can issue this cycle: wait for the first operand to arrive.
            clock = ready.iter().map(|&i| earliest[i]).min().unwrap_or(clock);
            continue;
        };
        let i = ready.swap_remove(k);
        order.push(insts[i]);
        for &j in &succs[i] {
            earliest[j] = earliest[j].max(clock + edge_latency(i, j));
            waiting[j] -= 1;
            if waiting[j] == 0 {
                ready.push(j);
            }
        }
        clock += 1;
    }
    // Every dependency points backwards, so every instruction is issued; should that ever fail,
    // the PTX order stands.
    if order.len() == n {
        order
    } else {
        insts.to_vec()
    }
}

/// Adds dependences so that the `mov` giving a guarded instruction's destination its default
/// (Triton's `mov.u32 %r18, %r5; @%p1 ld.global.v4.b32 {%r18, …}, [%rd3]`: the value where the
/// guard is false) waits for the guarded instruction's other operands: ptxas emits the pair
/// together, and pressure-first order, which sees the `mov` add a register and the load add
/// none, would otherwise issue every default long before its load.
fn hold_defaults_back(
    body: &Body,
    insts: &[Inst],
    preds: &mut [Vec<usize>],
    succs: &mut [Vec<usize>],
) {
    for (l, &inst) in insts.iter().enumerate() {
        let guarded = body.inst(inst);
        if guarded.guard.is_none() {
            continue;
        }
        let defs = roles::defs(guarded);
        let is_default = |m: usize| {
            let mov = body.inst(insts[m]);
            mov.opcode == Opcode::Mov
                && mov.guard.is_none()
                && roles::defs(mov).iter().all(|d| defs.contains(d))
        };
        let (defaults, others): (Vec<usize>, Vec<usize>) =
            preds[l].iter().copied().partition(|&m| is_default(m));
        for &m in &defaults {
            for &p in &others {
                if !preds[m].contains(&p) {
                    preds[m].push(p);
                    succs[p].push(m);
                }
            }
        }
    }
}

/// The dependence graph of a block's instructions, by position: each one's effects, the
/// earlier positions it must follow ([`dependencies`]) and the later ones that must follow it.
#[allow(clippy::type_complexity)]
fn dag(
    body: &Body,
    insts: &[Inst],
    sink_past_barriers: bool,
) -> (Vec<roles::Effects>, Vec<Vec<usize>>, Vec<Vec<usize>>) {
    let effects: Vec<roles::Effects> = insts
        .iter()
        .map(|&i| roles::effects(body.inst(i)))
        .collect();
    let preds = dependencies(body, insts, &effects, sink_past_barriers);
    let mut succs: Vec<Vec<usize>> = vec![Vec::new(); insts.len()];
    for (j, ps) in preds.iter().enumerate() {
        for &i in ps {
            succs[i].push(j);
        }
    }
    (effects, preds, succs)
}

/// The memory regions [`regions`] tells apart: shared, global, local, and the read-only
/// parameter and constant spaces.
const REGIONS: usize = 4;

/// The regions a memory instruction may touch: its state space's when it names one (shared,
/// global and local memory never alias: a global address cannot reach a block's shared memory),
/// every region when it is generic or unknown. ptxas moves a Triton kernel's `LDG`s past the
/// `STS.U8`s that stage the previous load's bytes.
fn regions(effects: &roles::Effects) -> std::ops::Range<usize> {
    match effects.space {
        Some(StateSpace::Shared | StateSpace::SharedCta | StateSpace::SharedCluster) => 0..1,
        Some(StateSpace::Global) => 1..2,
        Some(StateSpace::Local) => 2..3,
        Some(StateSpace::Const | StateSpace::Param | StateSpace::ParamEntry) => 3..4,
        _ => 0..REGIONS,
    }
}

/// Per instruction of the block (by position), the earlier positions it must follow
/// (`effects`: the instructions' effects, by position). With `sink_past_barriers`, a barrier
/// or memory fence orders memory instructions only, and register-only arithmetic before it may
/// follow it (the pressure-first order); without, nothing crosses it.
fn dependencies(
    body: &Body,
    insts: &[Inst],
    effects: &[roles::Effects],
    sink_past_barriers: bool,
) -> Vec<Vec<usize>> {
    let mut preds: Vec<Vec<usize>> = vec![Vec::new(); insts.len()];
    // Per register: the last writer and the readers since.
    let mut last_def: HashMap<usize, usize> = HashMap::new();
    let mut reads_since: HashMap<usize, Vec<usize>> = HashMap::new();
    let (mut last_fence, mut last_cc) = (None, None);
    // Per memory region: the last store that may touch it, and the loads since.
    let mut last_store: [Option<usize>; REGIONS] = [None; REGIONS];
    let mut loads_since_store: [Vec<usize>; REGIONS] = Default::default();
    // Every instruction since the last full fence, and every memory instruction since the last
    // fence or barrier (a fence or barrier follows them; earlier ones precede them through it).
    let mut since_full: Vec<usize> = Vec::new();
    let mut since_fence: Vec<usize> = Vec::new();
    for (j, (&inst, effects)) in insts.iter().zip(effects).enumerate() {
        let sl = slots(body.inst(inst)).slots;
        let mut deps: Vec<usize> = Vec::new();
        for s in &sl {
            let r = s.reg.index();
            if s.reads() {
                deps.extend(last_def.get(&r));
            }
            if s.writes() {
                deps.extend(last_def.get(&r));
                deps.extend(reads_since.get(&r).into_iter().flatten());
            }
        }
        let order = match order_of(effects) {
            Order::Barrier if !sink_past_barriers => Order::Fence,
            o => o,
        };
        match order {
            Order::Free => deps.extend(last_fence),
            Order::Load => {
                deps.extend(last_fence);
                for r in regions(effects) {
                    deps.extend(last_store[r]);
                }
            }
            Order::Store => {
                deps.extend(last_fence);
                for r in regions(effects) {
                    deps.extend(last_store[r]);
                    deps.extend(loads_since_store[r].iter().copied());
                }
            }
            Order::Barrier => {
                deps.extend(last_fence);
                deps.extend(since_fence.iter().copied());
            }
            Order::Fence => {
                deps.extend(last_fence);
                deps.extend(since_full.iter().copied());
            }
        }
        if effects.reads_cc || effects.writes_cc {
            deps.extend(last_cc);
            last_cc = Some(j);
        }
        deps.sort_unstable();
        deps.dedup();
        preds[j] = deps;
        for s in &sl {
            let r = s.reg.index();
            if s.writes() {
                last_def.insert(r, j);
                reads_since.remove(&r);
            }
        }
        for s in sl.iter().filter(|s| s.reads() && !s.writes()) {
            reads_since.entry(s.reg.index()).or_default().push(j);
        }
        since_full.push(j);
        match order {
            Order::Free => {}
            Order::Load => {
                for r in regions(effects) {
                    loads_since_store[r].push(j);
                }
                since_fence.push(j);
            }
            Order::Store => {
                for r in regions(effects) {
                    last_store[r] = Some(j);
                    loads_since_store[r].clear();
                }
                since_fence.push(j);
            }
            Order::Barrier | Order::Fence => {
                last_fence = Some(j);
                last_store = [None; REGIONS];
                loads_since_store = Default::default();
                since_fence.clear();
                if order == Order::Fence {
                    since_full.clear();
                }
            }
        }
    }
    preds
}

/// How an instruction with effects `e` takes part in the memory and fence order. A warp-level
/// instruction (`mma.sync`, `ldmatrix`, `shfl.sync`) is ordered by its memory effects only: in
/// one block every lane of the warp meets them in the same order, so they need no fence.
fn order_of(e: &roles::Effects) -> Order {
    let fence_sync = !matches!(e.sync, Sync::None | Sync::Warp);
    if e.opaque || e.async_defs || e.control != Control::None {
        Order::Fence
    } else if fence_sync {
        Order::Barrier
    } else if e.mem_write || e.side_effects {
        Order::Store
    } else if e.mem_read {
        Order::Load
    } else {
        Order::Free
    }
}

/// The cycles between an instruction and a successor that only has to issue after it.
const ORDER_LATENCY: u32 = 1;

/// The relative latency of `inst`, whose effects are `e`.
fn latency_of(
    inst: &InstData,
    e: &roles::Effects,
    long_latency: &impl Fn(&InstData) -> bool,
) -> u32 {
    if long_latency(inst) {
        return LATENCY_LONG;
    }
    if !e.mem_read {
        return LATENCY_ALU;
    }
    match e.space {
        Some(StateSpace::Shared) => LATENCY_SHARED,
        Some(StateSpace::Param) | Some(StateSpace::Const) => LATENCY_ALU,
        _ => LATENCY_LONG,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::machine::testutil::ptx;
    use crate::ptx::printer::print_inst;

    /// The instructions of `text`'s body in latency-first order, printed, one per entry.
    fn scheduled(text: &str) -> Vec<String> {
        let body = ptx(text);
        let cfg = Cfg::compute(&body);
        printed(&latency_first(&body, &cfg, |_| false))
    }

    /// The same in pressure-first order, every register counted at its natural units.
    fn sparing(text: &str) -> Vec<String> {
        sparing_with(text, Greedy::Step)
    }

    /// [`sparing`] with the greedy weighing its steps as `greedy` says.
    fn sparing_with(text: &str, greedy: Greedy) -> Vec<String> {
        let body = ptx(text);
        let cfg = Cfg::compute(&body);
        let liveness = Liveness::compute(&body, &cfg);
        printed(&pressure_first(&body, &cfg, &liveness, &|_, u| u, greedy))
    }

    fn printed(out: &Body) -> Vec<String> {
        out.stmts
            .iter()
            .filter_map(|s| match s {
                Stmt::Inst(i) => Some(
                    print_inst(out, *i)
                        .split_whitespace()
                        .collect::<Vec<_>>()
                        .join(" "),
                ),
                _ => None,
            })
            .collect()
    }

    fn position(order: &[String], prefix: &str) -> usize {
        order
            .iter()
            .position(|s| s.starts_with(prefix))
            .unwrap_or_else(|| panic!("no `{prefix}` in {order:?}"))
    }

    #[test]
    fn independent_loads_and_their_addresses_come_first() {
        let order = scheduled(
            "
            .reg .b64 %rd<6>;
            .reg .f32 %f<8>;
            mov.b64 %rd1, 0;
            ld.global.f32 %f1, [%rd1];
            mul.f32 %f2, %f1, 0f3F800000;
            add.s64 %rd2, %rd1, 64;
            ld.global.f32 %f3, [%rd2];
            mul.f32 %f4, %f3, 0f3F800000;
            add.f32 %f5, %f2, %f4;
            st.global.f32 [%rd1], %f5;
            add.s64 %rd3, %rd1, 128;
            ld.global.f32 %f6, [%rd3];
            st.global.f32 [%rd3], %f6;
            ret;
        ",
        );
        // The second load and its address come before the first multiplication: both loads
        // are in flight together.
        assert!(position(&order, "add.s64 %rd2") < position(&order, "mul.f32 %f2"));
        assert!(position(&order, "ld.global.f32 %f3") < position(&order, "mul.f32 %f2"));
        // The third load may not pass the store (memory order).
        let store = position(&order, "st.global.f32 [%rd1]");
        assert!(position(&order, "ld.global.f32 %f6") > store);
        assert_eq!(order.last().map(String::as_str), Some("ret;"));
    }

    /// A load ordered after a store only by memory order issues the cycle after it: the store's
    /// latency delays only the readers of a register it writes (it writes none), so the
    /// arithmetic that is ready meanwhile does not go first.
    #[test]
    fn an_order_edge_carries_no_latency() {
        let order = scheduled(
            "
            .reg .b64 %rd<2>;
            .reg .f32 %f<10>;
            mov.b64 %rd1, 0;
            mov.f32 %f1, 0f3F800000;
            st.global.f32 [%rd1], %f1;
            ld.global.f32 %f2, [%rd1+4];
            add.f32 %f3, %f1, %f1;
            add.f32 %f4, %f1, %f1;
            add.f32 %f5, %f1, %f1;
            add.f32 %f6, %f2, %f3;
            add.f32 %f7, %f6, %f4;
            add.f32 %f8, %f7, %f5;
            st.global.f32 [%rd1+8], %f8;
            ret;
        ",
        );
        let store = position(&order, "st.global.f32 [%rd1],");
        assert_eq!(
            position(&order, "ld.global.f32 %f2"),
            store + 1,
            "{order:?}"
        );
    }

    /// An address computed early and read by the last instruction moves down to it; one that
    /// is the last reader of a wider value stays where it is.
    #[test]
    fn arithmetic_sinks_to_its_first_use_when_no_point_grows() {
        // 0: r10 (2 units) from r1, which 2 reads again; 1, 2: other work; 3 reads r10.
        let units = |r: usize| if r >= 10 { 2 } else { 1 };
        let graph = |reads: Vec<Vec<usize>>, writes: Vec<Vec<usize>>| BlockGraph {
            preds: vec![vec![], vec![], vec![], vec![0]],
            succs: vec![vec![3], vec![], vec![], vec![]],
            reads,
            writes,
        };
        let free = vec![true; 4];
        let mut order = vec![0, 1, 2, 3];
        let none = BitSet::new(16);
        let g = graph(
            vec![vec![1], vec![2], vec![1], vec![10]],
            vec![vec![10], vec![3], vec![4], vec![]],
        );
        sink_arithmetic(&mut order, &free, &g, &units, &none, false);
        assert_eq!(order, vec![1, 2, 0, 3]);
        // 0 now reads r11 (2 units) last and defines r5 (1 unit): sinking would hold r11 longer.
        let g = graph(
            vec![vec![11], vec![2], vec![1], vec![5]],
            vec![vec![5], vec![3], vec![4], vec![]],
        );
        let mut order = vec![0, 1, 2, 3];
        sink_arithmetic(&mut order, &free, &g, &units, &none, false);
        assert_eq!(order, vec![0, 1, 2, 3]);
    }

    /// Moved past the other readers of both its sources, an instruction becomes their last
    /// reader and holds them both: unchecked, the sink raises the block's peak from 3 to 4
    /// units; checked, it is refused.
    #[test]
    fn a_checked_sink_never_raises_the_peak() {
        // 0 reads r1, r2 and defines r5 for 3; 1 and 2 read r1 and r2 again.
        let units = |_: usize| 1;
        let g = BlockGraph {
            preds: vec![vec![], vec![], vec![], vec![0, 1, 2]],
            succs: vec![vec![3], vec![3], vec![3], vec![]],
            reads: vec![vec![1, 2], vec![1], vec![2], vec![5, 6, 7]],
            writes: vec![vec![5], vec![6], vec![7], vec![]],
        };
        // 1 and 2 stay where they are (loads, say).
        let free = vec![true, false, false, true];
        let none = BitSet::new(16);
        let mut unchecked = vec![0, 1, 2, 3];
        sink_arithmetic(&mut unchecked, &free, &g, &units, &none, false);
        assert_eq!(unchecked, vec![1, 2, 0, 3]);
        assert_eq!(block_peak(&unchecked, &g, &units, &none), 4);
        let mut checked = vec![0, 1, 2, 3];
        sink_arithmetic(&mut checked, &free, &g, &units, &none, true);
        assert_eq!(checked, vec![0, 1, 2, 3]);
        assert_eq!(block_peak(&checked, &g, &units, &none), 3);
    }

    /// Four loads summed, written loads first: pressure-first order sinks each load to its
    /// addition (two values live instead of five), keeping the memory order.
    #[test]
    fn pressure_first_sinks_loads_to_their_uses() {
        let text = "
            .reg .b64 %rd<2>;
            .reg .f32 %f<9>;
            mov.b64 %rd1, 0;
            ld.global.f32 %f1, [%rd1];
            ld.global.f32 %f2, [%rd1+4];
            ld.global.f32 %f3, [%rd1+8];
            ld.global.f32 %f4, [%rd1+12];
            add.f32 %f5, %f1, %f2;
            add.f32 %f6, %f5, %f3;
            add.f32 %f7, %f6, %f4;
            st.global.f32 [%rd1], %f7;
            ld.global.f32 %f8, [%rd1+16];
            st.global.f32 [%rd1+4], %f8;
            ret;
        ";
        let order = sparing(text);
        assert!(position(&order, "add.f32 %f6") < position(&order, "ld.global.f32 %f4"));
        assert!(position(&order, "ld.global.f32 %f3") > position(&order, "add.f32 %f5"));
        let store = position(&order, "st.global.f32 [%rd1],");
        assert!(position(&order, "ld.global.f32 %f8") > store);
        assert_eq!(order.last().map(String::as_str), Some("ret;"));
        // The latency-first order issues all four loads first.
        let latency = scheduled(text);
        assert!(position(&latency, "ld.global.f32 %f4") < position(&latency, "add.f32 %f5"));
    }

    #[test]
    fn lookahead_pairs_the_loads_that_one_product_frees() {
        // Two rows of x, then two of w; each product reads one of each. One step at a time,
        // every load adds 4 units and the PTX order breaks the tie: both x rows load first.
        // Weighed with what it waits on, the first product (w0's load, then the multiply:
        // 4 + 1 - 2 units over 2 instructions) beats x1's load (4 over 1).
        let text = "
            .reg .f32 %f<40>;
            .reg .b64 %rd<4>;
            ld.param.u64 %rd1, [p0];
            ld.param.u64 %rd2, [p1];
            ld.global.v4.f32 {%f1, %f2, %f3, %f4}, [%rd1];
            ld.global.v4.f32 {%f5, %f6, %f7, %f8}, [%rd1+16];
            ld.global.v4.f32 {%f9, %f10, %f11, %f12}, [%rd2];
            ld.global.v4.f32 {%f13, %f14, %f15, %f16}, [%rd2+16];
            mul.f32 %f20, %f1, %f9;
            fma.rn.f32 %f21, %f2, %f10, %f20;
            fma.rn.f32 %f22, %f3, %f11, %f21;
            fma.rn.f32 %f23, %f4, %f12, %f22;
            fma.rn.f32 %f24, %f5, %f13, %f23;
            fma.rn.f32 %f25, %f6, %f14, %f24;
            fma.rn.f32 %f26, %f7, %f15, %f25;
            fma.rn.f32 %f27, %f8, %f16, %f26;
            st.global.f32 [%rd1], %f27;
            ret;
        ";
        let x1 = "ld.global.v4.f32 {%f5";
        let w0 = "ld.global.v4.f32 {%f9";
        let step = sparing_with(text, Greedy::Step);
        assert!(position(&step, x1) < position(&step, w0), "{step:#?}");
        for greedy in [Greedy::Lookahead, Greedy::LookaheadTotal] {
            let order = sparing_with(text, greedy);
            assert!(
                position(&order, w0) < position(&order, x1),
                "{greedy:?}: {order:#?}"
            );
            assert!(
                position(&order, "mul.f32 %f20") < position(&order, x1),
                "{order:#?}"
            );
        }
    }

    /// A kernel whose lanes other than 0 take guarded loads (`%p1`) from `%rd0`: the
    /// declarations and the guard, then `rest`.
    fn guarded_loads(rest: &str) -> String {
        format!(
            ".reg .pred %p1;\n.reg .b32 %r<12>;\n.reg .b64 %rd<4>;\nmov.b64 %rd0, 0;\n\
             mov.u32 %r10, %tid.x;\nsetp.ne.u32 %p1, %r10, 0;\n{rest}"
        )
    }

    /// Triton's guarded loads with defaults: each `mov` default waits for its load's address,
    /// so pressure-first order does not issue the second load's defaults before the first
    /// load's sum.
    #[test]
    fn a_guarded_loads_default_waits_for_its_address() {
        let order = sparing(&guarded_loads(
            "
            mov.u32 %r1, 0;
            mov.u32 %r2, 0;
            mov.u32 %r3, 0;
            mov.u32 %r4, 0;
            @%p1 ld.global.v2.b32 {%r1, %r2}, [%rd0];
            add.f32 %r5, %r1, %r2;
            add.s64 %rd2, %rd0, 128;
            @%p1 ld.global.v2.b32 {%r3, %r4}, [%rd2];
            add.f32 %r6, %r3, %r4;
            add.f32 %r7, %r5, %r6;
            st.global.f32 [%rd0], %r7;
            ret;
        ",
        ));
        assert!(position(&order, "mov.u32 %r3") > position(&order, "add.s64 %rd2"));
        assert!(position(&order, "mov.u32 %r3") > position(&order, "add.f32 %r5"));
        assert!(position(&order, "mov.u32 %r1") < position(&order, "@%p1 ld.global.v2.b32 {%r1"));
    }

    /// A guarded load's defaults come before its address in PTX order, and wait for it
    /// (`hold_defaults_back`), so positions are not a topological order: once the guard is
    /// issued, the load's earliest unissued ancestor (a default) is not ready while its address
    /// is. The lookahead weighings start the sequence at the address (they used to panic).
    #[test]
    fn lookahead_starts_at_a_ready_ancestor_when_a_default_precedes_its_address() {
        let text = guarded_loads(
            "
            mov.u32 %r3, 0;
            mov.u32 %r4, 0;
            add.s64 %rd2, %rd0, 128;
            @%p1 ld.global.v2.b32 {%r3, %r4}, [%rd2];
            add.f32 %r6, %r3, %r4;
            st.global.f32 [%rd0], %r6;
            ret;
        ",
        );
        for greedy in Greedy::ALL {
            let order = sparing_with(&text, greedy);
            assert_eq!(order.len(), 10, "{greedy:?}: every instruction issued");
            let address = position(&order, "add.s64 %rd2");
            assert!(position(&order, "mov.u32 %r3") > address, "{greedy:?}");
            assert!(position(&order, "@%p1 ld.global") > position(&order, "mov.u32 %r4"));
        }
    }

    /// Eight loads feeding one accumulation chain, each link after its load in PTX order: with
    /// a clock, every load issues while the first link waits for its operand, so all eight are
    /// in flight before the chain starts (without one, the chain's long path put its first links
    /// before the last loads).
    #[test]
    fn loads_issue_while_a_dependent_chain_waits() {
        let mut text = String::from(".reg .b64 %rd<2>;\n.reg .f32 %f<20>;\nmov.b64 %rd1, 0;\n");
        for j in 0..8 {
            text.push_str(&format!(
                "ld.global.f32 %f{}, [%rd1+{}];\nfma.rn.f32 %f1, %f1, %f{}, %f1;\n",
                10 + j,
                4 * j,
                10 + j
            ));
        }
        text.push_str("st.global.f32 [%rd1], %f1;\nret;");
        let order = scheduled(&text);
        let first_link = position(&order, "fma.rn.f32");
        for j in 0..8 {
            let load = position(&order, &format!("ld.global.f32 %f{}", 10 + j));
            assert!(load < first_link, "{order:#?}");
        }
    }

    #[test]
    fn loads_pass_loads_but_not_stores_or_barriers() {
        let order = scheduled(
            "
            .reg .b64 %rd<4>;
            .reg .f32 %f<8>;
            mov.b64 %rd1, 0;
            ld.global.f32 %f1, [%rd1];
            mul.f32 %f2, %f1, %f1;
            mul.f32 %f3, %f2, %f2;
            ld.global.f32 %f4, [%rd1+4];
            mul.f32 %f5, %f4, %f3;
            bar.sync 0;
            ld.global.f32 %f6, [%rd1+8];
            add.f32 %f7, %f6, %f5;
            st.global.f32 [%rd1], %f7;
            ret;
        ",
        );
        // The second load goes up to the first: both are in flight before the multiplications.
        assert!(position(&order, "ld.global.f32 %f4") < position(&order, "mul.f32 %f2"));
        // Nothing crosses the barrier.
        let bar = position(&order, "bar.sync");
        assert!(position(&order, "mul.f32 %f5") < bar);
        assert!(position(&order, "ld.global.f32 %f6") > bar);
    }

    /// A global load passes a shared store (the two spaces never alias), but not a global or
    /// a generic one.
    #[test]
    fn loads_pass_stores_to_other_spaces_only() {
        let order = scheduled(
            "
            .reg .b32 %r<4>;
            .reg .b64 %rd<4>;
            .reg .f32 %f<8>;
            mov.b64 %rd1, 0;
            mov.b32 %r1, 0;
            ld.global.f32 %f1, [%rd1];
            mul.f32 %f2, %f1, %f1;
            st.shared.f32 [%r1], %f2;
            ld.global.f32 %f3, [%rd1+4];
            st.global.f32 [%rd1+8], %f3;
            ld.global.f32 %f4, [%rd1+12];
            st.f32 [%rd1+16], %f4;
            ld.shared.f32 %f5, [%r1+4];
            st.global.f32 [%rd1+20], %f5;
            ret;
        ",
        );
        // Up past the shared store, to the first load.
        assert!(position(&order, "ld.global.f32 %f3") < position(&order, "st.shared.f32"));
        // Not past the global store, nor a shared load past the generic store.
        assert!(position(&order, "ld.global.f32 %f4") > position(&order, "st.global.f32 [%rd1+8]"));
        assert!(position(&order, "ld.shared.f32 %f5") > position(&order, "st.f32"));
    }

    #[test]
    fn register_dependencies_are_kept() {
        let order = scheduled(
            "
            .reg .b32 %r<6>;
            .reg .b64 %rd<3>;
            mov.b32 %r1, 1;
            add.s32 %r2, %r1, 1;
            mov.b32 %r1, 7;
            mul.wide.s32 %rd1, %r1, 4;
            ld.global.b32 %r3, [%rd1];
            add.s32 %r4, %r3, %r2;
            st.global.b32 [%rd1], %r4;
            ret;
        ",
        );
        // The load's address chain goes first, but the redefinition of %r1 waits for the read
        // of its first value (write after read), and that read for the first definition.
        let (def1, read1, def2) = (
            position(&order, "mov.b32 %r1, 1"),
            position(&order, "add.s32 %r2"),
            position(&order, "mov.b32 %r1, 7"),
        );
        assert!(def1 < read1 && read1 < def2);
        assert!(def2 < position(&order, "mul.wide.s32"));
        assert!(position(&order, "ld.global.b32") < position(&order, "add.s32 %r4"));
    }
}
