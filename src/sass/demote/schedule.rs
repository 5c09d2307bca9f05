//! Scheduling the register demoter's inserted code (issue 16; RegDem §3.3): each `LDS` of a slot
//! is hoisted away from the instruction that reads it, each `STS` sunk away from the instruction
//! whose result it stores, inside the basic block, by the scheduler of [`crate::sched`] with its
//! register, memory and control rules plus [`ScoreboardRule`], the demoter's scoreboard protocol.
//! Then the control bits the moves touched are repaired ([`repair_controls`]): a scoreboard's
//! setter issues [`SB_SETTLE`] cycles before its first waiter, and an instruction whose successor
//! changed loses its operand-reuse flags.
//!
//! Why it pays: an `LDS` right before its reader exposes the whole shared-memory latency
//! (about 30 cycles); an `STS` right after a global load waits for that load at once instead of
//! at its first use. Moved across independent instructions, both latencies overlap work.

use std::collections::BTreeSet;

use super::regrewrite::SB_SETTLE;
use super::timing::{ALU_LATENCY, NO_SB};
use crate::sass::isa::{Instruction, RegFile, RegSet};
use crate::sched::{self, Access, DepRule, Item, Origin, Space};

/// The demoter's scoreboard protocol as a dependency rule (`regrewrite`'s module comment):
/// - an instruction waiting on a scoreboard another sets keeps its order with it (either way:
///   the waiter would miss the operation, or wait for one it does not need);
/// - a register writer keeps its order with a wait on a scoreboard of late scratch readers
///   (`pending`): that wait is what makes overwriting a scratch register safe;
/// - a reader of a scratch register stays after any wait it followed (the wait may be the one
///   that made its value ready: the first `STS` of a group waits for the whole group).
pub struct ScoreboardRule {
    /// Scoreboards of instructions that read scratch registers late.
    pub pending: u8,
    /// The scratch registers.
    pub scratch: RegSet,
}

impl DepRule for ScoreboardRule {
    fn name(&self) -> &'static str {
        "scoreboards"
    }

    fn depends(&self, earlier: &Item, later: &Item) -> bool {
        let (e, l) = (&earlier.inst.control, &later.inst.control);
        if l.wait & e.sets() != 0 || e.wait & l.sets() != 0 {
            return true;
        }
        let writes = |i: &Item| {
            let w = i.registers().1;
            !w.is_empty()
        };
        if (e.wait & self.pending != 0 && writes(later))
            || (l.wait & self.pending != 0 && writes(earlier))
        {
            return true;
        }
        e.wait != 0 && later.registers().0.intersects(&self.scratch)
    }
}

/// The rule for a kernel's plan: its scratch registers and the scoreboards their late readers
/// use (`pending`, as `regrewrite` computed it).
pub fn rule(scratch: std::ops::Range<u32>, pending: u8) -> ScoreboardRule {
    let mut set = RegSet::default();
    for r in scratch {
        set.insert(RegFile::Gpr, r);
    }
    ScoreboardRule {
        pending,
        scratch: set,
    }
}

/// The access of an inserted slot load or store at `offset` bytes from the base register `base`.
pub fn slot_access(base: u32, offset: i32, writes: bool) -> Access {
    Access {
        space: Space::Slots,
        reads: !writes,
        writes,
        place: Some(sched::deps::Place {
            base: (RegFile::Gpr, base),
            offset: offset as i64,
            bytes: 4,
        }),
    }
}

/// The rewritten kernel, placed for the editor: per original instruction, what goes before and
/// after it, and the instruction itself (control bits repaired).
pub struct Placed {
    /// Inserted before each original instruction.
    pub before: Vec<Vec<Instruction>>,
    /// Inserted after each original instruction.
    pub after: Vec<Vec<Instruction>>,
    /// Each original instruction.
    pub code: Vec<Instruction>,
    /// Inserted instructions that moved.
    pub moved: usize,
}

