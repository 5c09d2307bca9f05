//! The memory side of the timing mode: when a warp's memory instruction completes. Shared memory
//! queues its wavefronts on the SM's shared-memory port; global and local accesses queue their
//! sectors on the L1/LSU path, hit or miss in the L1 ([`super::cache`]), and their misses queue
//! on the SM's share of L2 bandwidth and — for lines this SM has not touched before, in the
//! proportion of the launch's compulsory DRAM traffic — of DRAM bandwidth; global stores cross
//! to L2 at the SM's store rate, every touched sector counted whole (the drain a CTA waits for).
//! Latencies and bandwidths are the tune model's (docs/tune.md, "The cycle-level model").

use std::collections::HashSet;

use super::super::decode::Space;
use super::super::exec::resident::Touch;
use super::cache::Cache;
use super::TimingParams;

/// Where a request's completion came from, for the run's counters.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Serialize)]
pub struct MemoryCounters {
    /// Global/local sectors that hit in L1.
    pub l1_hit_sectors: u64,
    /// Sectors that missed and came from L2 (or DRAM).
    pub l1_miss_sectors: u64,
    /// Of those, sectors of lines first touched by this SM (charged DRAM's share).
    pub cold_sectors: u64,
    /// Dirty local lines written back to L2 on eviction.
    pub writebacks: u64,
}

/// The SM's memory system.
pub struct MemorySystem {
    p: TimingParams,
    l1: Cache,
    seen: HashSet<u64>,
    smem_free: f64,
    lsu_free: f64,
    l2_free: f64,
    dram_free: f64,
    /// Counters.
    pub counters: MemoryCounters,
}

/// When an access completes: its data is in registers (`done`), its source registers were read
/// (`read`), its stores have left the SM for L2 (`drained`: a CTA ends only after its warps'
/// stores drain).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Completion {
    /// The write scoreboard's release.
    pub done: u64,
    /// The read scoreboard's release.
    pub read: u64,
    /// The cycle its global stores have crossed to L2 (`done` for everything else).
    pub drained: u64,
}

/// Cycles the LSU takes to read a store's source registers once the request is accepted.
const OPERAND_READ: u64 = 2;

impl MemorySystem {
    /// An empty memory system: an L1 of `l1_bytes`.
    pub fn new(p: TimingParams, l1_bytes: u64) -> MemorySystem {
        MemorySystem {
            p,
            l1: Cache::new(l1_bytes),
            seen: HashSet::new(),
            smem_free: 0.0,
            lsu_free: 0.0,
            l2_free: 0.0,
            dram_free: 0.0,
            counters: MemoryCounters::default(),
        }
    }

    /// Issues one instruction's accesses at cycle `t`: `wavefronts` are the shared-memory
    /// wavefronts it needed, `warp` the warp's unique number (local memory is per thread).
    pub(crate) fn access(
        &mut self,
        t: u64,
        touches: &[Touch],
        wavefronts: u64,
        warp: u64,
    ) -> Completion {
        let now = t as f64;
        let mut done = now;
        let mut read = t + OPERAND_READ;
        let mut drained = now;
        for touch in touches {
            let c = if touch.space == Space::Shared {
                self.shared(now, wavefronts.max(1))
            } else {
                self.cached(now, touch, warp)
            };
            done = done.max(c.0);
            read = read.max(c.1);
            drained = drained.max(c.2);
        }
        Completion {
            done: done.ceil() as u64,
            read,
            drained: drained.max(done).ceil() as u64,
        }
    }

    /// Cycles from `t` until the L1/LSU path has worked off what it was given (its tag stage,
    /// and the L2 link its misses and stores queue on).
    pub fn backlog(&self, t: u64) -> f64 {
        (self.lsu_free.max(self.l2_free) - t as f64).max(0.0)
    }

    fn shared(&mut self, now: f64, wavefronts: u64) -> (f64, u64, f64) {
        self.smem_free = self.smem_free.max(now) + wavefronts as f64 / self.p.smem_wavefronts;
        let start = self.smem_free;
        let done = start + self.p.lat_smem;
        (done, start.ceil() as u64 + OPERAND_READ, done)
    }

