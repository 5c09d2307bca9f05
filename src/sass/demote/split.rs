//! Part of a frame to shared memory, the rest left in local memory: where the whole frame does
//! not fit the block's shared memory (the 48 KiB a block may declare statically, or the
//! occupancy the launch has), the most-used frame slots move and the others stay — RegDem §3's
//! local-to-shared move, applied to as much of the frame as the never-worse rule allows.
//!
//! After the move R1 is the thread's shared-memory base ([`super::rewrite::prologue`]), so the
//! slots that stay are addressed through a uniform register instead: ptxas's stack pointer is
//! the same in every thread (local addresses are per-thread windows), `ULDC URk, c[0x0][0x28]`
//! and `UIADD3 URk, URk, -size, URZ` rebuild it, and each access that stays becomes
//! `STL [URk+o']` / `LDL [URk+o']` (the `[R+UR+imm]` form with `R` = RZ, which ptxas itself emits
//! on sm_90). That needs one uniform register the kernel never touches; at 255 registers no
//! general register is free, but uniform ones usually are (Triton's kernels stop at UR35).
//!
//! Slots are the connected ranges of frame words that some access covers together (a 64- or
//! 128-bit spill is one slot); a slot moves or stays whole. The slots that move are chosen by
//! accesses per word (most first), and the staying ones are packed again, each at an offset
//! congruent to its old one modulo 16, so every access keeps its alignment.

use std::collections::{BTreeMap, BTreeSet};

use super::frame::{Frame, LocalAccess};
use super::layout::{Piece, SharedFrame};
use crate::sass::isa::{Instruction, RegFile};

/// A range of frame words that accesses cover together.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Slot {
    /// First word.
    pub first: u32,
    /// Words.
    pub words: u32,
    /// Accesses that touch it.
    pub accesses: u32,
}

/// The slots of `frame`, in word order.
pub fn slots(frame: &Frame) -> Vec<Slot> {
    let mut ranges: Vec<(u32, u32, u32)> = frame
        .accesses
        .iter()
        .map(|a| {
            let first = a.offset as u32 / 4;
            let last = (a.offset as u32 + a.width.bytes() - 1) / 4;
            (first, last + 1, 1)
        })
        .collect();
    ranges.sort();
    let mut out: Vec<Slot> = Vec::new();
    for (first, end, n) in ranges {
        match out.last_mut() {
            Some(s) if first < s.first + s.words => {
                s.words = s.words.max(end - s.first);
                s.accesses += n;
            }
            _ => out.push(Slot {
                first,
                words: end - first,
                accesses: n,
            }),
        }
    }
    out
}

/// Where each frame word goes: a word of the shared region, or a new local offset.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Split {
    /// The shared region of the words that move (its `words` = how many move).
    pub shared: SharedFrame,
    /// Old frame word → word of the shared region.
    pub to_shared: BTreeMap<u32, u32>,
    /// Old frame word → byte offset in the new, smaller frame.
    pub to_local: BTreeMap<u32, u32>,
    /// Bytes of the new frame (a multiple of 16, as ptxas's frames are).
    pub local_bytes: u32,
}

/// Where one access goes.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Placement {
    /// Shared-memory pieces, as [`SharedFrame::pieces`].
    Shared(Vec<Piece>),
    /// The same access at this offset of the new frame.
    Local(i32),
}

impl Split {
    /// Moves at most `budget` words of `slots` (for blocks of `threads` threads): the slots
    /// with the most accesses per word first, a slot that does not fit skipped.
    pub fn choose(slots: &[Slot], threads: u32, budget: u32) -> Split {
        let mut order: Vec<&Slot> = slots.iter().collect();
        // accesses/words, descending, compared without division; then lower offsets first.
        order.sort_by(|a, b| {
            (b.accesses as u64 * a.words as u64)
                .cmp(&(a.accesses as u64 * b.words as u64))
                .then(a.first.cmp(&b.first))
        });
        let mut moved = BTreeSet::new();
        let mut used = 0;
        for s in order {
            if used + s.words <= budget {
                used += s.words;
                moved.insert(s.first);
            }
        }
        let mut to_shared = BTreeMap::new();
        let mut to_local = BTreeMap::new();
        let mut cursor = 0u32;
        for s in slots {
            if moved.contains(&s.first) {
                for k in 0..s.words {
                    let next = to_shared.len() as u32;
                    to_shared.insert(s.first + k, next);
                }
            } else {
                let old = s.first * 4;
                let at = cursor + (old % 16 + 16 - cursor % 16) % 16;
                for k in 0..s.words {
                    to_local.insert(s.first + k, at + 4 * k);
                }
                cursor = at + 4 * s.words;
            }
        }
        Split {
            shared: SharedFrame {
                threads,
                words: used,
            },
            to_shared,
            to_local,
            local_bytes: cursor.next_multiple_of(16),
        }
    }

