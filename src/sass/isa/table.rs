//! The per-generation opcode/operand tables: one text file per SM generation
//! (`tables/sm_8x.tbl` for sm_80/86/89, `tables/sm_90.tbl` for sm_90), learned from nvdisasm by
//! `tables/learn_tables.py` and checked against nvdisasm by `warpsmith sass check` and the
//! corpus tests (sass-and-cubin-format.md §9: per-opcode operand descriptors derived from
//! nvdisasm, checked against its life ranges).
//!
//! Line format (one form of one opcode):
//!
//! ```text
//! 0x0984 LDS 73:2=1 g16:w2 g24:r1 p12:r1
//! │      │   │      └ operands: file letter (g GPR, u UGPR, p PRED, q UPRED), field low bit,
//! │      │   │        r<n> read width, w<n> write width (in registers); `g:implicit` = the
//! │      │   │        instruction touches registers of that file outside its fields
//! │      │   └ selector: bit ranges lo:bits=value that pick this form (`-` = the only form)
//! │      └ mnemonic (base name as nvdisasm prints it)
//! └ opcode key: bits [0:11] plus bit 91 as bit 12
//! ```
//!
//! A field written with `~` after its file letter (`q~87:r1`) is inverted: it holds 7 − n for
//! register n and 0 for the true predicate (the warpgroup MMAs' accumulate flag [87:89], bit 90
//! its negation; probed with nvdisasm 13.5).
//!
//! A line may end with `t<lo>:<bits>`: a signed, 4-byte-scaled branch offset relative to the
//! next instruction (§6.4). The token `call` marks a subroutine call, whose registers beyond its
//! fields follow the calling convention (`abi.rs`). An instruction whose key is missing, or whose selector values match
//! no line, is unknown: the decoder keeps it raw with a conservative summary.

use std::collections::HashMap;
use std::sync::OnceLock;

use super::Generation;

/// Texture and surface instructions: how many coordinate and result registers they read and
/// write follows the dimension field (`1D`/`2D`/`3D`/arrays, bits 61–63 of the first word on
/// sm_90), which no learned envelope covers (the envelopes hold bits 64 and up), so a form learned
/// from 2-D samples would give a 3-D fetch a pair where it reads three registers (generated
/// holdout seed 1003 on sm_90: `TEX.LL RZ, R16, R32, R21, UR4, 0x0, 3D, 0x2` reads R32–R34). The
/// loader adds "any general register" to their forms: the fields still print and encode, and
/// every register client (liveness, the demoter's planner) treats the instruction as touching
/// any register.
pub const DIMENSIONED: &[&str] = &[
    "TEX", "TLD", "TLD4", "TMML", "TXD", "TXQ", "SULD", "SUST", "SUATOM", "SURED",
];

/// Warpgroup MMAs (`wgmma.mma_async`): the shape's N, which sets how many accumulators are read
/// and written, is in the first word's immediate bits, which no envelope covers. The learner
/// gives their general registers "any register" (`g:implicit`), and the loader insists on it,
/// as for [`DIMENSIONED`], so that a table learned otherwise cannot give one shape's count to
/// another.
pub const WARPGROUP_MMA: &[&str] = &["HGMMA", "IGMMA", "QGMMA", "BGMMA"];

/// A register file.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum RegFile {
    /// General-purpose registers R0–R254 (field value 255 = RZ).
    Gpr,
    /// Predicates P0–P6 (7 = PT).
    Pred,
    /// Uniform registers UR0–UR62 (63 = URZ).
    Ugpr,
    /// Uniform predicates UP0–UP6 (7 = UPT).
    Upred,
}

impl RegFile {
    /// All files.
    pub const ALL: [RegFile; 4] = [RegFile::Gpr, RegFile::Pred, RegFile::Ugpr, RegFile::Upred];

    /// Width of the field in bits (uniform registers are 6-bit fields at the GPR positions).
    pub fn field_bits(self) -> u32 {
        match self {
            RegFile::Gpr => 8,
            RegFile::Ugpr => 6,
            RegFile::Pred | RegFile::Upred => 3,
        }
    }

