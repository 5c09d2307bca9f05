//! The shared-memory spill area of one kernel and where each demoted value lives in it
//! (RegDem §3.2, "bank-conflict-free layout").
//!
//! One static `.shared` array per kernel, in three regions:
//!
//! ```text
//! [ per-block slots:  word w           at  w·4 ]
//! [ per-warp slots:   word w of warp  v at  K + w·W·4 + v·4 ]      W = warps per block
//! [ per-thread slots: word w of thread t at  K + V + w·B·4 + t·4 ]  B = threads per block (bound)
//! ```
//!
//! The per-block region comes first so that its addresses (`array + w·4`) never move while the
//! other regions grow; the base registers of the other two are computed once the layout is final.
//!
//! Consecutive threads of a warp touch consecutive words (32 distinct banks), so a per-thread
//! access is conflict-free; a per-warp or per-block slot is read by every lane at one address (a
//! broadcast). Every access is `[base + constant]` with a base register computed once at kernel
//! entry (per-thread and per-warp regions) or the array's symbol (per-block region), so a demoted
//! value costs no address arithmetic where it is used.

use crate::machine::bitset::BitSet;

/// Where one demoted value lives: its region and first word (64-bit values take two words).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Slot {
    /// Per-thread words, starting at word index `w` of the per-thread region.
    Thread(u32),
    /// Per-warp words.
    Warp(u32),
    /// Per-block words.
    Block(u32),
}

/// Word allocation for one kernel's spill area. Values whose live ranges never overlap share
/// words (slot colouring, as a register allocator shares registers): [`Layout::alloc_shared`].
#[derive(Clone, Debug, Default)]
pub struct Layout {
    /// What occupies each region: (first word, words, where the value is live).
    occupants: [Vec<(u32, u32, BitSet)>; 3],
    /// Threads per block the area is sized for.
    pub threads: u32,
    /// Words allocated per thread.
    pub thread_words: u32,
    /// Words allocated per warp.
    pub warp_words: u32,
    /// Words allocated per block.
    pub block_words: u32,
    /// Per-thread words holding packed predicates, with the bits handed out in each.
    pub pred_words: Vec<(Slot, u32)>,
}

impl Layout {
    /// A layout for blocks of at most `threads` threads.
    pub fn new(threads: u32) -> Layout {
        Layout {
            threads,
            ..Layout::default()
        }
    }

    /// Warps per block.
    pub fn warps(&self) -> u32 {
        self.threads.div_ceil(32)
    }

    /// Allocates `words` words in the region of `kind` for a value live at the program points
    /// `live`. Per-thread words are reused by values that are never live at the same time; warp
    /// and block words never are: warps of a block (and, under independent thread scheduling,
    /// lanes of a warp) run at different program points, so one warp could overwrite a shared
    /// word with a later value while another still reads the earlier one (found on Triton's
    /// 128×256×64 sm_90 matmul: a block word shared by two uniform values broke warp 1's
    /// `cp.async` addresses).
    pub fn alloc_shared(&mut self, kind: Slot, words: u32, live: &BitSet) -> Slot {
        let shares = matches!(kind, Slot::Thread(_));
        let region = match kind {
            Slot::Block(_) => 0,
            Slot::Warp(_) => 1,
            Slot::Thread(_) => 2,
        };
        let occupants = &self.occupants[region];
        let clash = |w: u32| {
            occupants.iter().any(|(start, len, other)| {
                *start < w + words
                    && w < start + len
                    && (!shares || live.iter().any(|p| other.contains(p)))
            })
        };
        let mut w = 0;
        while clash(w) {
            w += 1;
        }
        self.occupants[region].push((w, words, live.clone()));
        let top = w + words;
        match kind {
            Slot::Block(_) => {
                self.block_words = self.block_words.max(top);
                Slot::Block(w)
            }
            Slot::Warp(_) => {
                self.warp_words = self.warp_words.max(top);
                Slot::Warp(w)
            }
            Slot::Thread(_) => {
                self.thread_words = self.thread_words.max(top);
                Slot::Thread(w)
            }
        }
    }

    /// A bit for one demoted predicate in a per-thread word of packed predicates: the next free
    /// bit of the last such word, or bit 0 of a new word once 32 are taken. The word is allocated
    /// live at every point in `all` (it holds several values, so it shares with nothing else).
    pub fn alloc_pred_bit(&mut self, all: &BitSet) -> (Slot, u32) {
        if let Some((slot, used)) = self.pred_words.last_mut() {
            if *used < 32 {
                *used += 1;
                return (*slot, *used - 1);
            }
        }
        let slot = self.alloc_shared(Slot::Thread(0), 1, all);
        self.pred_words.push((slot, 1));
        (slot, 0)
    }

    /// Byte offset of the per-warp region.
    fn warp_region(&self) -> u64 {
        u64::from(self.block_words) * 4
    }

    /// Byte offset of the per-thread region.
    fn thread_region(&self) -> u64 {
        self.warp_region() + u64::from(self.warp_words) * u64::from(self.warps()) * 4
    }