/// Schedules the inserted code of each basic block and places it for the editor. `code` is the
/// rewritten original instructions, `before`/`after` the inserted ones around each; `skip`
/// (instructions another rewrite owns) are fences and are not changed.
pub fn place(
    mut code: Vec<Instruction>,
    mut before: Vec<Vec<Item>>,
    mut after: Vec<Vec<Item>>,
    leaders: &BTreeSet<usize>,
    skip: &BTreeSet<usize>,
    scoreboards: &ScoreboardRule,
) -> Result<Placed, String> {
    let n = code.len();
    let rules: [&dyn DepRule; 4] = [
        &sched::Registers,
        &sched::Memory,
        &sched::Control,
        scoreboards,
    ];
    let mut blocks = Vec::new();
    let mut moved = 0;
    let mut start = 0;
    while start < n {
        let end = (start + 1..n).find(|k| leaders.contains(k)).unwrap_or(n);
        let mut items = Vec::new();
        for k in start..end {
            items.append(&mut before[k]);
            let inst = code[k].clone();
            items.push(if skip.contains(&k) {
                Item::fence(inst).at(k)
            } else {
                Item::original(inst).at(k)
            });
            items.append(&mut after[k]);
        }
        moved += schedule_block(&mut items, &rules);
        blocks.push(items);
        start = end;
    }
    repair_controls(&mut blocks);
    let mut placed = Placed {
        before: vec![Vec::new(); n],
        after: vec![Vec::new(); n],
        code: Vec::new(),
        moved,
    };
    for items in blocks {
        distribute(items, skip, &mut placed, &mut code)?;
    }
    placed.code = code;
    Ok(placed)
}

/// Hoists every slot load (top-down), then sinks every slot store (bottom-up); returns how many
/// moved.
fn schedule_block(items: &mut [Item], rules: &[&dyn DepRule]) -> usize {
    let is_slot = |i: &Item, writes: bool| {
        i.origin == Origin::Inserted
            && i.access
                .is_some_and(|a| a.space == Space::Slots && a.writes == writes)
    };
    let mut moved = 0;
    for i in 0..items.len() {
        if is_slot(&items[i], false) {
            let at = sched::hoist(items, i, rules);
            moved += usize::from(at != i);
            log_stop(items, at.checked_sub(1), at, rules, "LDS up");
        }
    }
    for i in (0..items.len()).rev() {
        if is_slot(&items[i], true) {
            let at = sched::sink(items, i, rules);
            moved += usize::from(at != i);
            log_stop(items, Some(at), at + 1, rules, "STS down");
        }
    }
    moved
}

/// Says (at `trace` level) what stopped a move: the rule relating `items[a]` and `items[b]`.
fn log_stop(items: &[Item], a: Option<usize>, b: usize, rules: &[&dyn DepRule], what: &str) {
    if !log::log_enabled!(log::Level::Trace) {
        return;
    }
    let (Some(a), true) = (a, b < items.len()) else {
        log::trace!("{what}: stopped at the block boundary");
        return;
    };
    let why = match items[a].origin == Origin::Fence || items[b].origin == Origin::Fence {
        true => Some("fence"),
        false => sched::depends(rules, &items[a], &items[b]),
    };
    log::trace!(
        "{what}: stopped by {} between {} and {}",
        why.unwrap_or("?"),
        items[a].inst.mnemonic(),
        items[b].inst.mnemonic()
    );
}

/// Control bits after the moves: every scoreboard setter issues at least [`SB_SETTLE`] cycles
/// before the first instruction of its block that waits on it (an inserted one also before the
/// block ends: the next block may wait on it); an original instruction followed by anything but
/// its original successor loses its reuse flags.
fn repair_controls(blocks: &mut [Vec<Item>]) {
    for items in blocks.iter_mut() {
        sources_ready(items);
        for p in 0..items.len() {
            let mask = items[p].inst.control.sets();
            if mask == 0 {
                continue;
            }
            let mut cycles = items[p].inst.control.stall as u32;
            let mut waited = false;
            for q in &items[p + 1..] {
                if q.inst.control.wait & mask != 0 {
                    waited = true;
                    break;
                }
                if q.inst.control.sets() & mask == mask {
                    cycles = u32::MAX;
                    break;
                }
                cycles += q.inst.control.stall as u32;
                if cycles >= SB_SETTLE as u32 {
                    break;
                }
            }
            let at_end = !waited && cycles < SB_SETTLE as u32;
            if (waited || (at_end && items[p].origin == Origin::Inserted))
                && cycles < SB_SETTLE as u32
            {
                let c = &mut items[p].inst.control;
                c.stall += (SB_SETTLE as u32 - cycles) as u8;
            }
        }
    }
    let flat: Vec<(usize, usize)> = blocks
        .iter()
        .enumerate()
        .flat_map(|(b, items)| (0..items.len()).map(move |i| (b, i)))
        .collect();
    for w in flat.windows(2) {
        let (a, b) = (w[0], w[1]);
        let next = blocks[b.0][b.1].index;
        let item = &mut blocks[a.0][a.1];
        if item.origin == Origin::Original && next != item.index.map(|k| k + 1) {
            item.inst.control.reuse = 0;
        }
    }
}