    /// The field value of the zero/true register (RZ, URZ, PT, UPT).
    pub fn zero(self) -> u8 {
        match self {
            RegFile::Gpr => 255,
            RegFile::Ugpr => 63,
            RegFile::Pred | RegFile::Upred => 7,
        }
    }

    /// The register-name prefix.
    pub fn prefix(self) -> &'static str {
        match self {
            RegFile::Gpr => "R",
            RegFile::Pred => "P",
            RegFile::Ugpr => "UR",
            RegFile::Upred => "UP",
        }
    }

    /// The table letter.
    pub fn letter(self) -> char {
        match self {
            RegFile::Gpr => 'g',
            RegFile::Pred => 'p',
            RegFile::Ugpr => 'u',
            RegFile::Upred => 'q',
        }
    }

    fn from_letter(c: char) -> Option<RegFile> {
        Some(match c {
            'g' => RegFile::Gpr,
            'p' => RegFile::Pred,
            'u' => RegFile::Ugpr,
            'q' => RegFile::Upred,
            _ => return None,
        })
    }

    /// Index in [`RegFile::ALL`].
    pub fn index(self) -> usize {
        self as usize
    }
}

/// One register field of a form.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct OperandSpec {
    /// The register file.
    pub file: RegFile,
    /// Low bit of the field.
    pub lo: u8,
    /// Registers read from the field's value upwards (0 = not read).
    pub read: u8,
    /// Registers written from the field's value upwards (0 = not written).
    pub write: u8,
    /// The field holds 7 − n for predicate n and 0 for the true predicate (table `q~87`).
    pub inverted: bool,
}

impl OperandSpec {
    /// The register index a field value names (the file's zero value for RZ/URZ/PT/UPT).
    pub fn index_of(&self, value: u8) -> u8 {
        match (self.inverted, value) {
            (false, v) => v,
            (true, 0) => self.file.zero(),
            (true, v) => self.file.zero() - v,
        }
    }

    /// The field value that names register `index` (the inverse of [`OperandSpec::index_of`]).
    pub fn value_of(&self, index: u8) -> u8 {
        match self.inverted {
            false => index,
            true if index >= self.file.zero() => 0,
            true => self.file.zero() - index,
        }
    }
}

/// One form of one opcode.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Form {
    /// Opcode key.
    pub key: u16,
    /// Mnemonic.
    pub mnemonic: String,
    /// Selector: (low bit, bits, value) ranges that must all match.
    pub selector: Vec<(u8, u8, u64)>,
    /// Register fields.
    pub operands: Vec<OperandSpec>,
    /// Register files touched outside the fields (conservatively: any register).
    pub implicit: Vec<RegFile>,
    /// A subroutine call: registers beyond its fields follow the calling convention of the
    /// function it is in ([`super::abi`]); table token `call`.
    pub call: bool,
    /// Envelope: `(mask, value)` — modifier bits that must have the values seen when the table
    /// was learned (an unseen modifier makes the instruction unknown rather than mis-decoded).
    pub fixed: (u128, u128),
    /// Relative branch-target field: pieces (low bit, bits) from the low end of the 4-byte-scaled
    /// offset (sm_90 splits it: `[16:23]` then `[34:81]`); empty when there is none.
    pub target: Vec<(u8, u8)>,
}

impl Form {
    /// Whether the form says how the guard [12:14] is read: a `p12` or (uniform datapath) `q12`
    /// read field, any predicate (`p:implicit`/`q:implicit`), or the calling convention
    /// (`call`, which reads the guard).
    pub fn knows_guard(&self) -> bool {
        let pred = |f: &RegFile| matches!(f, RegFile::Pred | RegFile::Upred);
        self.call
            || self.implicit.iter().any(pred)
            || self
                .operands
                .iter()
                .any(|o| pred(&o.file) && o.lo == 12 && o.read > 0)
    }