    /// Where access `a` goes (its slot moves or stays whole).
    pub fn place(&self, a: &LocalAccess) -> Placement {
        let word = a.offset as u32 / 4;
        if let Some(&at) = self.to_local.get(&word) {
            return Placement::Local((at + a.offset as u32 % 4) as i32);
        }
        Placement::Shared(self.shared.pieces_at(a, |w| self.to_shared[&w]))
    }
}

/// A uniform register no instruction of `body` reads or writes, the highest first (`None` when
/// every one is used, or some instruction may touch any of them). A call's calling-convention
/// registers are not counted: [`super::frame::analyse`] accepts only calls into the kernel's own
/// code, which is in `body` and counted instruction by instruction.
pub fn free_uniform_register(body: &[Instruction]) -> Option<u32> {
    let mut used = BTreeSet::new();
    for (k, i) in body.iter().enumerate() {
        if i.is_call() {
            continue;
        }
        let du = i.def_use();
        let f = RegFile::Ugpr;
        if du.any_read[f.index()] || du.any_write[f.index()] {
            log::debug!(
                "{} at {:#x} may touch any uniform register",
                i.mnemonic(),
                k * 16
            );
            return None;
        }
        used.extend(du.reads.iter(f));
        used.extend(du.writes.iter(f));
    }
    (0..RegFile::Ugpr.zero() as u32)
        .rev()
        .find(|r| !used.contains(r))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sass::isa::encode::Width;
    use crate::sass::isa::{Control, Pred};

    fn access(store: bool, width: Width, data: u32, offset: i32) -> LocalAccess {
        LocalAccess {
            index: 0,
            store,
            data,
            width,
            offset,
            guard: Pred::PT,
            control: Control::NONE,
        }
    }

    fn frame(accesses: Vec<LocalAccess>, size: u32) -> Frame {
        Frame {
            sp_def: 0,
            alloc: 1,
            size,
            accesses,
        }
    }

    #[test]
    fn slots_join_what_one_access_covers() {
        let f = frame(
            vec![
                access(true, Width::B128, 4, 16),
                access(false, Width::B32, 5, 20),
                access(true, Width::B32, 6, 0),
                access(false, Width::B32, 6, 0),
                access(true, Width::B64, 8, 8),
            ],
            32,
        );
        let s = slots(&f);
        assert_eq!(
            s,
            vec![
                Slot {
                    first: 0,
                    words: 1,
                    accesses: 2
                },
                Slot {
                    first: 2,
                    words: 2,
                    accesses: 1
                },
                Slot {
                    first: 4,
                    words: 4,
                    accesses: 2
                },
            ]
        );
    }

    #[test]
    fn busiest_slots_move_and_the_rest_keep_their_alignment() {
        let f = frame(
            vec![
                access(true, Width::B32, 6, 0),
                access(false, Width::B32, 6, 0),
                access(false, Width::B32, 6, 0),
                access(true, Width::B64, 8, 8),
                access(true, Width::B128, 12, 16),
                access(false, Width::U8, 3, 33),
            ],
            48,
        );
        let s = slots(&f);
        // Word 0 (3 accesses) and word 8 (1 access per word, lowest cost) fit a budget of 2.
        let split = Split::choose(&s, 64, 2);
        assert_eq!(split.shared.words, 2);
        assert_eq!(
            split.to_shared.keys().copied().collect::<Vec<_>>(),
            vec![0, 8]
        );
        // The 64-bit slot at 8 and the 128-bit slot at 16 stay, packed at offsets congruent
        // modulo 16: 8 -> 8, 16 -> 16.
        assert_eq!(split.to_local[&2], 8);
        assert_eq!(split.to_local[&4], 16);
        assert_eq!(split.local_bytes, 32);
        assert_eq!(
            split.place(&access(true, Width::B128, 12, 16)),
            Placement::Local(16)
        );
        match split.place(&access(false, Width::U8, 3, 33)) {
            Placement::Shared(p) => {
                assert_eq!(p.len(), 1);
                assert_eq!((p[0].width, p[0].offset), (Width::U8, 64 * 4 + 1));
            }
            other => panic!("{other:?}"),
        }
        // Nothing moves with no budget: the frame is packed again, no larger than before.
        let none = Split::choose(&s, 64, 0);
        assert!(none.to_shared.is_empty() && none.local_bytes <= 48);
        // Everything moves with the whole frame as budget.
        let all = Split::choose(&s, 64, 12);
        assert!(all.to_local.is_empty() && all.local_bytes == 0);
        match all.place(&access(true, Width::B64, 8, 8)) {
            Placement::Shared(p) => assert_eq!(
                p.iter().map(|p| p.offset).collect::<Vec<_>>(),
                vec![
                    all.to_shared[&2] as i32 * 256,
                    all.to_shared[&3] as i32 * 256
                ]
            ),
            other => panic!("{other:?}"),
        }
    }
}
