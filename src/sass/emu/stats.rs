//! Per-run statistics of the SASS emulator: instructions by class and the memory behaviour the
//! performance predictor needs — accesses, requests and transactions per state space, global and
//! local coalescing by 32-byte sectors, shared-memory bank conflicts (RegDem §3: the demoter
//! trades registers for shared-memory traffic, so its cost is measured here).
//!
//! Model: a warp-level memory instruction is one *request*; its *transactions* are the distinct
//! 32-byte sectors its active lanes touch (global, local, generic); for shared memory, the
//! *wavefronts* are the maximum over the 32 four-byte banks of the number of distinct words a
//! request touches in that bank (at least one per 128 bytes requested), and a request's *bank
//! conflicts* are its wavefronts beyond the first.

use serde::Serialize;

use super::decode::{Class, Space};

/// Traffic of one state space.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
pub struct SpaceStats {
    /// Warp-level requests (memory instructions executed by at least one lane).
    pub requests: u64,
    /// Lane-level accesses.
    pub accesses: u64,
    /// Bytes moved.
    pub bytes: u64,
    /// 32-byte sectors (global, local) or wavefronts (shared).
    pub transactions: u64,
    /// Shared memory: wavefronts beyond the first per request.
    pub bank_conflicts: u64,
}

/// Counters of a run.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct SassStats {
    /// Warp-instructions executed.
    pub warp_insts: u64,
    /// Lane-instructions executed (lanes at the instruction, guard true or not).
    pub lane_insts: u64,
    /// Warp-instructions per [`Class`] (indexed by `Class as usize`).
    pub by_class: [u64; 15],
    /// Global memory.
    pub global: SpaceStats,
    /// Shared memory.
    pub shared: SpaceStats,
    /// Local memory.
    pub local: SpaceStats,
    /// Generic accesses (counted here, not in the space they resolve to).
    pub generic: SpaceStats,
}

impl SassStats {
    /// Records one warp-level access of `bytes` per lane at `addrs[lane]` for the lanes of
    /// `mask`.
    pub fn memory(&mut self, space: Space, addrs: &[u64; 32], mask: u32, bytes: u32, _load: bool) {
        if mask == 0 {
            return;
        }
        let n = u64::from(mask.count_ones());
        let s = match space {
            Space::Global => &mut self.global,
            Space::Shared => &mut self.shared,
            Space::Local => &mut self.local,
            Space::Generic | Space::Const => &mut self.generic,
        };
        s.requests += 1;
        s.accesses += n;
        s.bytes += n * u64::from(bytes);
        if space == Space::Shared && bytes <= 4 {
            // Every lane on a bank of its own (the common conflict-free pattern): one wavefront,
            // as the general count below gives, without sorting.
            let mut banks = 0u32;
            for (l, &a) in addrs.iter().enumerate() {
                if mask >> l & 1 == 1 {
                    banks |= 1 << ((a & 0xffff_ffff) / 4 % 32);
                }
            }
            if u64::from(banks.count_ones()) == n {
                s.transactions += 1;
                return;
            }
        }
        if space == Space::Shared {
            // Fixed buffers: no allocation per request (at most 32 lanes × 4 words).
            let mut words = [0u64; 128];
            let mut nw = 0;
            for (l, &a) in addrs.iter().enumerate() {
                if mask >> l & 1 == 1 {
                    let a = a & 0xffff_ffff;
                    for k in 0..u64::from(bytes.div_ceil(4)).min(4) {
                        words[nw] = a / 4 + k;
                        nw += 1;
                    }
                }
            }
            let words = &mut words[..nw];
            words.sort_unstable();
            let mut per_bank = [0u64; 32];
            let mut last = None;
            for &wd in words.iter() {
                if last != Some(wd) {
                    per_bank[(wd % 32) as usize] += 1;
                    last = Some(wd);
                }
            }
            let min = (n * u64::from(bytes)).div_ceil(128);
            let wave = per_bank.iter().copied().max().unwrap_or(1).max(min).max(1);
            s.transactions += wave;
            s.bank_conflicts += wave - min.max(1);
        } else if space == Space::Local {
            // Local addresses are per thread; the hardware interleaves the threads' copies of a
            // word (consecutive lanes' words adjacent), so a warp's access to one offset moves
            // lanes × bytes contiguous bytes, not the one sector the shared address suggests.
            s.transactions += (n * u64::from(bytes)).div_ceil(32);
        } else {
            // At most 32 lanes × 2 sectors (accesses of ≤ 16 bytes, aligned).
            let mut sectors = [0u64; 64];
            let mut ns = 0;
            for (l, &a) in addrs.iter().enumerate() {
                if mask >> l & 1 == 1 {
                    let last = a + u64::from(bytes) - 1;
                    for sct in a / 32..=last / 32 {
                        if ns < sectors.len() {
                            sectors[ns] = sct;
                            ns += 1;
                        }
                    }
                }
            }
            let sectors = &mut sectors[..ns];
            sectors.sort_unstable();
            let mut distinct = 0u64;
            let mut prev = None;
            for &x in sectors.iter() {
                if prev != Some(x) {
                    distinct += 1;
                    prev = Some(x);
                }
            }
            s.transactions += distinct;
        }
    }