    /// Whether `w` has this form's selector values and lies inside its envelope. A form learned
    /// only from unguarded words (no `p12` field: e.g. a `RET` the corpus never guards) does
    /// not match a guarded word: nothing showed how that guard is read, so such a word is
    /// unknown rather than decoded as reading no predicate.
    pub fn matches(&self, w: u128) -> bool {
        w & self.fixed.0 == self.fixed.1
            && (self.knows_guard() || super::word::bits(w, 12, 3) == 7)
            && self
                .selector
                .iter()
                .all(|&(lo, n, v)| super::word::bits(w, lo as u32, n as u32) == v)
    }
}

/// Why a table line could not be read.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{table} line {line}: {message}")]
pub struct TableError {
    /// The table file.
    pub table: &'static str,
    /// 1-based line.
    pub line: usize,
    /// What is wrong.
    pub message: String,
}

/// A parsed table: forms by opcode key, and the mnemonic of every key seen (also keys whose
/// operands could not be learned).
#[derive(Debug, Clone, Default)]
pub struct Table {
    forms: HashMap<u16, Vec<Form>>,
    mnemonics: HashMap<u16, String>,
}

fn parse_num(s: &str) -> Option<u64> {
    match s.strip_prefix("0x") {
        Some(h) => u64::from_str_radix(h, 16).ok(),
        None => s.parse().ok(),
    }
}

impl Table {
    /// Parses a table text.
    pub fn parse(name: &'static str, text: &str) -> Result<Table, TableError> {
        let mut t = Table::default();
        for (i, line) in text.lines().enumerate() {
            let line = line.trim();
            if line.is_empty() || line.starts_with('#') {
                continue;
            }
            let err = |message: String| TableError {
                table: name,
                line: i + 1,
                message,
            };
            let mut toks = line.split_whitespace();
            let key = toks
                .next()
                .and_then(parse_num)
                .filter(|&k| k < 1 << 13)
                .ok_or_else(|| err("bad opcode key".into()))? as u16;
            let mnemonic = toks
                .next()
                .ok_or_else(|| err("missing mnemonic".into()))?
                .to_string();
            t.mnemonics.insert(key, mnemonic.clone());
            let sel = toks.next().ok_or_else(|| err("missing selector".into()))?;
            let mut selector = Vec::new();
            if sel != "-" {
                for part in sel.split(',') {
                    let (range, val) = part
                        .split_once('=')
                        .ok_or_else(|| err(format!("bad selector {part}")))?;
                    let (lo, n) = range
                        .split_once(':')
                        .ok_or_else(|| err(format!("bad selector {part}")))?;
                    let (lo, n, v) = (
                        parse_num(lo).filter(|&x| x < 128),
                        parse_num(n).filter(|&x| (1..=32).contains(&x)),
                        parse_num(val),
                    );
                    match (lo, n, v) {
                        (Some(lo), Some(n), Some(v)) => selector.push((lo as u8, n as u8, v)),
                        _ => return Err(err(format!("bad selector {part}"))),
                    }
                }
            }
            let rest: Vec<&str> = toks.collect();
            if rest
                .first()
                .is_some_and(|r| *r == "unknown" || *r == "conflict")
            {
                continue;
            }
            let mut form = Form {
                key,
                mnemonic,
                selector,
                operands: Vec::new(),
                implicit: Vec::new(),
                call: false,
                fixed: (0, 0),
                target: Vec::new(),
            };
            for tok in rest {
                let bad = || err(format!("bad operand {tok}"));
                if tok == "call" {
                    form.call = true;
                    continue;
                }
                let mut chars = tok.chars();
                let c = chars.next().ok_or_else(bad)?;
                let body = chars.as_str();
                if c == 'm' {
                    let (m, v) = body.split_once('=').ok_or_else(bad)?;
                    let m = u128::from_str_radix(m, 16).map_err(|_| bad())?;
                    let v = u128::from_str_radix(v, 16).map_err(|_| bad())?;
                    form.fixed = (m, v & m);
                    continue;
                }
                if c == 't' {
                    let mut total = 0;
                    for piece in body.split(',') {
                        let (lo, n) = piece.split_once(':').ok_or_else(bad)?;
                        let n = parse_num(n)
                            .filter(|&x| (1..=64).contains(&x))
                            .ok_or_else(bad)?;
                        let lo = parse_num(lo).filter(|&x| x + n <= 128).ok_or_else(bad)?;
                        total += n;
                        form.target.push((lo as u8, n as u8));
                    }
                    if total > 62 {
                        return Err(bad());
                    }
                    continue;
                }
                let file = RegFile::from_letter(c).ok_or_else(bad)?;
                let (inverted, body) = match body.strip_prefix('~') {
                    Some(b) if matches!(file, RegFile::Pred | RegFile::Upred) => (true, b),
                    Some(_) => return Err(bad()),
                    None => (false, body),
                };
                let (lo, role) = body.split_once(':').ok_or_else(bad)?;
                if inverted && lo.is_empty() {
                    return Err(bad());
                }
                if lo.is_empty() && role == "implicit" {
                    form.implicit.push(file);
                    continue;
                }
                let lo = parse_num(lo).filter(|&x| x + 8 <= 128).ok_or_else(bad)? as u8;
                let (mut read, mut write) = (0u8, 0u8);
                let mut r = role;
                while !r.is_empty() {
                    let which = r.as_bytes()[0];
                    let digits: String =
                        r[1..].chars().take_while(|c| c.is_ascii_digit()).collect();
                    let n: u8 = digits.parse().map_err(|_| bad())?;
                    match which {
                        b'r' => read = n,
                        b'w' => write = n,
                        _ => return Err(bad()),
                    }
                    r = &r[1 + digits.len()..];
                }
                if read > 4 || write > 4 {
                    return Err(bad());
                }
                form.operands.push(OperandSpec {
                    file,
                    lo,
                    read,
                    write,
                    inverted,
                });
            }
            let m = form.mnemonic.as_str();
            let any_gpr = DIMENSIONED.contains(&m) || WARPGROUP_MMA.contains(&m);
            if any_gpr && !form.implicit.contains(&RegFile::Gpr) {
                form.implicit.push(RegFile::Gpr);
            }
            t.forms.entry(key).or_default().push(form);
        }
        Ok(t)
    }

