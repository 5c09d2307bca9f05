//! Dependency rules of the SASS scheduler ([`super`]): whether two instructions of a basic block
//! may trade places. Each rule answers for an ordered pair (the `earlier` item, the `later`
//! one); [`depends`] asks them all. JASM's modules, in Rust: registers, memory with region
//! disjointness, control.

use crate::sass::isa::{Instruction, RegFile, RegSet};

/// Where an item came from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Origin {
    /// ptxas's instruction: never reordered with another original.
    Original,
    /// Added by a rewrite: may move.
    Inserted,
    /// Nothing crosses it (an instruction another rewrite owns, for example).
    Fence,
}

/// A memory state space, as far as the scheduler tells them apart.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Space {
    /// `LDG`/`STG`/`ATOMG`/`RED`, textures.
    Global,
    /// The program's shared memory (`LDS`/`STS`/`ATOMS`/`LDSM`/`STSM`).
    Shared,
    /// Per-thread local memory (`LDL`/`STL`).
    Local,
    /// Constant banks (`LDC`/`ULDC`): read-only.
    Const,
    /// Generic addresses (`LD`/`ST`/`ATOM`): may be any of global, shared or local.
    Generic,
    /// Shared memory a rewrite reserved for itself (the demoter's slots): the program's own
    /// shared accesses never reach it — the rewrite allocated it past everything the program
    /// addresses, and demotion is only correct under that assumption anyway.
    Slots,
    /// An access the scheduler does not understand: conflicts with every other.
    Unknown,
}

/// A base register and a byte range from it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Place {
    /// The base register.
    pub base: (RegFile, u32),
    /// Byte offset from the base.
    pub offset: i64,
    /// Bytes accessed.
    pub bytes: u32,
}

/// A memory access.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Access {
    /// The state space.
    pub space: Space,
    /// Whether it reads memory.
    pub reads: bool,
    /// Whether it writes memory.
    pub writes: bool,
    /// The exact place, where known (a rewrite knows its own; originals are not decoded that far).
    pub place: Option<Place>,
}

impl Access {
    /// Whether the two accesses may touch the same byte with at least one writing.
    pub fn conflicts(&self, other: &Access) -> bool {
        if !(self.writes || other.writes) {
            return false;
        }
        use Space::*;
        match (self.space, other.space) {
            (Unknown, _) | (_, Unknown) => true,
            (Const, _) | (_, Const) => false,
            // A generic address may be anything, the slots included.
            (Generic, _) | (_, Generic) => true,
            (a, b) if a != b => false,
            _ => match (self.place, other.place) {
                (Some(p), Some(q)) if p.base == q.base => {
                    p.offset < q.offset + q.bytes as i64 && q.offset < p.offset + p.bytes as i64
                }
                _ => true,
            },
        }
    }
}

/// One instruction of a block, with what the rules need to know about it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Item {
    /// The instruction (its control bits as they will be written).
    pub inst: Instruction,
    /// Where it came from.
    pub origin: Origin,
    /// Its memory access, if any.
    pub access: Option<Access>,
    /// For an original or a fence: its index in the kernel (the client's bookkeeping).
    pub index: Option<usize>,
}

impl Item {
    /// ptxas's instruction; its memory access classified from its opcode.
    pub fn original(inst: Instruction) -> Item {
        let access = classify(&inst);
        Item {
            inst,
            origin: Origin::Original,
            access,
            index: None,
        }
    }

    /// An instruction a rewrite added, with its exact memory access.
    pub fn inserted(inst: Instruction, access: Option<Access>) -> Item {
        Item {
            inst,
            origin: Origin::Inserted,
            access,
            index: None,
        }
    }

    /// An instruction nothing may cross.
    pub fn fence(inst: Instruction) -> Item {
        let access = classify(&inst);
        Item {
            inst,
            origin: Origin::Fence,
            access,
            index: None,
        }
    }

    /// The same item, recording the kernel index `k`.
    pub fn at(mut self, k: usize) -> Item {
        self.index = Some(k);
        self
    }

    /// The registers it reads (its guard included) and writes.
    pub fn registers(&self) -> (RegSet, RegSet) {
        let du = self.inst.def_use();
        let mut reads = du.reads;
        if self.inst.guard.index < 7 {
            reads.insert(RegFile::Pred, self.inst.guard.index as u32);
        }
        (reads, du.writes)
    }
}

