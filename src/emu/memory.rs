//! The emulator's memory model: state spaces (PTX ISA §5.1), the generic address map, and
//! bounds- and alignment-checked storage.
//!
//! Generic addresses (§5.1.6 "Generic addressing") are 64-bit; the emulator gives every state
//! space its own 1 TiB window, told apart by bits 40..47 of the address:
//!
//! ```text
//!   window  generic address range                 space address (what .space instructions use)
//!   1       0x0100_0000_0000 .. 0x01ff_ffff_ffff  global  = the generic address itself
//!   2       0x0200_0000_0000 .. 0x02ff_ffff_ffff  shared  = generic - 0x0200_0000_0000 (per CTA)
//!   3       0x0300_0000_0000 .. 0x03ff_ffff_ffff  local   = generic - 0x0300_0000_0000 (per thread)
//!   4       0x0400_0000_0000 .. 0x04ff_ffff_ffff  const   = generic - 0x0400_0000_0000
//!   5       0x0500_0000_0000 .. 0x05ff_ffff_ffff  param   = generic - 0x0500_0000_0000 (kernel params)
//!   6       0x0600_0000_0000 ..                   code    (function addresses for indirect calls)
//! ```
//!
//! `cvta.space` adds the window base and `cvta.to.space` subtracts it — plain arithmetic, as on
//! hardware; an address outside its window then fails the bounds check of the access that uses
//! it. Global memory is a set of allocations (kernel buffers and module `.global` variables)
//! separated by unmapped gaps of [`GLOBAL_GAP`] bytes, so running past the end of a buffer is an
//! error rather than a read of its neighbour. Every access is checked: it must lie entirely inside
//! one allocation (or the CTA's shared memory, the thread's local stack, the constant bank, the
//! kernel parameter block), and be aligned to its size (vector accesses: to the whole vector).
//! Violations are [`Fault`]s, which the interpreter reports with the instruction that caused them.
//!
//! Memory that nothing initialised reads as zero (shared memory at CTA start, local memory,
//! `.global` variables without initialiser): deterministic, documented in docs/emulator.md.

use std::fmt;

use super::domain::Space;

/// Bit position of the window number in a generic address.
pub const WINDOW_SHIFT: u32 = 40;
/// Start of the global window (global addresses are generic addresses).
pub const GLOBAL_BASE: u64 = 1 << WINDOW_SHIFT;
/// Start of the shared window.
pub const SHARED_BASE: u64 = 2 << WINDOW_SHIFT;
/// Start of the local window.
pub const LOCAL_BASE: u64 = 3 << WINDOW_SHIFT;
/// Start of the constant window.
pub const CONST_BASE: u64 = 4 << WINDOW_SHIFT;
/// Start of the kernel-parameter window.
pub const PARAM_BASE: u64 = 5 << WINDOW_SHIFT;
/// Start of the code window: function `i` has address `CODE_BASE + 16 * i`.
pub const CODE_BASE: u64 = 6 << WINDOW_SHIFT;
/// Unmapped bytes between two global allocations.
pub const GLOBAL_GAP: u64 = 64 * 1024;
/// Alignment of global allocations.
pub const GLOBAL_ALIGN: u64 = 256;

/// Where a checked access landed (also the key a symbolic domain's memory overlay uses).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Region {
    /// Global allocation number `n`.
    Global(u32),
    /// The CTA's shared memory.
    Shared,
    /// The shared memory of CTA rank `n` of the cluster (another CTA's).
    PeerShared(u8),
    /// The local stack of lane `n` of the warp.
    Local(u8),
    /// The constant bank.
    Const,
    /// The kernel parameter block.
    KernelParam,
    /// The `.param` slots of the current call frame, lane `n`.
    FrameParam(u8),
}

/// A memory access that is not allowed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Fault {
    /// Outside every allocation of the space.
    OutOfBounds {
        /// The space.
        space: Space,
        /// The address used (space address, or generic for generic accesses).
        addr: u64,
        /// Access size.
        size: u32,
        /// What lies nearby, for the message.
        detail: String,
    },
    /// Not aligned to the access size.
    Misaligned {
        /// The space.
        space: Space,
        /// The address.
        addr: u64,
        /// The required alignment.
        align: u32,
    },
    /// A store to read-only memory (constant bank, kernel parameters).
    ReadOnly {
        /// The space.
        space: Space,
        /// The address.
        addr: u64,
    },
}

