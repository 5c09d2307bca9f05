//! SASS for sm_80, sm_86, sm_89 and sm_90: the 128-bit instruction word, a table-driven decoder
//! that never fails and re-encodes bit-exactly, register def/use with widths and roles, branch
//! targets, and encoders for the instructions the demoter inserts.
//!
//! Reference: `sass-and-cubin-format.md` §6 (instruction format, control bits, opcodes, branch
//! arithmetic) and §9 (learning operand tables from nvdisasm); `model-codebases.md` §6 (iced-x86:
//! unknown encodings kept raw and re-encoded exactly).
//!
//! - [`word`]: bit fields, opcode key, guard predicate, [`Control`] bits.
//! - [`table`]: the per-generation operand tables (`tables/*.tbl`).
//! - [`Instruction`]: one decoded instruction. [`Instruction::decode`] splits a word into the
//!   fields the table knows plus the remaining bits; [`Instruction::encode`] puts them back
//!   together, so `encode(decode(w)) == w` for every `w`. An opcode or form not in the table
//!   decodes as unknown: its bits are kept and [`Instruction::def_use`] is conservative (may
//!   read and write any register).
//! - [`encode`]: LDS/STS/S2R/IMAD/LEA/IADD3/MOV/NOP builders.
//! - [`print`]: our disassembly listing.

pub mod abi;
pub mod encode;
pub mod print;
pub mod table;
pub mod word;

pub use table::{Form, OperandSpec, RegFile};
pub use word::{Control, Pred};

use word::{bits, with_bits};

/// A supported SASS architecture.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Arch {
    /// Ampere GA100.
    Sm80,
    /// Ampere GA10x.
    Sm86,
    /// Ada.
    Sm89,
    /// Hopper.
    Sm90,
}

/// An instruction-set generation: architectures that share one table.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Generation {
    /// sm_80, sm_86, sm_89.
    Sm8x,
    /// sm_90.
    Sm90,
}

impl Arch {
    /// Every supported architecture.
    pub const ALL: [Arch; 4] = [Arch::Sm80, Arch::Sm86, Arch::Sm89, Arch::Sm90];

    /// The architecture of an SM number (80, 86, 89, 90), if supported.
    pub fn from_sm(sm: u32) -> Option<Arch> {
        Some(match sm {
            80 => Arch::Sm80,
            86 => Arch::Sm86,
            89 => Arch::Sm89,
            90 => Arch::Sm90,
            _ => return None,
        })
    }

    /// The SM number.
    pub fn sm(self) -> u32 {
        match self {
            Arch::Sm80 => 80,
            Arch::Sm86 => 86,
            Arch::Sm89 => 89,
            Arch::Sm90 => 90,
        }
    }

    /// The table generation.
    pub fn generation(self) -> Generation {
        match self {
            Arch::Sm90 => Generation::Sm90,
            _ => Generation::Sm8x,
        }
    }

    /// nvdisasm's `--binary` name (`SM80`, …).
    pub fn nvdisasm_name(self) -> String {
        format!("SM{}", self.sm())
    }
}

impl std::fmt::Display for Arch {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "sm_{}", self.sm())
    }
}

/// A set of registers of the four files.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Hash)]
pub struct RegSet {
    gpr: [u64; 4],
    pred: u8,
    ugpr: u64,
    upred: u8,
}

impl RegSet {
    /// Adds register `r` of `file` (the zero/true registers are ignored).
    pub fn insert(&mut self, file: RegFile, r: u32) {
        if r >= file.zero() as u32 {
            return;
        }
        match file {
            RegFile::Gpr => self.gpr[(r / 64) as usize] |= 1 << (r % 64),
            RegFile::Pred => self.pred |= 1 << r,
            RegFile::Ugpr => self.ugpr |= 1 << r,
            RegFile::Upred => self.upred |= 1 << r,
        }
    }

    /// Whether register `r` of `file` is in the set.
    pub fn contains(&self, file: RegFile, r: u32) -> bool {
        if r >= file.zero() as u32 {
            return false;
        }
        match file {
            RegFile::Gpr => self.gpr[(r / 64) as usize] & (1 << (r % 64)) != 0,
            RegFile::Pred => self.pred & (1 << r) != 0,
            RegFile::Ugpr => self.ugpr & (1 << r) != 0,
            RegFile::Upred => self.upred & (1 << r) != 0,
        }
    }

