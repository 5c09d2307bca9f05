//! The 128-bit SASS instruction word of sm_70…sm_90 and its common fields: opcode key, guard
//! predicate and the scheduling control bits.
//!
//! Reference: `sass-and-cubin-format.md` §0 items 1–2 and §6.1–6.2. Bit numbers run over the
//! little-endian 128-bit value `lo | hi << 64` as the instruction is stored.
//!
//! | bits | field |
//! |---|---|
//! | [0:11] + 91 | opcode key (bit 91 marks the uniform/extended form) |
//! | [12:14], 15 | guard predicate (7 = PT), negation |
//! | [105:108] | stall count |
//! | 109 | yield bit (`usched_info` bit 4; 0 is shown as `Y`) |
//! | [110:112] | write scoreboard (7 = none) |
//! | [113:115] | read scoreboard (7 = none) |
//! | [116:121] | wait mask (bit k waits on scoreboard k) |
//! | [122:125] | reuse flags (122 = a, 123 = b, 124 = c, 125 = 4th) |

use std::fmt;

/// Bits `[lo, lo + n)` of `w` (n ≤ 64).
pub fn bits(w: u128, lo: u32, n: u32) -> u64 {
    if n == 0 || lo >= 128 {
        return 0;
    }
    let m = if n >= 64 { u64::MAX } else { (1u64 << n) - 1 };
    ((w >> lo) as u64) & m
}

/// `w` with bits `[lo, lo + n)` replaced by `v` (extra high bits of `v` are dropped).
pub fn with_bits(w: u128, lo: u32, n: u32, v: u64) -> u128 {
    if n == 0 || lo >= 128 {
        return w;
    }
    let m: u128 = if n >= 64 {
        u64::MAX as u128
    } else {
        (1u128 << n) - 1
    };
    (w & !(m << lo)) | (((v as u128) & m) << lo)
}

/// A mask of bits `[lo, lo + n)`.
pub fn mask(lo: u32, n: u32) -> u128 {
    with_bits(0, lo, n, u64::MAX)
}

/// The opcode key: bits [0:11] with bit 91 as bit 12.
pub fn opcode_key(w: u128) -> u16 {
    (bits(w, 0, 12) | bits(w, 91, 1) << 12) as u16
}

/// Mask of the opcode key bits.
pub const OPCODE_MASK: u128 = 0xfff | (1u128 << 91);

/// A predicate operand: index 0–6, 7 = PT (true); with negation.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Pred {
    /// Register index (7 = PT/UPT).
    pub index: u8,
    /// Negated (`!P0`).
    pub negated: bool,
}

impl Pred {
    /// The always-true, non-negated predicate.
    pub const PT: Pred = Pred {
        index: 7,
        negated: false,
    };

    /// Whether this guard always executes (`PT`, not negated).
    pub fn is_true(self) -> bool {
        self.index == 7 && !self.negated
    }

    /// Reads the 4-bit guard at [12:15].
    pub fn guard(w: u128) -> Pred {
        Pred {
            index: bits(w, 12, 3) as u8,
            negated: bits(w, 15, 1) == 1,
        }
    }

    /// Writes this guard into [12:15].
    pub fn apply_guard(self, w: u128) -> u128 {
        let w = with_bits(w, 12, 3, self.index as u64);
        with_bits(w, 15, 1, self.negated as u64)
    }

    /// Prints with the given register-file prefix (`P` or `UP`).
    pub fn display(self, prefix: &str) -> String {
        let n = if self.negated { "!" } else { "" };
        if self.index == 7 {
            format!("{n}{prefix}T")
        } else {
            format!("{n}{prefix}{}", self.index)
        }
    }
}

/// Mask of the guard bits [12:15].
pub const GUARD_MASK: u128 = 0xf000;

/// The scheduling control bits [105:125] (§6.2).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct Control {
    /// Stall cycles before the next instruction may issue (0–15).
    pub stall: u8,
    /// Raw bit 109 (`usched_info` bit 4): 0 = yield ("Y", `WAITn_END_GROUP`), 1 = no yield.
    pub no_yield: bool,
    /// Write scoreboard set by this instruction (0–5, 7 = none).
    pub write_sb: u8,
    /// Read scoreboard set by this instruction (0–5, 7 = none).
    pub read_sb: u8,
    /// Scoreboards waited on before issue (bit k = SBk).
    pub wait: u8,
    /// Operand reuse flags (bit 0 = a, 1 = b, 2 = c, 3 = fourth), bits [122:125].
    pub reuse: u8,
}

/// Mask of the control bits [105:125].
pub const CONTROL_MASK: u128 = ((1u128 << 21) - 1) << 105;

