//! Where a moved frame lives in shared memory: RegDem §3's bank-conflict-free per-thread layout,
//! word `w` of thread `t` at `base + w·n·4 + t·4` for `n` threads per block, so the 32 lanes of a
//! warp touching the same frame word hit 32 consecutive words (32 banks, one wavefront).
//!
//! The region is placed *after* the launch's dynamic shared memory, whose size the code reads at
//! run time: ptxas addresses `extern .shared` arrays as immediates from the end of the static
//! area it assembled (checked on sm_80 and sm_90: `STS [R4.X4+0x100]` with 0x100 bytes of
//! static shared memory; `UMOV UR4, 0x400` on sm_90 with its 1 KiB reservation), so the region
//! cannot go at the old end of the static area. Growing `.nv.shared.<k>` by [`SharedFrame::bytes`]
//! makes the block's window `S + X + D` bytes; the region is `[align4(S + D), +n·words·4)`,
//! inside it for every `D`. On sm_90 a kernel with no shared memory at all gets `S = 0x400`
//! (ptxas's system-reserved first KiB stays untouched) and its addresses carry the block's rank
//! in the cluster at bit 24, as ptxas's own do.

use super::frame::LocalAccess;
use crate::sass::isa::encode::{Width, RZ};

/// The layout of one kernel's moved frame.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SharedFrame {
    /// Threads per block the layout is built for (the launch must not exceed it).
    pub threads: u32,
    /// Frame words (4 bytes each).
    pub words: u32,
}

/// One shared-memory access that replaces (part of) a local one.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Piece {
    /// Width of this piece (wide accesses are split into 32-bit words).
    pub width: Width,
    /// Data register (RZ stays RZ).
    pub data: u32,
    /// Offset from the thread's base (`R1` after the prologue).
    pub offset: i32,
}

impl SharedFrame {
    /// The layout of a `frame_bytes`-byte frame for blocks of at most `threads` threads.
    pub fn new(frame_bytes: u32, threads: u32) -> SharedFrame {
        SharedFrame {
            threads,
            words: frame_bytes.div_ceil(4),
        }
    }

    /// Bytes of the region itself.
    pub fn region_bytes(&self) -> u64 {
        self.words as u64 * self.threads as u64 * 4
    }

    /// Bytes to add to the static shared memory: the region and up to 3 bytes of alignment
    /// (the base is rounded up to a word), rounded up to 16.
    pub fn bytes(&self) -> u64 {
        (self.region_bytes() + 3).next_multiple_of(16)
    }

    /// The offset from the thread's base of local frame byte `local`.
    pub fn offset(&self, local: i32) -> i32 {
        let (w, b) = (local / 4, local % 4);
        w * self.threads as i32 * 4 + b
    }

    /// The shared-memory accesses that replace `a`: one for 8- to 32-bit accesses, one per word
    /// for 64- and 128-bit ones (consecutive frame words are `n·4` bytes apart).
    pub fn pieces(&self, a: &LocalAccess) -> Vec<Piece> {
        self.pieces_at(a, |word| word)
    }

    /// [`SharedFrame::pieces`] with frame word `w` at region word `region_word(w)` (a part of
    /// a frame packs the words that move, `super::split`).
    pub fn pieces_at(&self, a: &LocalAccess, region_word: impl Fn(u32) -> u32) -> Vec<Piece> {
        let word = a.offset as u32 / 4;
        let at = |w: u32, byte: u32| (region_word(w) * self.threads * 4 + byte) as i32;
        let n = a.width.regs();
        if n == 1 {
            return vec![Piece {
                width: a.width,
                data: a.data,
                offset: at(word, a.offset as u32 % 4),
            }];
        }
        (0..n)
            .map(|k| Piece {
                width: Width::B32,
                data: if a.data == RZ as u32 {
                    a.data
                } else {
                    a.data + k
                },
                offset: at(word + k, 0),
            })
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sass::isa::{Control, Pred};

    fn access(width: Width, data: u32, offset: i32) -> LocalAccess {
        LocalAccess {
            index: 0,
            store: true,
            data,
            width,
            offset,
            guard: Pred::PT,
            control: Control::NONE,
        }
    }

    #[test]
    fn words_are_interleaved_per_thread() {
        let l = SharedFrame::new(10, 128);
        assert_eq!(l.words, 3);
        assert_eq!(l.region_bytes(), 3 * 128 * 4);
        assert!(l.bytes() >= l.region_bytes() + 3 && l.bytes() % 16 == 0);
        assert_eq!(l.offset(0), 0);
        assert_eq!(l.offset(4), 512);
        assert_eq!(l.offset(9), 1025);
    }

    #[test]
    fn wide_accesses_split_into_words() {
        let l = SharedFrame::new(32, 64);
        let p = l.pieces(&access(Width::B128, 8, 16));
        let want: Vec<(u32, i32)> = vec![(8, 1024), (9, 1280), (10, 1536), (11, 1792)];
        assert_eq!(
            p.iter().map(|p| (p.data, p.offset)).collect::<Vec<_>>(),
            want
        );
        assert!(p.iter().all(|p| p.width == Width::B32));
        let z = l.pieces(&access(Width::B64, RZ as u32, 0));
        assert!(z.iter().all(|p| p.data == RZ as u32));
        let b = l.pieces(&access(Width::U8, 3, 6));
        assert_eq!((b.len(), b[0].width, b[0].offset), (1, Width::U8, 258));
    }
}