    /// Total bytes of the area.
    pub fn bytes(&self) -> u64 {
        self.thread_region() + u64::from(self.thread_words) * u64::from(self.threads) * 4
    }

    /// The constant offset of word `k` of `slot` from its base: the array (per-block slots), the
    /// per-warp base register (array + per-warp region + v·4) or the per-thread base register
    /// (array + per-thread region + t·4).
    pub fn offset(&self, slot: Slot, k: u32) -> i64 {
        let o = match slot {
            Slot::Thread(w) => u64::from(w + k) * u64::from(self.threads) * 4,
            Slot::Warp(w) => u64::from(w + k) * u64::from(self.warps()) * 4,
            Slot::Block(w) => u64::from(w + k) * 4,
        };
        o as i64
    }

    /// Byte offset of the per-warp region (part of the per-warp base register).
    pub fn warp_base_offset(&self) -> i64 {
        self.warp_region() as i64
    }

    /// Byte offset of the per-thread region (part of the per-thread base register).
    pub fn thread_base_offset(&self) -> i64 {
        self.thread_region() as i64
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A value live at program point 0 (so all such values interfere).
    fn live_everywhere() -> BitSet {
        let mut b = BitSet::new(1);
        b.insert(0);
        b
    }

    #[test]
    fn regions_and_offsets() {
        let mut l = Layout::new(256);
        let all = live_everywhere();
        let a = l.alloc_shared(Slot::Thread(0), 1, &all);
        let b = l.alloc_shared(Slot::Thread(0), 2, &all);
        let w = l.alloc_shared(Slot::Warp(0), 1, &all);
        let k = l.alloc_shared(Slot::Block(0), 1, &all);
        assert_eq!(
            (a, b, w, k),
            (
                Slot::Thread(0),
                Slot::Thread(1),
                Slot::Warp(0),
                Slot::Block(0)
            )
        );
        // Thread words: word w of thread t at w·256·4 + t·4 from the thread base.
        assert_eq!(l.offset(b, 0), 1024);
        assert_eq!(l.offset(b, 1), 2048);
        // One block word, then 8 warps × 1 word, then the thread region.
        assert_eq!(l.offset(k, 0), 0);
        assert_eq!(l.warp_base_offset(), 4);
        assert_eq!(l.offset(w, 0), 0);
        assert_eq!(l.thread_base_offset(), 4 + 32);
        assert_eq!(l.bytes(), 36 + 3 * 1024);
    }

    #[test]
    fn values_never_live_together_share_words() {
        let set = |v: &[usize]| {
            let mut b = BitSet::new(16);
            v.iter().for_each(|&i| {
                b.insert(i);
            });
            b
        };
        let mut l = Layout::new(32);
        let a = l.alloc_shared(Slot::Thread(0), 1, &set(&[0, 1, 2]));
        let b = l.alloc_shared(Slot::Thread(0), 1, &set(&[3, 4]));
        let c = l.alloc_shared(Slot::Thread(0), 2, &set(&[2, 3]));
        let d = l.alloc_shared(Slot::Thread(0), 1, &set(&[5]));
        assert_eq!(
            (a, b, c, d),
            (
                Slot::Thread(0),
                Slot::Thread(0),
                Slot::Thread(1),
                Slot::Thread(0)
            )
        );
        assert_eq!(l.thread_words, 3);
        // Warp and block words are never shared, even by values never live together.
        let e = l.alloc_shared(Slot::Block(0), 1, &set(&[0]));
        let f = l.alloc_shared(Slot::Block(0), 1, &set(&[9]));
        let g = l.alloc_shared(Slot::Warp(0), 1, &set(&[0]));
        let h = l.alloc_shared(Slot::Warp(0), 1, &set(&[9]));
        assert_eq!(
            (e, f, g, h),
            (Slot::Block(0), Slot::Block(1), Slot::Warp(0), Slot::Warp(1))
        );
    }

    #[test]
    fn predicates_pack_32_to_a_word() {
        let mut l = Layout::new(64);
        let all = live_everywhere();
        let other = l.alloc_shared(Slot::Thread(0), 1, &all);
        let bits: Vec<(Slot, u32)> = (0..33).map(|_| l.alloc_pred_bit(&all)).collect();
        assert_eq!(other, Slot::Thread(0));
        assert!(bits[..32]
            .iter()
            .enumerate()
            .all(|(i, &(s, b))| s == Slot::Thread(1) && b == i as u32));
        assert_eq!(bits[32], (Slot::Thread(2), 0));
        assert_eq!(l.thread_words, 3);
    }

    #[test]
    fn consecutive_threads_hit_distinct_banks() {
        let mut l = Layout::new(96);
        let all = live_everywhere();
        let s = l.alloc_shared(Slot::Thread(0), 1, &all);
        let s2 = l.alloc_shared(Slot::Thread(0), 1, &all);
        for slot in [s, s2] {
            let banks: std::collections::BTreeSet<i64> = (0..32)
                .map(|t| (l.offset(slot, 0) + t * 4) / 4 % 32)
                .collect();
            assert_eq!(banks.len(), 32);
        }
    }
}