impl Control {
    /// No stall, no scoreboards, no waits, no reuse, yield bit clear — the safest value for a
    /// decoupled instruction's neighbours to be recomputed by the caller.
    pub const NONE: Control = Control {
        stall: 1,
        no_yield: false,
        write_sb: 7,
        read_sb: 7,
        wait: 0,
        reuse: 0,
    };

    /// The scoreboards this instruction sets (bit k = SBk): its write and read scoreboards.
    pub fn sets(&self) -> u8 {
        [self.write_sb, self.read_sb]
            .iter()
            .filter(|&&sb| sb < 6)
            .fold(0, |m, &sb| m | 1 << sb)
    }

    /// Decodes bits [105:125].
    pub fn decode(w: u128) -> Control {
        Control {
            stall: bits(w, 105, 4) as u8,
            no_yield: bits(w, 109, 1) == 1,
            write_sb: bits(w, 110, 3) as u8,
            read_sb: bits(w, 113, 3) as u8,
            wait: bits(w, 116, 6) as u8,
            reuse: bits(w, 122, 4) as u8,
        }
    }

    /// Writes these control bits into `w`.
    pub fn apply(self, w: u128) -> u128 {
        let w = with_bits(w, 105, 4, self.stall as u64);
        let w = with_bits(w, 109, 1, self.no_yield as u64);
        let w = with_bits(w, 110, 3, self.write_sb as u64);
        let w = with_bits(w, 113, 3, self.read_sb as u64);
        let w = with_bits(w, 116, 6, self.wait as u64);
        with_bits(w, 122, 4, self.reuse as u64)
    }

    /// Whether the `usched_info` value (stall + yield bit) is one the hardware accepts: 0–15
    /// with the yield bit clear, 17–27 (stall 1–11) with it set (§6.2); reuse flags need the
    /// yield bit set.
    pub fn is_valid(self) -> bool {
        let usched = self.stall as u32 | (self.no_yield as u32) << 4;
        let ok_usched = usched <= 15 || (17..=27).contains(&usched);
        let ok_sb =
            (self.write_sb <= 5 || self.write_sb == 7) && (self.read_sb <= 5 || self.read_sb == 7);
        ok_usched && ok_sb && (self.reuse == 0 || self.no_yield)
    }
}

impl fmt::Display for Control {
    /// CuAssembler-style: `[B0-2---:R1:W-:Y:S04]` — wait mask, read SB, write SB, yield, stall;
    /// `.reuse` flags are printed on the operands by the disassembler.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut b = String::with_capacity(6);
        for k in 0..6 {
            if self.wait & (1 << k) != 0 {
                b.push(char::from(b'0' + k));
            } else {
                b.push('-');
            }
        }
        let sb = |v: u8| {
            if v == 7 {
                "-".to_string()
            } else {
                v.to_string()
            }
        };
        write!(
            f,
            "[B{b}:R{}:W{}:{}:S{:02}]",
            sb(self.read_sb),
            sb(self.write_sb),
            if self.no_yield { "-" } else { "Y" },
            self.stall
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn word(lo: u64, hi: u64) -> u128 {
        lo as u128 | (hi as u128) << 64
    }

    #[test]
    fn fields_of_known_words() {
        // MOV R1, c[0x0][0x28] (sm_80): stall 2, yield, no scoreboards.
        let w = word(0x00000a0000017a02, 0x000fe40000000f00);
        assert_eq!(opcode_key(w), 0xa02);
        assert!(Pred::guard(w).is_true());
        let c = Control::decode(w);
        assert_eq!(
            (c.stall, c.no_yield, c.write_sb, c.read_sb, c.wait),
            (2, true, 7, 7, 0)
        );
        assert_eq!(c.apply(w & !CONTROL_MASK), w);
        // S2R R7, SR_CTAID.X: write scoreboard 0.
        let c = Control::decode(word(0x0000000000077919, 0x000e280000002500));
        assert_eq!((c.write_sb, c.stall), (0, 4));
        // IMAD waits on SB0 (wait mask 1).
        let c = Control::decode(word(0x0000000007077a24, 0x001fca00078e0200));
        assert_eq!((c.wait, c.stall, c.no_yield), (1, 5, false));
        assert_eq!(c.to_string(), "[B0-----:R-:W-:Y:S05]");
        assert!(c.is_valid());
        // @!P0 BRA: guard !P0.
        let g = Pred::guard(word(0xffffffa000008947, 0));
        assert_eq!((g.index, g.negated), (0, true));
        assert_eq!(g.display("P"), "!P0");
    }

    #[test]
    fn bit_helpers() {
        let w = with_bits(0, 122, 4, 0xf);
        assert_eq!(bits(w, 122, 4), 0xf);
        assert_eq!(bits(w, 120, 8), 0x3c);
        assert_eq!(mask(0, 12) | (1u128 << 91), OPCODE_MASK);
        assert_eq!(bits(u128::MAX, 100, 64), u64::MAX >> 36);
    }
}