/// The memory access of an original instruction, from its opcode (`None`: it touches no memory).
pub fn classify(inst: &Instruction) -> Option<Access> {
    let (space, reads, writes) = match inst.opcode().as_str() {
        "LDS" | "LDSM" => (Space::Shared, true, false),
        "STS" | "STSM" => (Space::Shared, false, true),
        "ATOMS" => (Space::Shared, true, true),
        "LDG" => (Space::Global, true, false),
        "STG" => (Space::Global, false, true),
        "ATOMG" | "RED" | "REDG" => (Space::Global, true, true),
        "TEX" | "TLD" | "TLD4" | "TMML" | "TXD" | "TXQ" => (Space::Global, true, false),
        "LDL" => (Space::Local, true, false),
        "STL" => (Space::Local, false, true),
        "LDC" | "ULDC" => (Space::Const, true, false),
        "LD" => (Space::Generic, true, false),
        "ST" => (Space::Generic, false, true),
        "ATOM" => (Space::Generic, true, true),
        // Two spaces at once (LDGSTS), surfaces, bulk copies: not told apart.
        // `STAS` (`st.async`) writes another CTA's shared memory.
        "LDGSTS" | "SULD" | "SUST" | "SUATOM" | "SURED" | "UBLKCP" | "UTMALDG" | "UTMASTG"
        | "STAS" => (Space::Unknown, true, true),
        _ => return None,
    };
    Some(Access {
        space,
        reads,
        writes,
        place: None,
    })
}

/// A dependency rule: whether `later` must stay after `earlier` (both of one block, `earlier`
/// first).
pub trait DepRule {
    /// The rule's name (for diagnostics).
    fn name(&self) -> &'static str;
    /// Whether the two must keep their order.
    fn depends(&self, earlier: &Item, later: &Item) -> bool;
}

/// Read-after-write, write-after-read and write-after-write on every register file, guards
/// included; an instruction whose registers are not exactly known depends on everything.
pub struct Registers;

impl DepRule for Registers {
    fn name(&self) -> &'static str {
        "registers"
    }

    fn depends(&self, earlier: &Item, later: &Item) -> bool {
        let exact = |i: &Item| i.inst.is_known() && i.inst.def_use().is_exact();
        if !exact(earlier) || !exact(later) {
            return true;
        }
        let (er, ew) = earlier.registers();
        let (lr, lw) = later.registers();
        ew.intersects(&lr) || ew.intersects(&lw) || er.intersects(&lw)
    }
}

/// Memory order: two accesses that may touch the same byte, one of them writing.
pub struct Memory;

impl DepRule for Memory {
    fn name(&self) -> &'static str {
        "memory"
    }

    fn depends(&self, earlier: &Item, later: &Item) -> bool {
        match (&earlier.access, &later.access) {
            (Some(a), Some(b)) => a.conflicts(b),
            _ => false,
        }
    }
}

/// Control: fences, branches, barriers, calls, synchronisation and unknown instructions keep
/// their place relative to everything.
pub struct Control;

/// Opcodes nothing is moved across.
const CONTROL_OPCODES: &[&str] = &[
    "BRA",
    "BRX",
    "BRXU",
    "JMP",
    "JMX",
    "JMXU",
    "CALL",
    "RET",
    "EXIT",
    "BSSY",
    "BSYNC",
    "BREAK",
    "BPT",
    "KILL",
    "WARPSYNC",
    "BAR",
    "B2R",
    "R2B",
    "MEMBAR",
    "FENCE",
    "ERRBAR",
    "CCTL",
    "CCTLL",
    "DEPBAR",
    "LDGDEPBAR",
    "NANOSLEEP",
    "YIELD",
    "ARRIVES",
    "SYNCS",
    "WARPGROUP",
    "HGMMA",
    "UTMALDG",
    "UTMASTG",
    "UTMAPF",
    "UTMACCTL",
    "UBLKCP",
    "UBLKRED",
    "UBLKPF",
    "ACQBULK",
    "PREEXIT",
    "UCGABAR_ARV",
    "UCGABAR_WAIT",
    "USETMAXREG",
    "ELECT",
    "ENDCOLLECTIVE",
    "PMTRIG",
    "CSMTEST",
    "LEPC",
];

