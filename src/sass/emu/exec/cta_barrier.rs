//! CTA barriers in the SASS interpreter (PTX ISA §9.7.13.1 `bar`/`barrier`: `.sync`, `.arrive`,
//! `.red.popc/.and/.or`, ids 0–15, an optional thread count): `BAR.SYNC`, `BAR.ARV`,
//! `BAR.RED.{POPC,AND,OR}`.
//!
//! **Operands**, read off ptxas 12.9 for every mix of immediate and register id and count:
//! `BAR.SYNC 0x1, 0x40` (both immediate), `BAR.SYNC 0x1, R0` (the count in `R0`),
//! `BAR.SYNC R5, 0x60` (the id in `R5`), and, when both come from registers, one register twice,
//! `BAR.SYNC R0, R0`, that ptxas packs as `count << 16 | id` (`SHF.L.U32` then `LOP3 … 0xf8`);
//! two different registers are refused (not seen, not guessed). `BAR.RED` takes the predicate
//! last (`BAR.RED.POPC 0x3, 0x40, !P0`).
//!
//! **Arrival and completion.** A thread count must be a positive multiple of 32, the same for
//! every arrival of one phase. `BAR.SYNC`/`BAR.RED` lanes wait at the barrier; `BAR.ARV` lanes
//! are counted and go on. Without a count the barrier completes when every thread of the CTA that
//! has not exited waits there; with one, when the waiting and the arrived threads make the count
//! (threads are counted one by one, as in the PTX emulator). Completion is checked after each CTA
//! turn in which a warp arrived, and whenever no warp can run. More arrivals than the count in one
//! phase — a thread arriving again before the phase completed — would make the result depend on
//! timing: the run stops and says so.

use super::*;

/// Every CTA barrier id, as a mask for [`Machine::release_bar`].
pub(super) const ALL_BARRIERS: u16 = u16::MAX;

/// Who is at barrier `id` of a CTA.
#[derive(Default)]
struct Tally {
    /// Threads waiting there (`BAR.SYNC`, `BAR.RED`).
    waiting: u32,
    /// Threads that arrived without waiting (`BAR.ARV`).
    arrived: u32,
    /// Threads that have not exited and do not wait there.
    others: u32,
    /// The thread count the arrivals named (0: the whole CTA), when any arrived.
    count: Option<u32>,
}