impl fmt::Display for Fault {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Fault::OutOfBounds {
                space,
                addr,
                size,
                detail,
            } => write!(
                f,
                "out-of-bounds {} access of {size} bytes at {addr:#x}{}{detail}",
                space_name(*space),
                if detail.is_empty() { "" } else { ": " }
            ),
            Fault::Misaligned { space, addr, align } => write!(
                f,
                "misaligned {} access at {addr:#x} (needs {align}-byte alignment)",
                space_name(*space)
            ),
            Fault::ReadOnly { space, addr } => {
                write!(
                    f,
                    "store to read-only {} memory at {addr:#x}",
                    space_name(*space)
                )
            }
        }
    }
}

/// The PTX name of a space.
pub fn space_name(s: Space) -> &'static str {
    match s {
        Space::Generic => "generic",
        Space::Global => "global",
        Space::Shared => "shared",
        Space::Local => "local",
        Space::Const => "const",
        Space::Param => "param",
    }
}

/// Where a `.shared::cluster` address holds its CTA: address `(rank + 1) << 24 | offset` names
/// `offset` in the shared memory of CTA `rank` of the cluster; an address below `1 << 24` is the
/// executing CTA's own (a `.shared::cta` address is a valid `.shared::cluster` one). Shared memory
/// is at most 227 KiB, so the offsets fit.
pub const CLUSTER_RANK_SHIFT: u32 = 24;

/// The `.shared::cluster` address of `offset` in CTA `rank`'s shared memory (`mapa`).
pub fn cluster_shared_addr(rank: u32, offset: u64) -> u64 {
    (u64::from(rank) + 1) << CLUSTER_RANK_SHIFT | (offset & ((1 << CLUSTER_RANK_SHIFT) - 1))
}

/// The CTA rank a shared address names (`None`: the executing CTA's own) and its offset.
pub fn split_cluster_shared(addr: u64) -> (Option<u32>, u64) {
    match addr >> CLUSTER_RANK_SHIFT {
        0 => (None, addr),
        r => (Some((r - 1) as u32), addr & ((1 << CLUSTER_RANK_SHIFT) - 1)),
    }
}

/// The space and space address a generic address denotes, if it lies in a data window.
pub fn classify_generic(addr: u64) -> Option<(Space, u64)> {
    match addr >> WINDOW_SHIFT {
        1 => Some((Space::Global, addr)),
        2 => Some((Space::Shared, addr - SHARED_BASE)),
        3 => Some((Space::Local, addr - LOCAL_BASE)),
        4 => Some((Space::Const, addr - CONST_BASE)),
        5 => Some((Space::Param, addr - PARAM_BASE)),
        _ => None,
    }
}

/// The generic window base of a space (global: 0, its addresses are already generic).
pub fn window_base(s: Space) -> u64 {
    match s {
        Space::Generic | Space::Global => 0,
        Space::Shared => SHARED_BASE,
        Space::Local => LOCAL_BASE,
        Space::Const => CONST_BASE,
        Space::Param => PARAM_BASE,
    }
}

/// Checks that `[off, off+size)` lies in `[0, len)` and `addr` is aligned.
pub fn check_range(space: Space, addr: u64, off: u64, size: u32, len: u64) -> Result<(), Fault> {
    if addr % u64::from(size.max(1)) != 0 {
        return Err(Fault::Misaligned {
            space,
            addr,
            align: size,
        });
    }
    if off.checked_add(u64::from(size)).is_none_or(|end| end > len) {
        return Err(Fault::OutOfBounds {
            space,
            addr,
            size,
            detail: format!("the {} area is {len} bytes", space_name(space)),
        });
    }
    Ok(())
}