    /// The registers of `file`, ascending.
    pub fn iter(&self, file: RegFile) -> impl Iterator<Item = u32> + '_ {
        (0..file.zero() as u32).filter(move |&r| self.contains(file, r))
    }

    /// Whether no register of `file` is in the set.
    pub fn is_empty_in(&self, file: RegFile) -> bool {
        self.iter(file).next().is_none()
    }

    /// Whether the set is empty.
    pub fn is_empty(&self) -> bool {
        *self == RegSet::default()
    }

    /// Whether the two sets share a register (of any file).
    pub fn intersects(&self, other: &RegSet) -> bool {
        self.gpr.iter().zip(&other.gpr).any(|(a, b)| a & b != 0)
            || self.pred & other.pred != 0
            || self.ugpr & other.ugpr != 0
            || self.upred & other.upred != 0
    }

    /// `R0, R1, P0…` rendering of one file.
    pub fn render(&self, file: RegFile) -> Vec<String> {
        self.iter(file)
            .map(|r| format!("{}{r}", file.prefix()))
            .collect()
    }
}

/// What an instruction reads and writes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct DefUse {
    /// Registers read.
    pub reads: RegSet,
    /// Registers written.
    pub writes: RegSet,
    /// Per file ([`RegFile::index`]): may read any register (unknown or implicit operands).
    pub any_read: [bool; 4],
    /// Per file: may write any register.
    pub any_write: [bool; 4],
}

impl DefUse {
    /// The summary of an instruction we do not understand: may read and write everything.
    pub fn conservative() -> DefUse {
        DefUse {
            any_read: [true; 4],
            any_write: [true; 4],
            ..DefUse::default()
        }
    }

    /// Whether the summary is exact (no "any register" file).
    pub fn is_exact(&self) -> bool {
        !self.any_read.iter().chain(&self.any_write).any(|&b| b)
    }

    /// Whether every register written is of `file` (none of the other files is written).
    pub fn writes_only(&self, file: RegFile) -> bool {
        RegFile::ALL
            .iter()
            .filter(|&&f| f != file)
            .all(|&f| self.writes.is_empty_in(f) && !self.any_write[f.index()])
    }
}

/// One register field of a decoded instruction.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RegOperand {
    /// The field's description.
    pub spec: OperandSpec,
    /// The register index the field names (the file's zero value means RZ/URZ/PT/UPT; for an
    /// inverted field, [`OperandSpec::index_of`] of its value).
    pub index: u8,
}

impl RegOperand {
    /// Whether the field names the zero/true register.
    pub fn is_zero(&self) -> bool {
        self.index >= self.spec.file.zero()
    }

    /// The registers the field covers (empty for RZ/PT): `max(read, write)` consecutive ones.
    pub fn registers(&self) -> std::ops::Range<u32> {
        if self.is_zero() {
            return 0..0;
        }
        let n = self.spec.read.max(self.spec.write) as u32;
        self.index as u32..self.index as u32 + n
    }
}

/// A decoded instruction. `word` is what was decoded; the typed fields can be changed and
/// [`Instruction::encode`] builds the new word from them and the bits nobody decoded.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Instruction {
    /// The architecture.
    pub arch: Arch,
    /// The original 128 bits.
    pub word: u128,
    /// Opcode key (bits [0:11] and bit 91).
    pub key: u16,
    /// Guard predicate (bits [12:15]).
    pub guard: Pred,
    /// Scheduling control bits.
    pub control: Control,
    /// The table form (`None` = unknown instruction).
    pub form: Option<&'static Form>,
    /// Register fields (empty for unknown instructions).
    pub operands: Vec<RegOperand>,
    /// Branch offset in bytes relative to the next instruction, for forms with a target field.
    pub branch_offset: Option<i64>,
    rest: u128,
}

/// Sign-extends the low `n` bits of `v`.
fn sign_extend(v: u64, n: u32) -> i64 {
    if n == 0 || n >= 64 {
        return v as i64;
    }
    let shift = 64 - n;
    ((v << shift) as i64) >> shift
}

/// Errors of changing an instruction.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum IsaError {
    /// The instruction has no branch-target field.
    #[error("{0} has no branch target field")]
    NoTarget(String),
    /// The new branch offset does not fit the field or is not a multiple of 4.
    #[error("branch offset {offset:#x} does not fit the {bits}-bit field of {mnemonic}")]
    TargetRange {
        /// The instruction.
        mnemonic: String,
        /// The offset.
        offset: i64,
        /// Field width.
        bits: u8,
    },
    /// A register number is out of range for its field.
    #[error("register {0} out of range")]
    Register(u32),
}

