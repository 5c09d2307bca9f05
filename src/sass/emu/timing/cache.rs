//! The L1 data cache of the timing mode: 128-byte lines of four 32-byte sectors, fully
//! associative, least recently used out first, write-back for the lines stores allocate (local
//! memory) — the part of the unified L1/shared array the resident CTAs' shared memory leaves.
//! Full associativity is a simplification (the hardware's sets and hashing are not public); what
//! it keeps is the effect that decides spill costs: whether a working set fits.

use std::collections::{BTreeMap, HashMap};

#[derive(Clone, Copy, Debug)]
struct Line {
    stamp: u64,
    sectors: u8,
    dirty: bool,
}

/// A sectored LRU cache of `capacity` lines.
#[derive(Debug, Default)]
pub struct Cache {
    capacity: usize,
    lines: HashMap<u64, Line>,
    by_age: BTreeMap<u64, u64>,
    clock: u64,
}

impl Cache {
    /// A cache of `bytes` (rounded down to whole lines).
    pub fn new(bytes: u64) -> Cache {
        Cache {
            capacity: (bytes / 128) as usize,
            ..Cache::default()
        }
    }

    fn touch(&mut self, line: u64) -> Option<&mut Line> {
        self.clock += 1;
        let clock = self.clock;
        let l = self.lines.get_mut(&line)?;
        self.by_age.remove(&l.stamp);
        l.stamp = clock;
        self.by_age.insert(clock, line);
        Some(l)
    }

    /// Looks `sectors` of `line` up (a load): the sectors that missed (0: a hit). The line is now
    /// the most recently used; missed sectors are not filled (see [`Cache::fill`]).
    pub fn lookup(&mut self, line: u64, sectors: u8) -> u8 {
        match self.touch(line) {
            Some(l) => sectors & !l.sectors,
            None => sectors,
        }
    }

    /// Brings `sectors` of `line` in (a load's fill or an allocating store's write, `dirty`);
    /// returns how many dirty lines were evicted to make room (each written back to L2).
    pub fn fill(&mut self, line: u64, sectors: u8, dirty: bool) -> u32 {
        if self.capacity == 0 {
            return u32::from(dirty);
        }
        if let Some(l) = self.touch(line) {
            l.sectors |= sectors;
            l.dirty |= dirty;
            return 0;
        }
        let mut written_back = 0;
        while self.lines.len() >= self.capacity {
            let Some((&stamp, &old)) = self.by_age.iter().next() else {
                break;
            };
            self.by_age.remove(&stamp);
            if self.lines.remove(&old).is_some_and(|l| l.dirty) {
                written_back += 1;
            }
        }
        self.clock += 1;
        self.lines.insert(
            line,
            Line {
                stamp: self.clock,
                sectors,
                dirty,
            },
        );
        self.by_age.insert(self.clock, line);
        written_back
    }

    /// A store that does not allocate (global memory is write-through): updates the line's
    /// sectors if it is present.
    pub fn write_through(&mut self, line: u64, sectors: u8) {
        if let Some(l) = self.touch(line) {
            l.sectors |= sectors;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn least_recently_used_line_leaves_first() {
        let mut c = Cache::new(2 * 128);
        assert_eq!(c.lookup(1, 0xf), 0xf);
        c.fill(1, 0xf, false);
        c.fill(2, 0x3, false);
        assert_eq!(c.lookup(1, 0xf), 0, "line 1 hit, now most recent");
        assert_eq!(c.lookup(2, 0xf), 0xc, "two sectors of line 2 missing");
        c.fill(3, 0xf, false); // evicts line 1 (line 2 was used last)
        assert_eq!(c.lookup(1, 0x1), 0x1);
        assert_eq!(c.lookup(2, 0x3), 0);
    }

    #[test]
    fn dirty_evictions_are_counted_and_empty_cache_holds_nothing() {
        let mut c = Cache::new(128);
        assert_eq!(c.fill(1, 0xf, true), 0);
        assert_eq!(c.fill(2, 0xf, false), 1);
        assert_eq!(c.fill(3, 0xf, false), 0);
        let mut none = Cache::new(0);
        assert_eq!(none.fill(1, 0xf, true), 1);
        assert_eq!(none.lookup(1, 0xf), 0xf);
        c.write_through(9, 0xf);
        assert_eq!(c.lookup(9, 0x1), 0x1, "write-through does not allocate");
    }
}