/// Defence in depth for the moved items' sources: the rules keep an inserted instruction after
/// the writer of every register it reads, but a hoist can leave it right after that writer. A
/// fixed-latency writer then gets the instruction before the reader stalled until
/// [`ALU_LATENCY`] cycles have passed; a variable-latency writer whose scoreboard is not waited
/// on in between makes the reader wait on it. Fences are not counted as writers: the demoter's
/// are frame accesses (which write kept registers, never R1 or a scratch register) and ptxas's
/// `LDC R1` that the prologue replaces (removed from the output). (The moved loads read only R1,
/// which only the prologue writes, outside the scheduled code: this finds nothing there today.)
fn sources_ready(items: &mut [Item]) {
    for p in 0..items.len() {
        if items[p].origin != Origin::Inserted {
            continue;
        }
        let reads = items[p].registers().0;
        let writes = |w: usize| {
            items[w].origin != Origin::Fence && items[w].registers().1.intersects(&reads)
        };
        let Some(w) = (0..p).rev().find(|&w| writes(w)) else {
            continue;
        };
        let sb = items[w].inst.control.write_sb;
        if sb == NO_SB {
            let cycles: u32 = items[w..p]
                .iter()
                .map(|i| i.inst.control.stall as u32)
                .sum();
            let missing = (ALU_LATENCY as u32).saturating_sub(cycles);
            if missing > 0 {
                log::debug!(
                    "{} reads a register {} wrote {cycles} cycles before: stalled {missing} more",
                    items[p].inst.mnemonic(),
                    items[w].inst.mnemonic()
                );
                let c = &mut items[p - 1].inst.control;
                c.stall = (c.stall as u32 + missing).min(15) as u8;
            }
        } else if !items[w + 1..=p]
            .iter()
            .any(|i| i.inst.control.wait & (1 << sb) != 0)
        {
            log::debug!(
                "{} reads a register {} writes under SB{sb}: made to wait on it",
                items[p].inst.mnemonic(),
                items[w].inst.mnemonic()
            );
            items[p].inst.control.wait |= 1 << sb;
        }
    }
}

/// Puts a scheduled block back as groups around its original instructions: inserted
/// instructions between originals `a` and `b` go before `b` (after `a` at the block's end, or
/// where `b` belongs to another rewrite).
fn distribute(
    items: Vec<Item>,
    skip: &BTreeSet<usize>,
    placed: &mut Placed,
    code: &mut [Instruction],
) -> Result<(), String> {
    let mut pending: Vec<Instruction> = Vec::new();
    let mut last: Option<usize> = None;
    for item in items {
        match item.index {
            None => pending.push(item.inst),
            Some(k) => {
                if !pending.is_empty() {
                    if !skip.contains(&k) {
                        placed.before[k] = std::mem::take(&mut pending);
                    } else {
                        attach_after(last, skip, &mut pending, placed)?;
                    }
                }
                if !skip.contains(&k) {
                    code[k] = item.inst;
                }
                last = Some(k);
            }
        }
    }
    if !pending.is_empty() {
        attach_after(last, skip, &mut pending, placed)?;
    }
    Ok(())
}