    /// A global, local or generic access through the L1: when its data is back, when its
    /// source registers were read, when its stores have crossed to L2.
    fn cached(&mut self, now: f64, touch: &Touch, warp: u64) -> (f64, u64, f64) {
        let lines = lines_of(touch, warp);
        // The L1's tag stage looks one 128-byte line up a cycle (a wavefront per line), and moves
        // at most `l1_sectors` sectors a cycle: an uncoalesced request costs a cycle per line.
        let sectors: u32 = lines.iter().map(|&(_, s)| s.count_ones()).sum();
        let cycles = (f64::from(sectors) / self.p.l1_sectors).max(lines.len() as f64);
        self.lsu_free = self.lsu_free.max(now) + cycles;
        let start = self.lsu_free;
        let mut done = start + self.p.lat_l1;
        let mut drained = done;
        let local = touch.space == Space::Local;
        for &(line, mask) in &lines {
            if touch.atomic && !local {
                // Global atomics are performed at L2: the sectors cross to it and the result
                // (if any) comes back.
                let bytes = f64::from(mask.count_ones()) * 32.0;
                self.l2_free = self.l2_free.max(start) + bytes / self.p.l2_bytes;
                done = done.max(self.l2_free.max(start + self.p.lat_l2));
            } else if touch.load {
                let missing = self.l1.lookup(line, mask);
                let hit = (mask & !missing).count_ones();
                self.counters.l1_hit_sectors += u64::from(hit);
                if missing != 0 {
                    let ready = self.miss(start, line, missing, local);
                    done = done.max(ready);
                    let wb = self.l1.fill(line, missing, false);
                    self.write_back(start, wb);
                }
            } else if local {
                // Written through whole: the line stays clean (nothing to write back later).
                let dirty = self.p.local_store_l2 < 1.0;
                let wb = self.l1.fill(line, mask, dirty);
                self.write_back(start, wb);
                let through = self.p.local_store_l2 * f64::from(mask.count_ones()) * 32.0;
                if through > 0.0 {
                    self.l2_free = self.l2_free.max(start) + through / self.p.l2_store_bytes;
                    drained = drained.max(self.l2_free);
                }
            } else {
                self.l1.write_through(line, mask);
                let bytes = f64::from(mask.count_ones()) * 32.0;
                self.l2_free = self.l2_free.max(start) + bytes / self.p.l2_store_bytes;
                drained = drained.max(self.l2_free);
            }
        }
        (done, start.ceil() as u64 + OPERAND_READ, drained)
    }

    /// The cycle a missed part of a line arrives.
    fn miss(&mut self, start: f64, line: u64, missing: u8, local: bool) -> f64 {
        let n = missing.count_ones();
        let bytes = f64::from(n) * 32.0;
        self.counters.l1_miss_sectors += u64::from(n);
        self.l2_free = self.l2_free.max(start) + bytes / self.p.l2_bytes;
        let mut ready = self.l2_free.max(start + self.p.lat_l2);
        if !local && self.seen.insert(line) {
            self.counters.cold_sectors += u64::from(n);
            let f = self.p.dram_fraction;
            if f > 0.0 {
                self.dram_free = self.dram_free.max(start) + f * bytes / self.p.dram_bytes;
                let lat = f * self.p.lat_dram + (1.0 - f) * self.p.lat_l2;
                ready = ready.max(self.dram_free.max(start + lat));
            }
        }
        ready
    }

    fn write_back(&mut self, start: f64, lines: u32) {
        if lines > 0 {
            self.counters.writebacks += u64::from(lines);
            self.l2_free = self.l2_free.max(start) + f64::from(lines) * 128.0 / self.p.l2_bytes;
        }
    }
}