impl Control {
    /// Whether nothing may cross `item`.
    pub fn is_barrier(item: &Item) -> bool {
        item.origin == Origin::Fence
            || !item.inst.is_known()
            || item.inst.branch_offset.is_some()
            || CONTROL_OPCODES.contains(&item.inst.opcode().as_str())
    }
}

impl DepRule for Control {
    fn name(&self) -> &'static str {
        "control"
    }

    fn depends(&self, earlier: &Item, later: &Item) -> bool {
        Control::is_barrier(earlier) || Control::is_barrier(later)
    }
}

/// The first of `rules` that keeps `earlier` before `later`, if any.
pub fn depends<'r>(rules: &[&'r dyn DepRule], earlier: &Item, later: &Item) -> Option<&'r str> {
    rules
        .iter()
        .find(|r| r.depends(earlier, later))
        .map(|r| r.name())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sass::isa::encode::{self, Width, RZ};
    use crate::sass::isa::{Arch, Control as Bits, Pred};

    const A: Arch = Arch::Sm80;

    fn slot(inst: Instruction, offset: i64, writes: bool) -> Item {
        Item::inserted(
            inst,
            Some(Access {
                space: Space::Slots,
                reads: !writes,
                writes,
                place: Some(Place {
                    base: (RegFile::Gpr, 1),
                    offset,
                    bytes: 4,
                }),
            }),
        )
    }

    #[test]
    fn registers_order_true_anti_and_output_dependences_only() {
        let add =
            |d, a, b| Item::original(encode::iadd3(A, d, a, b, RZ as u32, Bits::NONE).unwrap());
        let r = Registers;
        assert!(r.depends(&add(4, 2, 3), &add(5, 4, 3)), "read after write");
        assert!(r.depends(&add(5, 4, 3), &add(4, 2, 3)), "write after read");
        assert!(r.depends(&add(4, 2, 3), &add(4, 5, 6)), "write after write");
        assert!(!r.depends(&add(4, 2, 3), &add(5, 2, 3)), "two reads");
    }

    #[test]
    fn memory_keeps_overlapping_slots_and_separates_spaces() {
        let lds = |d, off| encode::lds(A, d, 1, off, Width::B32, Bits::NONE, Pred::PT).unwrap();
        let sts = |off, s| encode::sts(A, 1, off, s, Width::B32, Bits::NONE, Pred::PT).unwrap();
        let m = Memory;
        assert!(m.depends(&slot(sts(8, 4), 8, true), &slot(lds(5, 8), 8, false)));
        assert!(!m.depends(&slot(sts(8, 4), 8, true), &slot(lds(5, 12), 12, false)));
        assert!(!m.depends(&slot(lds(4, 8), 8, false), &slot(lds(5, 8), 8, false)));
        // The program's own shared store never reaches the slots; a generic one may.
        let program_sts = Item::original(sts(0, 6));
        assert_eq!(program_sts.access.unwrap().space, Space::Shared);
        assert!(!m.depends(&program_sts, &slot(lds(5, 8), 8, false)));
        let mut generic = program_sts.clone();
        generic.access.as_mut().unwrap().space = Space::Generic;
        assert!(m.depends(&generic, &slot(lds(5, 8), 8, false)));
        // Constant loads are read-only; an access not understood conflicts even with them.
        let c = Access {
            space: Space::Const,
            reads: true,
            writes: false,
            place: None,
        };
        let global_store = Access {
            space: Space::Global,
            reads: false,
            writes: true,
            place: None,
        };
        assert!(!c.conflicts(&global_store));
        assert!(c.conflicts(&Access {
            space: Space::Unknown,
            ..global_store
        }));
    }

    #[test]
    fn control_fences_everything() {
        let add = Item::original(encode::iadd3(A, 4, 2, 3, RZ as u32, Bits::NONE).unwrap());
        let fence = Item::fence(encode::iadd3(A, 9, 8, 8, RZ as u32, Bits::NONE).unwrap());
        assert_eq!(
            depends(&[&Registers, &Memory, &Control], &fence, &add),
            Some("control")
        );
        let other = Item::original(encode::iadd3(A, 5, 2, 3, RZ as u32, Bits::NONE).unwrap());
        assert_eq!(
            depends(&[&Registers, &Memory, &Control], &add, &other),
            None
        );
    }
}