impl Machine<'_> {
    /// `BAR.SYNC`, `BAR.ARV`, `BAR.RED.*` (`red`: 0 sync, 1 popc, 2 and, 3 or, 4 arrive) for the
    /// lanes `exec`; the others of `act` move on.
    pub(super) fn exec_bar(
        &mut self,
        i: &DInst,
        w: &mut Warp,
        act: u32,
        exec: u32,
        red: u8,
    ) -> Result<(), Stop> {
        let Some(first) = lanes(exec).next() else {
            advance(w, act);
            return Ok(());
        };
        let (id, count) = self.bar_operands(i, w, first, red)?;
        let b = usize::from(id);
        let pending = w.bar_arrived[b] != 0 || w.st.contains(&St::Bar(id));
        if pending && w.bar_count[b] != count {
            return Err(Stop::Fault(
                format!(
                    "barrier {id} with thread counts {} and {count} in one phase",
                    w.bar_count[b]
                ),
                Some(first),
            ));
        }
        w.bar_count[b] = count;
        self.bar_arrivals |= 1 << id;
        if red == 4 {
            if count == 0 {
                return Err(Stop::Msg("BAR.ARV without a thread count".into(), None));
            }
            if w.bar_arrived[b] & exec != 0 {
                return Err(Stop::Msg(
                    format!(
                        "a thread arrived at barrier {id} twice in one phase (arrivals of a later \
                         phase would depend on timing)"
                    ),
                    lanes(w.bar_arrived[b] & exec).next(),
                ));
            }
            w.bar_arrived[b] |= exec;
            advance(w, act);
            return Ok(());
        }
        let pred = if red > 0 {
            Some(
                i.ops
                    .last()
                    .filter(|o| is_p(o))
                    .ok_or(Stop::Msg("BAR.RED predicate".into(), None))?,
            )
        } else {
            None
        };
        for l in lanes(act) {
            if exec >> l & 1 == 1 {
                let p = match pred {
                    Some(po) => u32::from(self.pred(w, l, po).map_err(|m| Stop::Msg(m, None))?),
                    None => 0,
                };
                w.b2r[l] = u32::from(red) << 8 | p;
                w.st[l] = St::Bar(id);
            } else {
                w.pc[l] += 1;
            }
        }
        Ok(())
    }

    /// The barrier id and thread count (0: the whole CTA) of a `BAR` as lane `l` reads them.
    fn bar_operands(&self, i: &DInst, w: &Warp, l: usize, red: u8) -> Result<(u8, u32), Stop> {
        let o = &i.ops;
        // `BAR.RED` ends with its predicate; the count, if any, comes before it.
        let n = if red > 0 && red < 4 {
            o.len().saturating_sub(1)
        } else {
            o.len()
        };
        let read = |x: &Opnd| self.rd(w, l, x).map_err(|m| Stop::Msg(m, Some(l)));
        let (id, count) = match &o[..n.min(o.len())] {
            [] => (0, 0),
            [Opnd::Imm(a)] => (*a as u32, 0),
            [a @ Opnd::R { .. }] => (read(a)?, 0),
            [Opnd::Imm(a), Opnd::Imm(c)] => (*a as u32, *c as u32),
            [Opnd::Imm(a), c @ Opnd::R { .. }] => (*a as u32, read(c)?),
            [a @ Opnd::R { .. }, Opnd::Imm(c)] => (read(a)?, *c as u32),
            [a @ Opnd::R { n: ra, .. }, Opnd::R { n: rc, .. }] if ra == rc => {
                let v = read(a)?;
                (v & 0xf, v >> 16 & 0xfff)
            }
            _ => {
                return Err(Stop::Msg(
                    "BAR operands other than ptxas's forms (an id and a count from two \
                     different registers)"
                        .into(),
                    None,
                ))
            }
        };
        if id >= 16 {
            return Err(Stop::Fault(
                format!("barrier id {id} is not in 0..15"),
                Some(l),
            ));
        }
        let counted = n >= 2;
        if counted && (count == 0 || count % 32 != 0) {
            return Err(Stop::Fault(
                format!("barrier thread count {count} is not a positive multiple of 32"),
                Some(l),
            ));
        }
        Ok((id as u8, count))
    }

    /// Releases the threads waiting at a CTA barrier of CTA `cta`, among the ids of the mask
    /// `ids`, whose arrivals are complete (see the module's doc); true when one was.
    pub(super) fn release_bar(
        &mut self,
        cta: [u32; 3],
        warps: &mut [Warp],
        ids: u16,
    ) -> EmuResult<bool> {
        for id in (0..16u8).filter(|b| ids >> b & 1 == 1) {
            let t = tally(warps, id).map_err(|(wi, what)| {
                let w = &warps[wi];
                let lane = (0..32).find(|&l| w.st[l] == St::Bar(id));
                let pc = lane.map_or(0, |l| w.pc[l] as usize);
                EmuError::Fault {
                    at: self.at(pc, cta, w, lane),
                    what,
                }
            })?;
            let complete = match t.count {
                None => false,
                Some(0) => t.waiting > 0 && t.others == 0,
                Some(c) => {
                    if t.waiting + t.arrived > c {
                        return Err(EmuError::Limit {
                            at: None,
                            what: format!(
                                "CTA {cta:?}: {} threads at barrier {id}, whose count is {c} (the \
                                 threads of two phases: which complete first depends on timing)",
                                t.waiting + t.arrived
                            ),
                        });
                    }
                    t.waiting + t.arrived == c
                }
            };
            if complete {
                release_waiting(warps, id);
                return Ok(true);
            }
        }
        Ok(false)
    }
}

/// Who is at barrier `id` of the CTA of `warps`, or the warp whose arrival names another thread
/// count than the others' and why.
fn tally(warps: &[Warp], id: u8) -> Result<Tally, (usize, String)> {
    let b = usize::from(id);
    let mut t = Tally::default();
    for (wi, w) in warps.iter().enumerate() {
        let mut waiting = 0;
        for s in &w.st {
            match s {
                St::Bar(x) if *x == id => waiting += 1,
                St::Exited | St::Absent => {}
                _ => t.others += 1,
            }
        }
        let arrived = w.bar_arrived[b].count_ones();
        if waiting + arrived > 0 {
            match t.count {
                Some(c) if c != w.bar_count[b] => {
                    return Err((
                        wi,
                        format!(
                            "barrier {id} with thread counts {c} and {} in one phase",
                            w.bar_count[b]
                        ),
                    ))
                }
                _ => t.count = Some(w.bar_count[b]),
            }
        }
        t.waiting += waiting;
        t.arrived += arrived;
    }
    Ok(t)
}