/// The 128-byte lines a warp's access touches and, per line, its sectors (bit k = sector k).
/// Local memory interleaves the threads' copies of each 4-byte word (a warp's access to one word
/// is 128 contiguous bytes), so its lines are per warp and per word.
fn lines_of(touch: &Touch, warp: u64) -> Vec<(u64, u8)> {
    let mut out: Vec<(u64, u8)> = Vec::new();
    let mut add = |line: u64, sectors: u8| match out.iter_mut().find(|(l, _)| *l == line) {
        Some((_, s)) => *s |= sectors,
        None => out.push((line, sectors)),
    };
    let lanes = touch.mask.count_ones();
    if touch.space == Space::Local {
        // Which of the line's four sectors the active lanes' copies fall in.
        let mut sectors = 0u8;
        for l in 0..32 {
            if touch.mask >> l & 1 == 1 {
                sectors |= 1 << (l / 8);
            }
        }
        let first = touch
            .addrs
            .iter()
            .enumerate()
            .find(|(l, _)| touch.mask >> l & 1 == 1)
            .map_or(0, |(_, &a)| a & 0xffff_ffff);
        for word in first / 4..(first + u64::from(touch.bytes)).div_ceil(4) {
            add(1 << 63 | warp << 32 | word, sectors);
        }
        debug_assert!(lanes > 0);
        return out;
    }
    for l in 0..32 {
        if touch.mask >> l & 1 == 0 {
            continue;
        }
        let a = touch.addrs[l];
        let last = a + u64::from(touch.bytes.max(1)) - 1;
        for sector in a / 32..=last / 32 {
            add(sector / 4, 1 << (sector % 4));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn params() -> TimingParams {
        TimingParams {
            lat_l1: 30.0,
            lat_l2: 200.0,
            lat_dram: 500.0,
            l1_sectors: 4.0,
            l2_bytes: 64.0,
            dram_bytes: 32.0,
            dram_fraction: 1.0,
            ..TimingParams::default()
        }
    }

    fn touch(space: Space, stride: u64, load: bool) -> Touch {
        let mut addrs = [0u64; 32];
        for (l, a) in addrs.iter_mut().enumerate() {
            *a = 0x1000 + l as u64 * stride;
        }
        Touch {
            space,
            addrs,
            mask: u32::MAX,
            bytes: 4,
            load,
            atomic: false,
        }
    }

    #[test]
    fn coalesced_load_is_one_line_and_hits_the_second_time() {
        let t = touch(Space::Global, 4, true);
        assert_eq!(lines_of(&t, 0), vec![(0x1000 / 128, 0xf)]);
        let mut m = MemorySystem::new(params(), 1 << 20);
        let first = m.access(0, std::slice::from_ref(&t), 0, 0);
        // Cold: DRAM latency (f = 1) after the LSU's 1 cycle for 4 sectors.
        assert_eq!(first.done, 501);
        let again = m.access(1000, &[t], 0, 0);
        assert_eq!(again.done, 1000 + 1 + 30);
        assert_eq!(m.counters.l1_hit_sectors, 4);
        assert_eq!(m.counters.cold_sectors, 4);
    }

    #[test]
    fn global_atomics_take_the_l2_round_trip() {
        let t = Touch {
            atomic: true,
            ..touch(Space::Global, 4, false)
        };
        let mut m = MemorySystem::new(params(), 1 << 20);
        let c = m.access(0, &[t], 0, 0);
        assert!(c.done >= 200, "{c:?}");
    }

    #[test]
    fn strided_load_queues_sectors() {
        let t = touch(Space::Global, 128, true);
        assert_eq!(lines_of(&t, 0).len(), 32);
        let mut m = MemorySystem::new(params(), 1 << 20);
        let c = m.access(0, &[t], 0, 0);
        // 32 sectors through the LSU (8 cycles), 1 KiB through DRAM at 32 B/cycle.
        assert!(c.done >= 8 + 1024 / 32, "{c:?}");
    }

    #[test]
    fn stores_drain_at_the_store_rate_whole_sectors_counted() {
        // 4 bytes a lane, 32 bytes apart: 32 sectors touched, 128 bytes written.
        let t = touch(Space::Global, 32, false);
        let p = TimingParams {
            l2_store_bytes: 16.0,
            ..params()
        };
        let mut m = MemorySystem::new(p, 1 << 20);
        let c = m.access(0, std::slice::from_ref(&t), 0, 0);
        // The store itself does not wait (its registers are read after the tag stage) ...
        assert!(c.done < 64, "{c:?}");
        // ... but its 32 sectors leave the SM at 16 bytes a cycle.
        assert!(c.drained >= 32 * 32 / 16, "{c:?}");
        assert!(m.backlog(0) >= 64.0);
        assert_eq!(m.backlog(10_000), 0.0);
        let ld = touch(Space::Global, 4, true);
        let c = m.access(1, &[ld], 0, 0);
        assert_eq!(c.drained, c.done, "a load drains when its data is back");
    }

    #[test]
    fn local_lines_are_per_warp_and_written_back_when_evicted() {
        let st = Touch {
            space: Space::Local,
            ..touch(Space::Local, 0, false)
        };
        assert_eq!(lines_of(&st, 3), vec![(1 << 63 | 3 << 32 | 0x400, 0xf)]);
        assert_ne!(lines_of(&st, 3), lines_of(&st, 4));
        // An L1 of one line: the second warp's store evicts the first's dirty line.
        let mut m = MemorySystem::new(params(), 128);
        m.access(0, std::slice::from_ref(&st), 0, 3);
        m.access(1, std::slice::from_ref(&st), 0, 4);
        assert_eq!(m.counters.writebacks, 1);
        let ld = Touch { load: true, ..st };
        let c = m.access(10, &[ld], 0, 3);
        // Missed (evicted), from L2 (local lines are never charged DRAM).
        assert!(c.done >= 10 + 200, "{c:?}");
        assert_eq!(m.counters.cold_sectors, 0);
    }

    #[test]
    fn written_through_local_stores_drain_and_leave_nothing_to_write_back() {
        let st = touch(Space::Local, 0, false);
        let p = TimingParams {
            local_store_l2: 1.0,
            l2_store_bytes: 1.0,
            ..params()
        };
        // The same two stores as above, through an L1 of one line.
        let mut m = MemorySystem::new(p, 128);
        let c = m.access(0, std::slice::from_ref(&st), 0, 3);
        // 4 sectors (a warp's 128 bytes) leave at a byte a cycle, well after the L1's 30 cycles;
        // the CTA's end waits for them.
        assert!(c.drained >= 128, "{c:?}");
        m.access(1, std::slice::from_ref(&st), 0, 4);
        assert_eq!(m.counters.writebacks, 0, "a written-through line is clean");
        assert!(m.backlog(1) >= 2.0 * 128.0 - 1.0);
    }
}