impl Instruction {
    /// Decodes `w` (never fails; unknown encodings are kept raw).
    pub fn decode(arch: Arch, w: u128) -> Instruction {
        let form = table::table(arch.generation()).lookup(w);
        let mut rest = w & !word::OPCODE_MASK & !word::GUARD_MASK & !word::CONTROL_MASK;
        let mut operands = Vec::new();
        let mut branch_offset = None;
        if let Some(f) = form {
            for spec in &f.operands {
                let n = spec.file.field_bits();
                // Keep the guard inside the common field; other fields are cleared from rest.
                let index = spec.index_of(bits(w, spec.lo as u32, n) as u8);
                if !(spec.lo == 12 && n == 3) {
                    rest &= !word::mask(spec.lo as u32, n);
                }
                operands.push(RegOperand { spec: *spec, index });
            }
            if !f.target.is_empty() {
                let (mut raw, mut shift) = (0u64, 0u32);
                for &(lo, n) in &f.target {
                    raw |= bits(w, lo as u32, n as u32) << shift;
                    shift += n as u32;
                    rest &= !word::mask(lo as u32, n as u32);
                }
                branch_offset = Some(sign_extend(raw, shift) * 4);
            }
        }
        Instruction {
            arch,
            word: w,
            key: word::opcode_key(w),
            guard: Pred::guard(w),
            control: Control::decode(w),
            form,
            operands,
            branch_offset,
            rest,
        }
    }

    /// Builds the 128-bit word from the typed fields and the bits nobody decoded.
    pub fn encode(&self) -> u128 {
        let mut w = self.rest;
        w |= (self.key as u128 & 0xfff) | ((self.key as u128 >> 12) & 1) << 91;
        w = self.guard.apply_guard(w);
        w = self.control.apply(w);
        for op in &self.operands {
            if op.spec.lo == 12 && op.spec.file.field_bits() == 3 {
                continue; // the guard, written above
            }
            w = with_bits(
                w,
                op.spec.lo as u32,
                op.spec.file.field_bits(),
                op.spec.value_of(op.index) as u64,
            );
        }
        if let (Some(f), Some(off)) = (self.form, self.branch_offset) {
            let mut v = (off / 4) as u64;
            for &(lo, n) in &f.target {
                w = with_bits(w, lo as u32, n as u32, v);
                v = if n >= 64 { 0 } else { ((v as i64) >> n) as u64 };
            }
        }
        w
    }

    /// Whether the table knows this instruction's form.
    pub fn is_known(&self) -> bool {
        self.form.is_some()
    }

    /// The mnemonic: the form's, the opcode's (suffixed `?` when the form is unknown), or
    /// `UNKNOWN`.
    pub fn mnemonic(&self) -> String {
        match self.form {
            Some(f) => f.mnemonic.clone(),
            None => match table::table(self.arch.generation()).mnemonic(self.key) {
                Some(m) => format!("{m}?"),
                None => "UNKNOWN".to_string(),
            },
        }
    }

    /// The opcode without modifiers (`LDG.E.128` → `LDG`; an unknown form's `?` dropped).
    pub fn opcode(&self) -> String {
        let m = self.mnemonic();
        m.trim_end_matches('?')
            .split('.')
            .next()
            .unwrap_or("")
            .to_string()
    }

    /// Whether this is a subroutine call (its registers beyond its fields follow the calling
    /// convention of the function it is in: [`abi::CallConvention::def_use`]).
    pub fn is_call(&self) -> bool {
        self.form.is_some_and(|f| f.call)
    }

    /// Registers read and written (conservative for unknown forms and implicit operands, and for
    /// calls, whose registers depend on the function they are in: use
    /// [`abi::CallConvention::def_use`] for those).
    pub fn def_use(&self) -> DefUse {
        let Some(form) = self.form else {
            return DefUse::conservative();
        };
        let mut du = self.field_def_use();
        for f in &form.implicit {
            du.any_read[f.index()] = true;
            du.any_write[f.index()] = true;
        }
        if form.call {
            du.any_read = [true; 4];
            du.any_write = [true; 4];
        }
        du
    }

    /// [`Instruction::def_use`], except that a call counts only its own fields: for code that
    /// reads the callee's instructions too (a call within the same section), the callee's
    /// effects are theirs.
    pub fn own_def_use(&self) -> DefUse {
        if self.is_call() {
            self.field_def_use()
        } else {
            self.def_use()
        }
    }