    /// Adds another run's counters.
    pub fn add(&mut self, o: &SassStats) {
        self.warp_insts += o.warp_insts;
        self.lane_insts += o.lane_insts;
        for (a, b) in self.by_class.iter_mut().zip(o.by_class.iter()) {
            *a += b;
        }
        for (a, b) in [
            (&mut self.global, &o.global),
            (&mut self.shared, &o.shared),
            (&mut self.local, &o.local),
            (&mut self.generic, &o.generic),
        ] {
            a.requests += b.requests;
            a.accesses += b.accesses;
            a.bytes += b.bytes;
            a.transactions += b.transactions;
            a.bank_conflicts += b.bank_conflicts;
        }
    }

    /// Instruction classes with their counts (non-zero ones).
    pub fn classes(&self) -> Vec<(&'static str, u64)> {
        Class::ALL
            .iter()
            .map(|c| (c.name(), self.by_class[*c as usize]))
            .filter(|(_, n)| *n > 0)
            .collect()
    }

    /// A JSON object of the counters (classes by name).
    pub fn to_json(&self) -> serde_json::Value {
        let classes: serde_json::Map<String, serde_json::Value> = self
            .classes()
            .into_iter()
            .map(|(k, v)| (k.to_string(), serde_json::json!(v)))
            .collect();
        serde_json::json!({
            "warp_insts": self.warp_insts,
            "lane_insts": self.lane_insts,
            "classes": classes,
            "global": self.global,
            "shared": self.shared,
            "local": self.local,
            "generic": self.generic,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn coalescing_and_conflicts() {
        let mut s = SassStats::default();
        let mut a = [0u64; 32];
        for (l, x) in a.iter_mut().enumerate() {
            *x = 0x1000 + 4 * l as u64;
        }
        s.memory(Space::Global, &a, u32::MAX, 4, true);
        assert_eq!(s.global.transactions, 4);
        for (l, x) in a.iter_mut().enumerate() {
            *x = 0x1000 + 128 * l as u64;
        }
        s.memory(Space::Global, &a, u32::MAX, 4, true);
        assert_eq!(s.global.transactions, 4 + 32);
        // Stride 2 words in shared memory: two-way conflicts.
        for (l, x) in a.iter_mut().enumerate() {
            *x = 8 * l as u64;
        }
        s.memory(Space::Shared, &a, u32::MAX, 4, true);
        assert_eq!(s.shared.transactions, 2);
        assert_eq!(s.shared.bank_conflicts, 1);
        // Broadcast: no conflict.
        s.memory(Space::Shared, &[16; 32], u32::MAX, 4, true);
        assert_eq!(s.shared.bank_conflicts, 1);
        assert_eq!(s.shared.transactions, 3);
        // A permutation of 32 consecutive words (the one-bank-per-lane fast path): one
        // wavefront; half the lanes: one.
        for (l, x) in a.iter_mut().enumerate() {
            *x = 0x400 + 4 * ((l * 7) % 32) as u64;
        }
        s.memory(Space::Shared, &a, u32::MAX, 4, true);
        s.memory(Space::Shared, &a, 0xffff, 2, true);
        assert_eq!(s.shared.transactions, 5);
        assert_eq!(s.shared.bank_conflicts, 1);
        // Local: every lane at the same per-thread offset is 32 interleaved words, 4 sectors;
        // 16 lanes of 8 bytes, 4 sectors; one lane, one.
        s.memory(Space::Local, &[0x40; 32], u32::MAX, 4, true);
        assert_eq!(s.local.transactions, 4);
        s.memory(Space::Local, &[0x40; 32], 0xffff, 8, true);
        assert_eq!(s.local.transactions, 8);
        s.memory(Space::Local, &[0x40; 32], 1, 4, true);
        assert_eq!(s.local.transactions, 9);
    }
}