fn attach_after(
    last: Option<usize>,
    skip: &BTreeSet<usize>,
    pending: &mut Vec<Instruction>,
    placed: &mut Placed,
) -> Result<(), String> {
    match last {
        Some(a) if !skip.contains(&a) => {
            placed.after[a] = std::mem::take(pending);
            Ok(())
        }
        _ => Err("inserted code between two instructions another rewrite owns".into()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sass::isa::encode::{self, Width, RZ};
    use crate::sass::isa::{Arch, Control as Bits, Pred};

    const A: Arch = Arch::Sm80;
    const LOAD: u8 = 4;
    const STORE: u8 = 5;

    fn add(d: u32, a: u32, b: u32, c: Bits) -> Instruction {
        encode::iadd3(A, d, a, b, RZ as u32, c).unwrap()
    }

    fn lds(d: u32, off: i32, wait: u8) -> Item {
        let c = Bits {
            stall: 1,
            write_sb: LOAD,
            wait,
            ..Bits::NONE
        };
        Item::inserted(
            encode::lds(A, d, 1, off, Width::B32, c, Pred::PT).unwrap(),
            Some(slot_access(1, off, false)),
        )
    }

    fn sts(off: i32, s: u32, wait: u8) -> Item {
        let c = Bits {
            stall: 2,
            read_sb: STORE,
            wait,
            ..Bits::NONE
        };
        Item::inserted(
            encode::sts(A, 1, off, s, Width::B32, c, Pred::PT).unwrap(),
            Some(slot_access(1, off, true)),
        )
    }

    fn one(c: Bits) -> Bits {
        Bits { stall: 1, ..c }
    }

    /// R10 is the scratch register: [R4=..][R6=..][LDS R10][R7 = R10 + R2][STS R10 (after R8=)].
    #[test]
    fn loads_rise_to_the_block_start_and_stores_sink_to_the_next_waiter() {
        let code = vec![
            add(4, 2, 3, one(Bits::NONE)),
            add(6, 2, 3, one(Bits::NONE)),
            add(
                7,
                10,
                2,
                Bits {
                    wait: 1 << LOAD,
                    ..one(Bits::NONE)
                },
            ),
            add(
                10,
                2,
                3,
                Bits {
                    stall: 6,
                    ..Bits::NONE
                },
            ),
            add(8, 4, 6, one(Bits::NONE)),
            add(
                9,
                8,
                8,
                Bits {
                    wait: 1 << STORE,
                    ..one(Bits::NONE)
                },
            ),
        ];
        let n = code.len();
        let mut before = vec![Vec::new(); n];
        let mut after = vec![Vec::new(); n];
        before[2].push(lds(10, 0, 0));
        after[3].push(sts(4, 10, 0));
        let rule = rule(10..11, 1 << STORE);
        let p = place(
            code,
            before,
            after,
            &BTreeSet::new(),
            &BTreeSet::new(),
            &rule,
        )
        .unwrap();
        assert_eq!(p.moved, 2);
        assert_eq!(p.before[0].len(), 1, "the load rises to the block start");
        // The store sinks past R8 = .., stopping at the instruction that waits on its scoreboard.
        assert_eq!(p.before[5].len(), 1);
        assert!(p.after[3].is_empty());
    }

    /// Bits waiting on scoreboard `sb`, stall 1.
    fn waits(sb: u8) -> Bits {
        Bits {
            wait: 1 << sb,
            ..one(Bits::NONE)
        }
    }

    /// Places `code` with one slot load into R10 before instruction `at` (R10 the scratch).
    fn with_load(code: Vec<Instruction>, at: usize, leaders: &[usize], skip: &[usize]) -> Placed {
        let n = code.len();
        let mut before = vec![Vec::new(); n];
        before[at].push(lds(10, 0, 0));
        let leaders: BTreeSet<usize> = leaders.iter().copied().collect();
        let skip: BTreeSet<usize> = skip.iter().copied().collect();
        let rule = rule(10..11, 1 << STORE);
        place(code, before, vec![Vec::new(); n], &leaders, &skip, &rule).unwrap()
    }

    #[test]
    fn a_load_stays_below_a_wait_for_late_scratch_readers_and_its_own_scoreboard() {
        let first = add(4, 2, 3, waits(STORE));
        let reader = add(7, 10, 2, waits(LOAD));
        // Instruction 1 waits on the load scoreboard: the load may not rise above it.
        let code = vec![first.clone(), add(5, 2, 3, waits(LOAD)), reader.clone()];
        let p = with_load(code, 2, &[], &[]);
        assert_eq!(p.moved, 0);
        assert_eq!(p.before[2].len(), 1);
        // Without that wait, the wait on the store scoreboard (late scratch readers) stops it.
        let code = vec![first, add(5, 2, 3, one(Bits::NONE)), reader];
        let p = with_load(code, 2, &[], &[]);
        assert_eq!(
            p.before[1].len(),
            1,
            "rises above instruction 1, not above 0"
        );
    }

    #[test]
    fn blocks_and_fences_bound_every_move_and_settle_is_repaired() {
        let code = vec![
            add(4, 2, 3, one(Bits::NONE)),
            add(6, 2, 3, one(Bits::NONE)),
            add(7, 10, 2, waits(LOAD)),
        ];
        // Instruction 1 starts a block: the load rises to it and no further.
        let p = with_load(code.clone(), 2, &[0, 1], &[]);
        assert_eq!(p.before[1].len(), 1);
        // A fence (another rewrite's instruction) stops it too; right before its waiter, the
        // load's stall is raised to the settle distance.
        let p = with_load(code, 2, &[], &[1]);
        assert_eq!(p.before[2].len(), 1);
        assert_eq!(p.before[2][0].control.stall, 2, "settles before its waiter");
    }

    #[test]
    fn a_hoisted_reader_of_a_fresh_register_waits_for_it() {
        // R1 written by a fixed-latency add with stall 1, then by nothing: a load of [R1] hoisted
        // to right after it gets the instruction before it stalled to ALU_LATENCY.
        let code = vec![
            add(1, 2, 3, one(Bits::NONE)),
            add(6, 2, 3, one(Bits::NONE)),
            add(7, 10, 2, waits(LOAD)),
        ];
        let p = with_load(code, 2, &[], &[]);
        assert_eq!(p.before[1].len(), 1, "stops below the writer of R1");
        assert_eq!(p.code[0].control.stall, ALU_LATENCY);
        // Written under a scoreboard instead: the load waits on it.
        let var = Bits {
            write_sb: 2,
            ..one(Bits::NONE)
        };
        let code = vec![
            add(1, 2, 3, var),
            add(6, 2, 3, one(Bits::NONE)),
            add(7, 10, 2, waits(LOAD)),
        ];
        let p = with_load(code, 2, &[], &[]);
        assert_eq!(p.before[1].len(), 1);
        assert_eq!(p.before[1][0].control.wait & (1 << 2), 1 << 2);
        assert!(
            p.code[0].control.stall >= SB_SETTLE,
            "and its setter settles"
        );
    }

    /// An instruction with its control bits cleared: what identifies it across the scheduler.
    fn bare(i: &Instruction) -> u128 {
        let mut i = i.clone();
        i.control = Bits::NONE;
        i.encode()
    }

    /// Random blocks of ptxas-like instructions (registers R2–R7 and the scratch R10–R11, random
    /// waits and scoreboards) with random slot loads and stores around them, some instructions
    /// fences: after `place`, every original keeps its index, every inserted instruction its
    /// block, and every pair the rules relate (fences included) its order.
    #[test]
    fn random_blocks_keep_every_dependence() {
        use crate::machine::testutil::Rng;
        let rule = rule(10..12, 1 << STORE | 1 << LOAD);
        let rules: [&dyn DepRule; 4] = [&sched::Registers, &sched::Memory, &sched::Control, &rule];
        let mut moved = 0;
        for seed in 1..400 {
            let mut rng = Rng::new(seed);
            let n = 3 + rng.below(9) as usize;
            let reg = |rng: &mut Rng| [2, 3, 4, 5, 6, 7, 10, 11][rng.below(8) as usize];
            let sb = |rng: &mut Rng| [0u8, LOAD, STORE][rng.below(3) as usize];
            let code: Vec<Instruction> = (0..n)
                .map(|_| {
                    let mut c = one(Bits::NONE);
                    if rng.below(3) == 0 {
                        c.wait = 1 << sb(&mut rng);
                    }
                    if rng.below(5) == 0 {
                        c.write_sb = sb(&mut rng);
                    }
                    add(reg(&mut rng), reg(&mut rng), reg(&mut rng), c)
                })
                .collect();
            let leaders: BTreeSet<usize> =
                (0..n).filter(|&k| k == 0 || rng.below(5) == 0).collect();
            let skip: BTreeSet<usize> = (0..n).filter(|_| rng.below(7) == 0).collect();
            // Inserted items: the encoded offset (4 × id) identifies one; the slot it claims to
            // touch (its access) is one of three, so items conflict through memory too.
            let (mut before, mut after) = (vec![Vec::new(); n], vec![Vec::new(); n]);
            let mut block_of = Vec::new();
            let block = |k: usize| leaders.range(..=k).count();
            for k in (0..n).filter(|k| !skip.contains(k)) {
                for place_after in [false, true] {
                    for _ in 0..rng.below(3) {
                        let id = block_of.len() as i32;
                        let wait = if rng.below(3) == 0 {
                            1 << sb(&mut rng)
                        } else {
                            0
                        };
                        let scratch = 10 + rng.below(2) as u32;
                        let slot = 4 * rng.below(3) as i32;
                        let mut item = if place_after {
                            sts(4 * id, scratch, wait)
                        } else {
                            lds(scratch, 4 * id, wait)
                        };
                        item.access = Some(slot_access(1, slot, place_after));
                        block_of.push((block(k), item.clone()));
                        if place_after {
                            after[k].push(item)
                        } else {
                            before[k].push(item)
                        }
                    }
                }
            }
            // The original order, as items (ids: originals k, inserted n + j).
            let id = |i: &Instruction| {
                n + block_of
                    .iter()
                    .position(|(_, b)| bare(&b.inst) == bare(i))
                    .unwrap()
            };
            let ins = |it: &Item| id(&it.inst);
            let mut original: Vec<(usize, Item)> = Vec::new();
            for k in 0..n {
                original.extend(before[k].iter().map(|it| (ins(it), it.clone())));
                let item = if skip.contains(&k) {
                    Item::fence(code[k].clone())
                } else {
                    Item::original(code[k].clone())
                };
                original.push((k, item.at(k)));
                original.extend(after[k].iter().map(|it| (ins(it), it.clone())));
            }
            let p = place(code.clone(), before, after, &leaders, &skip, &rule).unwrap();
            moved += p.moved;
            // The final order, as ids.
            let mut fin: Vec<usize> = Vec::new();
            for (k, orig) in code.iter().enumerate() {
                assert_eq!(
                    bare(&p.code[k]),
                    bare(orig),
                    "seed {seed}: original {k} changed"
                );
                assert_eq!(p.code[k].control.wait, orig.control.wait);
                fin.extend(p.before[k].iter().map(id));
                fin.push(k);
                fin.extend(p.after[k].iter().map(id));
            }
            assert_eq!(
                fin.len(),
                original.len(),
                "seed {seed}: an instruction was lost or doubled"
            );
            let pos = |id: usize| fin.iter().position(|&x| x == id).unwrap();
            let blk = |id: usize| {
                if id < n {
                    block(id)
                } else {
                    block_of[id - n].0
                }
            };
            // Its block: the groups around original k belong to k's block.
            for k in 0..n {
                for i in p.before[k].iter().chain(&p.after[k]) {
                    assert_eq!(block(k), blk(id(i)), "seed {seed}: an item left its block");
                }
            }
            for a in 0..original.len() {
                for b in a + 1..original.len() {
                    let ((x, ix), (y, iy)) = (&original[a], &original[b]);
                    if blk(*x) != blk(*y) || (*x < n && *y < n) {
                        continue;
                    }
                    if sched::depends(&rules, ix, iy).is_some()
                        || ix.origin == Origin::Fence
                        || iy.origin == Origin::Fence
                    {
                        assert!(pos(*x) < pos(*y), "seed {seed}: {x} and {y} were reordered");
                    }
                }
            }
        }
        assert!(
            moved > 100,
            "the scheduler moved only {moved} items over all seeds"
        );
    }
}