    /// The registers of the instruction's fields (and, for a call, its guard), without implicit
    /// operands or a calling convention.
    pub fn field_def_use(&self) -> DefUse {
        let Some(form) = self.form else {
            return DefUse::default();
        };
        let mut du = DefUse::default();
        // A call's guard is read even where the table saw no guarded call of that form.
        if form.call && self.guard.index < 7 {
            du.reads.insert(RegFile::Pred, self.guard.index as u32);
        }
        for op in &self.operands {
            if op.is_zero() {
                continue;
            }
            for k in 0..op.spec.read as u32 {
                du.reads.insert(op.spec.file, op.index as u32 + k);
            }
            for k in 0..op.spec.write as u32 {
                du.writes.insert(op.spec.file, op.index as u32 + k);
            }
        }
        du
    }

    /// The absolute branch target of an instruction at byte offset `pc`, if it has one.
    pub fn branch_target(&self, pc: u64) -> Option<u64> {
        let off = self.branch_offset?;
        (pc as i64)
            .checked_add(16)?
            .checked_add(off)
            .map(|t| t as u64)
    }

    /// Points the branch of an instruction at `pc` to `target`.
    pub fn set_branch_target(&mut self, pc: u64, target: u64) -> Result<(), IsaError> {
        let n: u32 = match self.form {
            Some(f) if self.branch_offset.is_some() => f.target.iter().map(|p| p.1 as u32).sum(),
            _ => return Err(IsaError::NoTarget(self.mnemonic())),
        };
        let mn = self.mnemonic();
        let off = target as i64 - (pc as i64 + 16);
        let q = off / 4;
        let fits = off % 4 == 0 && q >= -(1i64 << (n - 1)) && q < (1i64 << (n - 1));
        if !fits {
            return Err(IsaError::TargetRange {
                mnemonic: mn,
                offset: off,
                bits: n as u8,
            });
        }
        self.branch_offset = Some(off);
        Ok(())
    }
}

/// Decodes a code section into instructions (a trailing partial word is ignored).
pub fn decode_all(arch: Arch, code: &[u8]) -> Vec<Instruction> {
    code.chunks_exact(16)
        .map(|c| {
            let mut b = [0u8; 16];
            b.copy_from_slice(c);
            Instruction::decode(arch, u128::from_le_bytes(b))
        })
        .collect()
}

/// Encodes instructions back into bytes.
pub fn encode_all(insts: &[Instruction]) -> Vec<u8> {
    let mut out = Vec::with_capacity(insts.len() * 16);
    for i in insts {
        out.extend_from_slice(&i.encode().to_le_bytes());
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn w(lo: u64, hi: u64) -> u128 {
        lo as u128 | (hi as u128) << 64
    }

    #[test]
    fn decodes_and_reencodes() {
        // IMAD R7, R7, c[0x0][0x0], R0 (sm_80).
        let i = Instruction::decode(Arch::Sm80, w(0x0000000007077a24, 0x001fca00078e0200));
        assert_eq!(i.mnemonic(), "IMAD");
        let du = i.def_use();
        assert_eq!(du.writes.render(RegFile::Gpr), ["R7"]);
        assert_eq!(du.reads.render(RegFile::Gpr), ["R0", "R7"]);
        assert_eq!(i.encode(), i.word);
        // @P0 BRA `(.L_x_0) at 0x180 → 0xc0.
        let b = Instruction::decode(Arch::Sm80, w(0xffffff3000000947, 0x000fea000383ffff));
        assert_eq!(b.branch_target(0x180), Some(0xc0));
        let mut b2 = b.clone();
        b2.set_branch_target(0x180, 0x40).unwrap();
        assert_eq!(b2.branch_target(0x180), Some(0x40));
        assert_ne!(b2.encode(), b.word);
        b2.set_branch_target(0x180, 0xc0).unwrap();
        assert_eq!(b2.encode(), b.word);
        // An opcode no table knows.
        let u = Instruction::decode(Arch::Sm90, w(0x0000000000000fff, 0x1234));
        assert!(!u.is_known());
        assert_eq!(u.encode(), u.word);
        assert!(!u.def_use().is_exact());
    }

    #[test]
    fn sign_extension() {
        assert_eq!(sign_extend(0xffff_ffff_ffff, 48), -1);
        assert_eq!(sign_extend(0x7fff, 48), 0x7fff);
    }
}