    /// The form of `w`, if the table knows it.
    pub fn lookup(&self, w: u128) -> Option<&Form> {
        let key = super::word::opcode_key(w);
        self.forms.get(&key)?.iter().find(|f| f.matches(w))
    }

    /// Whether some form of opcode `key` has a branch-target field: an instruction of that key
    /// whose form is unknown may hold a code offset nobody decoded.
    pub fn key_has_target(&self, key: u16) -> bool {
        self.forms
            .get(&key)
            .is_some_and(|fs| fs.iter().any(|f| !f.target.is_empty()))
    }

    /// The mnemonic of an opcode key, when the key was seen.
    pub fn mnemonic(&self, key: u16) -> Option<&str> {
        self.mnemonics.get(&key).map(String::as_str)
    }

    /// Number of forms.
    pub fn len(&self) -> usize {
        self.forms.values().map(Vec::len).sum()
    }

    /// Whether the table has no forms.
    pub fn is_empty(&self) -> bool {
        self.forms.is_empty()
    }
}

const SM_8X: &str = include_str!("tables/sm_8x.tbl");
const SM_90: &str = include_str!("tables/sm_90.tbl");

/// The table of a generation (parsed once). A table that does not parse is a build defect; it
/// is reported by the tests and treated as empty here (every instruction then decodes as
/// unknown), never as a panic.
pub fn table(g: Generation) -> &'static Table {
    static T8X: OnceLock<Table> = OnceLock::new();
    static T90: OnceLock<Table> = OnceLock::new();
    let (cell, name, text) = match g {
        Generation::Sm8x => (&T8X, "sm_8x.tbl", SM_8X),
        Generation::Sm90 => (&T90, "sm_90.tbl", SM_90),
    };
    cell.get_or_init(|| {
        Table::parse(name, text).unwrap_or_else(|e| {
            log::error!("SASS table: {e}");
            Table::default()
        })
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn committed_tables_parse() {
        for (name, text) in [("sm_8x.tbl", SM_8X), ("sm_90.tbl", SM_90)] {
            let t = Table::parse(name, text).unwrap();
            assert!(t.len() > 100, "{name}: {} forms", t.len());
        }
    }

    #[test]
    fn parses_lines() {
        let t = Table::parse(
            "x",
            "# c\n0x0984 LDS 73:2=1 g16:w2 g24:r1 p12:r1 m80000=0\n0x0947 BRA - p12:r1 t16:8,34:48\n0x0944 CALL - g:implicit\n0x0344 CALL - call g24:r2\n0x1 X - unknown\n",
        )
        .unwrap();
        assert_eq!(t.len(), 4);
        assert!(t.lookup(0x344).unwrap().call);
        // CALL 0x944 has no guard field: only unguarded words (PT = 7 in [12:14]) match.
        assert!(!t.lookup(0x944 | 0x7000).unwrap().call);
        assert!(
            t.lookup(0x944).is_none(),
            "guarded by P0, a guard the form never saw"
        );
        assert!(
            t.lookup(0x344).is_some(),
            "a call reads its guard by the convention"
        );
        let lds = (0x984u128) | (1u128 << 73);
        let f = t.lookup(lds).unwrap();
        assert_eq!(
            f.operands[0],
            OperandSpec {
                file: RegFile::Gpr,
                lo: 16,
                read: 0,
                write: 2,
                inverted: false,
            }
        );
        assert!(t.lookup(0x984).is_none());
        assert!(t.lookup(lds | 1 << 19).is_none(), "outside the envelope");
        assert_eq!(t.lookup(0x947).unwrap().target, vec![(16, 8), (34, 48)]);
        assert_eq!(t.mnemonic(1), Some("X"));
        assert!(Table::parse("x", "0x0984 LDS - g16:z1").is_err());
        assert!(Table::parse("x", "0x0984 LDS 200:2=1").is_err());
    }

    #[test]
    fn l2_prefetch_hint_of_async_copies_leaves_the_operands_alone() {
        // `LDGSTS.E.BYPASS.LTC128B.128 [R83], [R10.64], P3` as ptxas 12.9 writes it for Triton
        // 3.9's sm_80 matmuls; bit 72 is `.LTC128B` (nvdisasm lists the word with and without
        // it reading and writing the same registers, on sm_80 and on sm_90).
        let hinted = 0x0003_e200_0990_1d48_u128 << 64 | 0x0000_0000_0a53_7fae;
        let plain = hinted & !(1u128 << 72);
        for g in [Generation::Sm8x, Generation::Sm90] {
            let t = table(g);
            let (a, b) = (t.lookup(hinted), t.lookup(plain));
            assert!(a.is_some(), "{g:?}: the hinted copy is a known form");
            assert_eq!(a.map(|f| &f.operands), b.map(|f| &f.operands), "{g:?}");
        }
    }

    #[test]
    fn bf16_conversion_and_immediate_pair_fma_decode_as_nvdisasm_lists_them() {
        // Liger-Kernel's bf16 RMS norm through ptxas 12.8: `F2F.BF16.F32 R24, R29` (sm_80 and
        // sm_90) and `HFMA2.BF16_V2 R26, R7, 1, 1, R20` (sm_80), lines added by hand with
        // envelopes that fix every other bit below the control bits (docs/sass.md).
        let f2f = 0x0001_e200_0020_2000_u128 << 64 | 0x0000_001d_0018_7304;
        let fma = 0x000f_e200_0020_0014_u128 << 64 | 0x3f80_3f80_071a_7831;
        let fields = |t: &Table, w: u128| {
            t.lookup(w).map(|f| {
                f.operands
                    .iter()
                    .map(|o| (o.lo, o.read, o.write))
                    .collect::<Vec<_>>()
            })
        };
        for g in [Generation::Sm8x, Generation::Sm90] {
            let t = table(g);
            let mut got = fields(t, f2f).expect("F2F.BF16.F32 is known");
            got.sort_unstable();
            assert_eq!(got, vec![(12, 1, 0), (16, 0, 1), (32, 1, 0)], "{g:?}");
            assert!(
                t.lookup(f2f ^ 1 << 85).is_none(),
                "{g:?}: another conversion"
            );
        }
        let t = table(Generation::Sm8x);
        let mut got = fields(t, fma).expect("HFMA2.BF16_V2 with an immediate pair is known");
        got.sort_unstable();
        assert_eq!(got, vec![(12, 1, 0), (16, 0, 1), (24, 1, 0), (64, 1, 0)]);
        assert!(
            t.lookup(fma ^ 1 << 85).is_none(),
            "the f16 form is not seen"
        );
    }

    #[test]
    fn foreign_triton_forms_decode_as_nvdisasm_lists_them() {
        // FlagGems through Triton 3.6's ptxas 12.8 (docs/sass.md, "Cache-policy accesses and
        // four lines by hand"): words nvdisasm lists, with the registers it reads and writes.
        let fields = |t: &Table, w: u128| {
            t.lookup(w).map(|f| {
                let mut v: Vec<_> = f.operands.iter().map(|o| (o.lo, o.read, o.write)).collect();
                v.sort_unstable();
                (v, f.implicit.clone())
            })
        };
        let sm8x = table(Generation::Sm8x);
        // `LDG.E.EF.U16 R25, desc[UR8][R16.64]` and `STG.E.EF.U8 desc[UR4][R30.64], R33`:
        // bit 101 (an L2 cache-policy operand) no longer keeps them unknown.
        let ldg = 0x0040_a220_0c0e_1500_u128 << 64 | 0x0000_0008_1019_e981;
        let stg = 0x001f_e820_0c00_1104_u128 << 64 | 0x0000_0021_1e00_e986;
        let (got, _) = fields(sm8x, ldg).expect("LDG with a cache policy is known");
        assert_eq!(got, vec![(12, 1, 0), (16, 0, 1), (24, 2, 0), (32, 2, 0)]);
        let (got, _) = fields(sm8x, stg).expect("STG with a cache policy is known");
        assert_eq!(got, vec![(12, 1, 0), (24, 2, 0), (32, 1, 0), (64, 2, 0)]);
        assert!(
            sm8x.lookup(ldg ^ 1 << 73 ^ 1 << 75).is_none(),
            "selector 7, never seen with a cache policy, stays unknown with one"
        );
        // `HFMA2.BF16_V2 R21, R21.H1_H1, -1, -1, R21.H0_H0`: half selectors, same registers.
        let hfma = 0x000f_e400_0024_0c15_u128 << 64 | 0xbf80_bf80_1515_7831;
        let (got, _) = fields(sm8x, hfma).expect("HFMA2.BF16_V2 with half selectors is known");
        assert_eq!(got, vec![(12, 1, 0), (16, 0, 1), (24, 1, 0), (64, 1, 0)]);
        // Triton 3.3's int8 matmul (ptxas 12.4 and 12.9): `ULEA UR11, UR9, 0x4000, 0xd`, an
        // immediate addend without `.HI` (bit 80 clear): no third register at [64:72).
        let ulea = 0x000f_e400_0f8e_683f_u128 << 64 | 0x0000_4000_090b_7891;
        let (got, _) = fields(sm8x, ulea).expect("ULEA with an immediate is known");
        assert_eq!(got, vec![(12, 1, 0), (16, 0, 1), (24, 1, 0), (81, 0, 1)]);
        let (got, _) = fields(sm8x, ulea | 1 << 80).expect("ULEA.HI with an immediate is known");
        assert!(got.contains(&(64, 1, 0)), "{got:?}");
        for g in [Generation::Sm8x, Generation::Sm90] {
            let t = table(g);
            // `R2P PR, R4, 0xc`: R4 read; the predicates written follow the immediate mask.
            let r2p = 0x000f_c400_0000_0000_u128 << 64 | 0x0000_000c_0400_7804;
            let (got, implicit) = fields(t, r2p).expect("R2P is known");
            assert_eq!(got, vec![(12, 1, 0), (24, 1, 0)], "{g:?}");
            assert_eq!(implicit, vec![RegFile::Pred], "{g:?}");
            // `ISETP.GT.AND.EX P0, PT, R3, -0x1, P1, P0`: a third predicate read, at [68:71).
            let ex = 0x000f_e200_00f0_4300_u128 << 64 | 0xffff_ffff_0300_780c;
            let (got, _) = fields(t, ex).expect("ISETP.EX with an immediate is known");
            assert!(got.contains(&(68, 1, 0)), "{g:?}: {got:?}");
        }
        // sm_90: `HMUL2.BF16_V2 R4, R0, 0.0625, 0.0625` (an immediate pair).
        let hmul = 0x000f_c600_0020_0000_u128 << 64 | 0x3d80_3d80_0004_7832;
        let (got, _) = fields(table(Generation::Sm90), hmul).expect("HMUL2.BF16_V2 is known");
        assert_eq!(got, vec![(12, 1, 0), (16, 0, 1), (24, 1, 0)]);
    }

    #[test]
    fn warpgroup_mma_forms_touch_any_general_register() {
        let t = Table::parse("x", "0x19f3 QGMMA - g16:w2 p12:r1 q~87:r1 u24:r4\n").unwrap();
        let mma = t.lookup(0x09f3 | 0x7000 | 1 << 91).unwrap();
        assert_eq!(mma.implicit, vec![RegFile::Gpr]);
        assert_eq!(mma.operands.len(), 4, "the fields are kept for printing");
    }

    #[test]
    fn inverted_predicate_fields() {
        let t = Table::parse("x", "0x19f3 QGMMA - g:implicit p12:r1 q~87:r1 u24:r4\n").unwrap();
        let mma = t.lookup(0x09f3 | 0x7000 | 1 << 91).unwrap();
        let flag = mma.operands.iter().find(|o| o.lo == 87).unwrap();
        assert!(flag.inverted && flag.file == RegFile::Upred && flag.read == 1);
        // `QGMMA … R24, UP1` holds 6 in [87:89]; 0 is UPT (printed `!UPT` or left out).
        assert_eq!(flag.index_of(6), 1);
        assert_eq!(flag.index_of(7), 0);
        assert_eq!(flag.index_of(0), RegFile::Upred.zero());
        for v in 0..8 {
            assert_eq!(flag.value_of(flag.index_of(v)), v);
        }
        assert!(Table::parse("x", "0x19f3 QGMMA - g~16:r1\n").is_err());
        assert!(Table::parse("x", "0x19f3 QGMMA - q~:implicit\n").is_err());
    }

    #[test]
    fn texture_forms_touch_any_general_register() {
        let t = Table::parse(
            "x",
            "0x0b66 TEX - g16:w2 g24:r2 p12:r1\n0x0984 LDS - g16:w2 g24:r1 p12:r1\n",
        )
        .unwrap();
        let tex = t.lookup(0x0b66 | 0x7000).unwrap();
        assert_eq!(tex.implicit, vec![RegFile::Gpr]);
        assert_eq!(tex.operands.len(), 3, "the fields are kept for printing");
        assert!(t.lookup(0x0984 | 0x7000).unwrap().implicit.is_empty());
        // The committed tables: every texture and surface form is conservative.
        for (name, text) in [("sm_8x.tbl", SM_8X), ("sm_90.tbl", SM_90)] {
            let t = Table::parse(name, text).unwrap();
            for forms in t.forms.values() {
                for f in forms {
                    if DIMENSIONED.contains(&f.mnemonic.as_str()) {
                        assert!(f.implicit.contains(&RegFile::Gpr), "{name}: {}", f.mnemonic);
                    }
                    if WARPGROUP_MMA.contains(&f.mnemonic.as_str()) {
                        assert!(f.implicit.contains(&RegFile::Gpr), "{name}: {}", f.mnemonic);
                        // The accumulate flag is learned as what it is: an inverted field.
                        assert!(
                            !f.implicit.contains(&RegFile::Upred)
                                && f.operands.iter().any(|o| o.inverted
                                    && o.lo == 87
                                    && o.file == RegFile::Upred
                                    && o.read == 1),
                            "{name}: {} {:?}",
                            f.mnemonic,
                            f.selector
                        );
                    }
                }
            }
        }
    }
}