/// Lets the threads waiting at barrier `id` go, with the reduction's result where they asked
/// for one, and opens the barrier's next phase.
fn release_waiting(warps: &mut [Warp], id: u8) {
    // Reductions (BAR.RED) were recorded per lane in b2r at arrival; combine them.
    let (mut popc, mut all, mut any) = (0u32, true, false);
    for w in warps.iter() {
        for l in 0..32 {
            if w.st[l] == St::Bar(id) {
                let v = w.b2r[l] & 1;
                popc += v;
                all &= v == 1;
                any |= v == 1;
            }
        }
    }
    let b = usize::from(id);
    for w in warps.iter_mut() {
        w.bar_arrived[b] = 0;
        w.bar_count[b] = 0;
        w.converged = false;
        for l in 0..32 {
            if w.st[l] == St::Bar(id) {
                w.b2r[l] = match w.b2r[l] >> 8 {
                    1 => popc,
                    2 => u32::from(all),
                    3 => u32::from(any),
                    _ => 0,
                };
                w.st[l] = St::Run;
                w.pc[l] += 1;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::tests::{kernel, machine};
    use super::*;

    /// The error of running `line` in one full warp of a 64-thread CTA.
    fn first_error(lines: &[&str]) -> String {
        let k = kernel(lines);
        let (mut m, mut w) = machine(&k, 64);
        let mut shared = vec![0u8; 16];
        for _ in 0..lines.len() {
            if let Err(e) = m.step(&mut w, [0; 3], &mut shared) {
                return e.to_string();
            }
        }
        String::new()
    }

    #[test]
    fn operands_outside_ptxas_forms_and_bad_counts_stop_the_run() {
        let e = first_error(&["BAR.SYNC.DEFER_BLOCKING R2, R3 ;"]);
        assert!(e.contains("two different registers"), "{e}");
        let e = first_error(&["BAR.ARV 0x1, 0x30 ;"]);
        assert!(e.contains("multiple of 32"), "{e}");
        let e = first_error(&["BAR.ARV 0x1 ;"]);
        assert!(e.contains("without a thread count"), "{e}");
        let e = first_error(&["BAR.ARV 0x1, 0x40 ;", "BAR.ARV 0x1, 0x40 ;"]);
        assert!(e.contains("twice in one phase"), "{e}");
        let e = first_error(&["BAR.ARV 0x1, 0x40 ;", "BAR.SYNC.DEFER_BLOCKING 0x1, 0x60 ;"]);
        assert!(e.contains("thread counts 64 and 96"), "{e}");
    }

    #[test]
    fn a_packed_register_gives_id_and_count_and_arrivals_make_the_count() {
        // R9 = 64 << 16 | 2: barrier 2, 64 threads. Warp 0 arrives; warp 1 waits; then the
        // barrier holds 64 threads and releases warp 1.
        let k = kernel(&["BAR.SYNC.DEFER_BLOCKING R9, R9 ;", "EXIT ;"]);
        let (mut m, _) = machine(&k, 64);
        let mut w1 = Warp::new(1, 64, 0, [64, 1, 1]);
        for l in 0..32 {
            set(&mut w1, l, 9, 64 << 16 | 2);
        }
        let mut shared = vec![0u8; 16];
        m.step(&mut w1, [0; 3], &mut shared).unwrap();
        assert_eq!(w1.st[0], St::Bar(2));
        let mut warps = vec![Warp::new(0, 64, 0, [64, 1, 1]), w1];
        assert!(
            !m.release_bar([0; 3], &mut warps, ALL_BARRIERS).unwrap(),
            "32 of 64"
        );
        warps[0].bar_arrived[2] = u32::MAX;
        warps[0].bar_count[2] = 64;
        assert!(
            m.release_bar([0; 3], &mut warps, ALL_BARRIERS).unwrap(),
            "64 of 64"
        );
        assert_eq!(warps[1].st[0], St::Run);
        assert_eq!(warps[0].bar_arrived[2], 0, "the next phase starts empty");
        // More arrivals than the count in one phase.
        warps[0].bar_arrived[2] = u32::MAX;
        warps[0].bar_count[2] = 32;
        warps[1].bar_arrived[2] = 1;
        warps[1].bar_count[2] = 32;
        let e = m
            .release_bar([0; 3], &mut warps, ALL_BARRIERS)
            .unwrap_err()
            .to_string();
        assert!(e.contains("two phases"), "{e}");
    }
}