/// One global allocation.
#[derive(Clone, Debug)]
pub struct Allocation {
    /// What it is (`arg2`, a variable name), for messages and outputs.
    pub name: String,
    /// Its global (= generic) address.
    pub base: u64,
    /// Its bytes.
    pub data: Vec<u8>,
}

/// Global memory: allocations in increasing address order.
#[derive(Clone, Debug, Default)]
pub struct GlobalMem {
    /// The allocations, sorted by base.
    pub allocs: Vec<Allocation>,
}

impl GlobalMem {
    /// Adds an allocation of `data` named `name` aligned to at least `align`; returns its index
    /// and address.
    pub fn alloc(&mut self, name: &str, data: Vec<u8>, align: u64) -> (u32, u64) {
        let align = align.max(GLOBAL_ALIGN).next_power_of_two();
        let start = match self.allocs.last() {
            Some(a) => a.base + a.data.len() as u64 + GLOBAL_GAP,
            None => GLOBAL_BASE + GLOBAL_GAP,
        };
        let base = start.div_ceil(align) * align;
        self.allocs.push(Allocation {
            name: name.to_string(),
            base,
            data,
        });
        ((self.allocs.len() - 1) as u32, base)
    }

    /// The allocation and offset of a checked access `[addr, addr+size)`.
    pub fn locate(&self, addr: u64, size: u32) -> Result<(u32, u64), Fault> {
        if addr % u64::from(size.max(1)) != 0 {
            return Err(Fault::Misaligned {
                space: Space::Global,
                addr,
                align: size,
            });
        }
        // Last allocation whose base is <= addr.
        let i = self.allocs.partition_point(|a| a.base <= addr);
        if i > 0 {
            let a = &self.allocs[i - 1];
            let off = addr - a.base;
            if off + u64::from(size) <= a.data.len() as u64 {
                return Ok(((i - 1) as u32, off));
            }
        }
        Err(Fault::OutOfBounds {
            space: Space::Global,
            addr,
            size,
            detail: self.describe_near(addr),
        })
    }

    /// Words for the allocations around `addr`.
    fn describe_near(&self, addr: u64) -> String {
        let i = self.allocs.partition_point(|a| a.base <= addr);
        let mut parts = Vec::new();
        if i > 0 {
            let a = &self.allocs[i - 1];
            let end = a.base + a.data.len() as u64;
            parts.push(format!(
                "{} bytes past the end of `{}` ({} bytes at {:#x})",
                addr.saturating_sub(end),
                a.name,
                a.data.len(),
                a.base
            ));
        }
        if let Some(b) = self.allocs.get(i) {
            parts.push(format!(
                "{} bytes before `{}` (at {:#x})",
                b.base - addr,
                b.name,
                b.base
            ));
        }
        if parts.is_empty() {
            "no global allocation".into()
        } else {
            parts.join("; ")
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn allocations_are_separated_and_checked() {
        let mut g = GlobalMem::default();
        let (_, a) = g.alloc("a", vec![0; 100], 4);
        let (_, b) = g.alloc("b", vec![0; 16], 4);
        assert!(b >= a + 100 + GLOBAL_GAP);
        assert_eq!(a % GLOBAL_ALIGN, 0);
        assert_eq!(g.locate(a + 96, 4).unwrap(), (0, 96));
        assert!(matches!(
            g.locate(a + 100, 4),
            Err(Fault::OutOfBounds { .. })
        ));
        assert!(matches!(g.locate(a + 2, 4), Err(Fault::Misaligned { .. })));
        assert_eq!(g.locate(b, 8).unwrap(), (1, 0));
        let msg = g.locate(a + 104, 4).unwrap_err().to_string();
        assert!(msg.contains("4 bytes past the end of `a`"), "{msg}");
    }

    #[test]
    fn generic_windows() {
        assert_eq!(classify_generic(SHARED_BASE + 8), Some((Space::Shared, 8)));
        assert_eq!(
            classify_generic(GLOBAL_BASE + 8),
            Some((Space::Global, GLOBAL_BASE + 8))
        );
        assert_eq!(classify_generic(0), None);
        assert_eq!(classify_generic(CODE_BASE), None);
    }
}
