//! Pre-decoding: a parsed SASS instruction's mnemonic and modifiers become one [`Kind`] with its
//! flags, once per instruction, so the interpreter never compares strings. Mnemonics or modifier
//! combinations the emulator does not implement become [`Kind::Unsupported`] with the reason; the
//! run stops with that reason only if a thread executes the instruction (RegDem §3: the oracle
//! never skips an instruction silently).

use super::operand::{Opnd, Parsed, PT, RZ, URZ};
use crate::emu::tensor::{Elem, MmaSpec};
use crate::emu::wgmma::WgmmaSpec;
use crate::ptx::ir::Type;

/// Comparison of `ISETP`/`FSETP`/`DSETP`/`FSET`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Cmp {
    /// `F` (false)
    F,
    /// `LT`
    Lt,
    /// `EQ`
    Eq,
    /// `LE`
    Le,
    /// `GT`
    Gt,
    /// `NE`
    Ne,
    /// `GE`
    Ge,
    /// `NUM` (both ordered)
    Num,
    /// `NAN` (either unordered)
    Nan,
    /// `LTU`
    Ltu,
    /// `EQU`
    Equ,
    /// `LEU`
    Leu,
    /// `GTU`
    Gtu,
    /// `NEU`
    Neu,
    /// `GEU`
    Geu,
    /// `T` (true)
    T,
}

/// Boolean combination with the extra predicate of a compare.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BoolOp {
    /// `AND`
    And,
    /// `OR`
    Or,
    /// `XOR`
    Xor,
}

/// Rounding of float instructions (`.RZ`, `.RM`, `.RP`, default RN).
pub use crate::emu::float::Rnd;

/// Float modifiers.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct FMods {
    /// Rounding.
    pub rnd: Rnd,
    /// `.FTZ`
    pub ftz: bool,
    /// `.SAT`
    pub sat: bool,
}

/// Memory state spaces of loads and stores.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Space {
    /// `LDG`/`STG`/`ATOMG`/`RED`
    Global,
    /// `LDS`/`STS`/`ATOMS`
    Shared,
    /// `LDL`/`STL`
    Local,
    /// `LD`/`ST`/`ATOM`
    Generic,
    /// Constant memory reached through a generic address (a `__constant__` variable's
    /// `cvta.const` pointer): where a generic access lands, never an instruction's own space.
    Const,
}

/// Access width and extension.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Width {
    /// Bytes (1, 2, 4, 8, 16).
    pub bytes: u32,
    /// Sign-extend sub-word loads.
    pub signed: bool,
}

/// Atomic operations.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum AtomOp {
    /// `ADD`
    Add,
    /// `MIN`
    Min,
    /// `MAX`
    Max,
    /// `EXCH`
    Exch,
    /// `CAS`
    Cas,
    /// `ATOMS.CAST.SPIN`: compare and store, the result 1 where it stored and 0 where not (the
    /// loop ptxas builds for shared-memory atomics it has no instruction for).
    CasSpin,
    /// `AND`
    And,
    /// `OR`
    Or,
    /// `XOR`
    Xor,
    /// `INC`
    Inc,
    /// `DEC`
    Dec,
}

/// Atomic operand type.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum AtomTy {
    /// 32-bit unsigned
    U32,
    /// 32-bit signed
    S32,
    /// 64-bit unsigned
    U64,
    /// 64-bit signed
    S64,
    /// f32
    F32,
    /// f64
    F64,
    /// Packed f16 pair (`.F16x2`, added with round to nearest, no flush).
    F16x2,
    /// Packed bf16 pair (`.BF16x2`).
    Bf16x2,
}

/// `MUFU` functions.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Mufu {
    /// `RCP`
    Rcp,
    /// `RSQ`
    Rsq,
    /// `EX2`
    Ex2,
    /// `LG2`
    Lg2,
    /// `SIN`
    Sin,
    /// `COS`
    Cos,
    /// `SQRT`
    Sqrt,
    /// `RCP64H`
    Rcp64h,
    /// `RSQ64H`
    Rsq64h,
    /// `TANH`
    Tanh,
}

/// Shuffle modes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Shfl {
    /// `IDX`
    Idx,
    /// `UP`
    Up,
    /// `DOWN`
    Down,
    /// `BFLY`
    Bfly,
}

/// What an instruction does.
#[derive(Clone, Debug, PartialEq)]
pub enum Kind {
    /// `MOV`, `UMOV`, `IMAD.MOV` (handled as IMAD), `R2UR`, `S2R`/`S2UR`/`CS2R`, `LDC`/`ULDC`.
    Mov,
    /// `S2R`, `S2UR`, `CS2R`
    S2r {
        /// `CS2R` of a 64-bit pair.
        wide: bool,
    },
    /// `LDC`, `ULDC`
    Ldc {
        /// Width.
        w: Width,
    },
    /// `IMAD` family.
    Imad {
        /// `.HI`
        hi: bool,
        /// `.WIDE`
        wide: bool,
        /// signed (not `.U32`)
        signed: bool,
        /// `.X`
        x: bool,
    },
    /// `IADD3`, `UIADD3`
    Iadd3 {
        /// `.X`
        x: bool,
    },
    /// `VIADD`
    Viadd,
    /// `UIADD3.64`: the sum of three 64-bit uniform pairs (or immediates), `-x` negated.
    Iadd64,
    /// `LEA`
    Lea {
        /// `.HI`
        hi: bool,
        /// `.X`
        x: bool,
        /// `.SX32`
        sx32: bool,
    },
    /// `LOP3.LUT`, `ULOP3.LUT`
    Lop3,
    /// `PLOP3.LUT`
    Plop3,
    /// `SHF`
    Shf {
        /// Left.
        left: bool,
        /// 64-bit type.
        w64: bool,
        /// Signed.
        signed: bool,
        /// `.HI`
        hi: bool,
        /// `.W` (wrap the amount).
        wrap: bool,
    },
    /// `PRMT`
    Prmt,
    /// `SEL`, `FSEL`, `USEL`
    Sel,
    /// `ISETP`
    Isetp {
        /// Comparison.
        cmp: Cmp,
        /// Unsigned.
        unsigned: bool,
        /// Combination.
        bop: BoolOp,
        /// `.EX`
        ex: bool,
    },
    /// `FSETP`, `DSETP`
    Fsetp {
        /// Comparison.
        cmp: Cmp,
        /// Combination.
        bop: BoolOp,
        /// `.FTZ`
        ftz: bool,
        /// f64
        f64: bool,
    },
    /// `FSET`
    Fset {
        /// Comparison.
        cmp: Cmp,
        /// Combination.
        bop: BoolOp,
        /// `.BF`: 1.0 instead of all ones.
        bf: bool,
        /// `.FTZ`
        ftz: bool,
    },
    /// `FADD`
    Fadd(FMods),
    /// `FMUL`
    Fmul(FMods),
    /// `FFMA`
    Ffma(FMods),
    /// `FMNMX`
    Fmnmx {
        /// `.FTZ`
        ftz: bool,
    },
    /// `DADD`
    Dadd(Rnd),
    /// `DMUL`
    Dmul(Rnd),
    /// `DFMA`
    Dfma(Rnd),
    /// `FCHK`
    Fchk,
    /// `MUFU`
    Mufu(Mufu),
    /// `F2I`
    F2i {
        /// Source f64.
        src64: bool,
        /// Destination bits.
        bits: u32,
        /// Signed destination.
        signed: bool,
        /// Rounding (TRUNC = Rz, FLOOR = Rm, CEIL = Rp, default Rn).
        rnd: Rnd,
        /// `.FTZ`
        ftz: bool,
    },
    /// `I2F`, `I2FP`
    I2f {
        /// Destination f64.
        dst64: bool,
        /// Source bits.
        bits: u32,
        /// Signed source.
        signed: bool,
        /// Rounding.
        rnd: Rnd,
    },
    /// `F2F`
    F2f {
        /// Destination format bits (16, 32, 64).
        dst: u32,
        /// Source format bits.
        src: u32,
        /// The 16-bit format is bf16 (`F2F.BF16.F32`), not f16.
        bf16: bool,
        /// Rounding.
        rnd: Rnd,
        /// `.FTZ`
        ftz: bool,
    },
    /// `F2FP.PACK_AB` (f16 unless `.BF16`; `.RZ` etc. round otherwise than to nearest; `.RELU`).
    F2fp {
        /// f16 (else bf16).
        f16: bool,
        /// Rounding.
        rnd: Rnd,
        /// `.RELU`: negative results become +0 (NaN stays NaN).
        relu: bool,
    },
    /// The 8-bit float conversions of sm_89 and up, as PTX's `cvt` ([`crate::emu::fp8`]):
    /// `F2FP.SATFINITE.<E4M3|E5M2>.F32.PACK_AB_MERGE_C d, a, b, RZ` (`cvt…x2.f32 d, a, b`),
    /// `F2FP.SATFINITE.<E4M3|E5M2>.F16.UNPACK_B_MERGE_C d, a, RZ` (`cvt…x2.f16x2 d, a`), both
    /// into the low 16 bits, and `F2FP.F16.<E4M3|E5M2>.UNPACK_B d, a` (`cvt.f16x2.…x2 d, a`);
    /// each with `.RELU`. A `MERGE_C` form merges `RZ`, or a register's high half (`R33.H1`:
    /// ptxas 12.4 for Triton 3.3's fp8 quantisation) into the high 16 bits.
    F2fpFp8 {
        /// The 8-bit format.
        fmt: crate::emu::fp8::Fp8,
        /// Which conversion.
        how: crate::emu::fp8::Fp8Cvt,
        /// `.RELU`
        relu: bool,
        /// `MERGE_C` with `Rc.H1`: the result's high 16 bits are those of `Rc` (the last
        /// operand); otherwise they are zero.
        merge_high: bool,
    },
    /// `HADD2`, `HMUL2`, `HFMA2` (f16x2), with `.F32` for HADD2 (f32 result).
    H2 {
        /// 0 add, 1 mul, 2 fma.
        op: u8,
        /// `.F32` result.
        f32: bool,
        /// `.BF16_V2`: the pairs are bf16, not f16.
        bf16: bool,
        /// Modifiers.
        m: FMods,
    },
    /// `IABS`
    Iabs,
    /// `POPC`, `UPOPC`
    Popc,
    /// `FLO`
    Flo {
        /// Signed.
        signed: bool,
        /// `.SH`
        sh: bool,
    },
    /// `BREV`
    Brev,
    /// `SGXT`
    Sgxt {
        /// Signed.
        signed: bool,
    },
    /// `IMNMX`, `VIMNMX`
    Imnmx {
        /// Unsigned.
        unsigned: bool,
    },
    /// `VIADDMNMX`
    Viaddmnmx {
        /// Unsigned.
        unsigned: bool,
    },
    /// `P2R`
    P2r,
    /// `R2P`
    R2p,
    /// `QSPC.E.{G,S,L} Pd, RZ, [addr]`: whether a generic address lies in the global, shared or
    /// local window (`isspacep`, and ptxas's space test before a generic atomic).
    Qspc(Space),
    /// Loads.
    Ld {
        /// Space.
        space: Space,
        /// Width.
        w: Width,
    },
    /// Stores.
    St {
        /// Space.
        space: Space,
        /// Width.
        w: Width,
    },
    /// Atomics (`ATOMG`, `ATOM`, `ATOMS`) and reductions (`RED`, `REDG`: `red`).
    Atom {
        /// Space.
        space: Space,
        /// Operation.
        op: AtomOp,
        /// Type.
        ty: AtomTy,
        /// No result (RED).
        red: bool,
        /// `ATOMS.POPC.INC.32`: every executing lane adds 1.
        popc_inc: bool,
    },
    /// `SHFL`
    Shfl(Shfl),
    /// `VOTE`, `VOTEU`: 0 ALL, 1 ANY, 2 EQ.
    Vote {
        /// Mode.
        mode: u8,
        /// `VOTEU`
        uniform: bool,
    },
    /// `REDUX`
    Redux {
        /// 0 sum, 1 min, 2 max, 3 and, 4 or, 5 xor.
        op: u8,
        /// Signed.
        signed: bool,
    },
    /// `MATCH.ANY` / `MATCH.ALL` (32 or 64 bits).
    Match {
        /// `.ALL`
        all: bool,
        /// `.U64`
        wide: bool,
    },
    /// `BAR.SYNC`, `BAR.RED.*`, `BAR.ARV`.
    Bar {
        /// 0 sync, 1 popc, 2 and, 3 or, 4 arrive.
        red: u8,
    },
    /// `B2R.RESULT`
    B2r,
    /// `BSSY`
    Bssy,
    /// `BSYNC`
    Bsync,
    /// `BREAK`
    Break,
    /// `BMOV.32` (to a barrier register) / `BMOV.32.CLEAR` (from one).
    Bmov {
        /// Clear after reading.
        clear: bool,
    },
    /// `WARPSYNC`
    Warpsync,
    /// `BRA`
    Bra,
    /// `BRA.DIV`
    BraDiv,
    /// `BRA.CONV Umask, target`: ptxas's test before a warp-synchronous operation on the lanes
    /// of `Umask` (`~URZ`: all 32): taken to the operation's direct form when the lanes executing
    /// it are exactly the mask's, else on to the software path (`WARPSYNC mask` first).
    BraConv,
    /// `EXIT`
    Exit,
    /// `CALL.REL.NOINC` (direct, or through a register relative to the next instruction)
    Call,
    /// `BRX Ra imm`: indirect branch (jump tables)
    Brx,
    /// `RET.REL.NODEC`
    Ret,
    /// `HMMA`, `IMMA`: one warp-wide `mma` (PTX ISA §9.7.14.5) on register fragments.
    Mma(MmaSpec),
    /// `HGMMA`, `IGMMA`, `QGMMA`: one warp's 16 rows of a warpgroup MMA (`wgmma.mma_async`,
    /// PTX ISA §9.7.15), completed at issue.
    Gmma(WgmmaSpec),
    /// `LDSM.16.M88{.2,.4}` / `LDSM.16.MT88{…}`: `ldmatrix` of 1, 2 or 4 8×8 b16 matrices.
    Ldsm {
        /// Matrices (1, 2, 4).
        num: u8,
        /// `.MT88`: transposed.
        trans: bool,
    },
    /// `STSM.16.M88{.2,.4}` / `STSM.16.MT88{…}`: `stmatrix` of 1, 2 or 4 8×8 b16 matrices (sm_90).
    Stsm {
        /// Matrices (1, 2, 4).
        num: u8,
        /// `.MT88`: transposed.
        trans: bool,
    },
    /// `LDGSTS`: an asynchronous global → shared copy (`cp.async`).
    Ldgsts {
        /// Bytes (4, 8, 16).
        bytes: u32,
        /// `.ZFILL`: the low bits of the source address count the bytes to zero-fill.
        zfill: bool,
    },
    /// `LDGDEPBAR`: closes the thread's current group of `LDGSTS` copies (`commit_group`).
    Ldgdepbar,
    /// `DEPBAR.LE SB0, n`: waits until at most `n` `LDGSTS` groups are outstanding
    /// (`cp.async.wait_group n`).
    DepbarLdgsts,
    /// `ELECT Pd, URd, PT` (`elect.sync`): `Pd` true in the lowest executing lane only, `URd` that
    /// lane's index.
    Elect,
    /// `SYNCS.EXCH.64 URZ, [a], URs`: `mbarrier.init` with ptxas's initialisation word
    /// ([`crate::emu::mbarrier::ptxas_init_word`]).
    MbarInit,
    /// `SYNCS.ARRIVE.TRANS64[.RED][.A1T0|.ART0|.A0TR] Rd, [a], Rs`: `mbarrier.arrive` (one
    /// arrival, `Rs` arrivals, or none) with `Rs` expected transaction bytes (`tx`); `Rd` pair gets
    /// the state unless `.RED`.
    MbarArrive {
        /// Arrivals.
        count: Arrivals,
        /// `Rs` is added to the expected transaction bytes.
        tx: bool,
    },
    /// `SYNCS.PHASECHK.TRANS64[.TRYWAIT] Pd, [a], Rs`: whether the phase of parity `Rs` bit 31
    /// has completed (`mbarrier.test_wait`/`try_wait`, with a state's high word or a parity).
    MbarTest,
    /// `SYNCS.CCTL.IV [a]`: `mbarrier.inval`.
    MbarInval,
    /// `UTMALDG.<n>D [URa], [URb]` / `UTMASTG.<n>D`: a tile-mode tensor copy through the tensor
    /// map at the address in `URb` pair; shared address, (loads) mbarrier, coordinates in
    /// `URa`, `URa+1`, ….
    Tma {
        /// Dimensions (1–5).
        rank: u8,
        /// Global → shared (else shared → global).
        load: bool,
    },
    /// `FRND[.F64][.FTZ][.TRUNC|.FLOOR|.CEIL]`: rounds to an integral value in the same format
    /// (`cvt.rni/rzi/rmi/rpi` between equal float types).
    Frnd {
        /// f64 (a register pair).
        f64: bool,
        /// The rounding (none: to nearest even).
        rnd: Rnd,
        /// Flush subnormal inputs and results.
        ftz: bool,
    },
    /// `IDP.4A.<a>.<b>` / `IDP.2A.{LO,HI}.<a>.<b>`: `dp4a` / `dp2a`.
    Idp {
        /// `.2A` (else `.4A`).
        two: bool,
        /// `.HI`: bytes 2–3 of `b` (`.2A`).
        hi: bool,
        /// `a`'s elements are signed.
        a_signed: bool,
        /// `b`'s elements are signed.
        b_signed: bool,
    },
    /// `BMSK[.W] Rd, Rpos, width`: `bmsk.clamp` (`.W`: `bmsk.wrap`).
    Bmsk {
        /// `.W`
        wrap: bool,
    },
    /// `HMNMX2[.NAN][.BF16_V2] Rd, Ra, Rb, Pmin`: per-half min (`Pmin` true) or max.
    Hmnmx2 {
        /// `.NAN`: a NaN operand gives a canonical NaN.
        nan: bool,
        /// bf16 halves (else f16).
        bf16: bool,
    },
    /// `HSET2[.BF].<cmp>.<bop> Rd, Ra, Rb, Pc`: per half, the comparison combined with `Pc`;
    /// `0xffff` (`.BF`: 1.0) where it holds, else 0.
    Hset2 {
        /// Comparison.
        cmp: Cmp,
        /// Combination with `Pc`.
        bop: BoolOp,
        /// `.BF`: a float 1.0 result.
        bf: bool,
    },
    /// `PRMT.<mode> Rd, Ra, Rsel, Rb`: `prmt` in a mode other than the default (`.F4E`, `.B4E`,
    /// `.RC8`, `.ECL`, `.ECR`, `.RC16`), the PTX emulator's function.
    PrmtMode(crate::emu::domain::PrmtMode),
    /// `USETMAXREG.TRY_ALLOC.CTAPOOL UPd, n` / `USETMAXREG.DEALLOC.CTAPOOL n` (`setmaxnreg.inc` /
    /// `.dec`): the warp's register budget changes; an emulated warp has every register it
    /// names, so an allocation always succeeds (`UPd` true) and neither changes a value.
    Setmaxreg,
    /// `UCGABAR_ARV`: the executing threads arrive at the cluster barrier
    /// (`barrier.cluster.arrive`, every form).
    ClusterArrive,
    /// `UCGABAR_WAIT`: waits until the phase the executing threads arrived in has completed
    /// (`barrier.cluster.wait`).
    ClusterWait,
    /// `STAS[.64|.128] [Ra.64], Rb`: `st.async.shared::cluster.mbarrier::complete_tx::bytes` of
    /// 4, 8 or 16 bytes at the cluster shared address in `Ra`, completing them on the mbarrier
    /// at the one in `Ra+1`.
    StAsync {
        /// Bytes stored.
        bytes: u32,
    },
    /// `UBLKCP.S.G [URa], [URb], URc` / `UBLKCP.G.S [URa], [URb], URc`: `cp.async.bulk` of `URc`
    /// 16-byte units from global memory (the address in the `URb` pair) into shared memory at
    /// `URa`, completed on the mbarrier at `URa+1`; or from shared memory at `URb` to global
    /// memory at the `URa` pair (a bulk group: complete when issued).
    BulkCopy {
        /// Global → shared.
        load: bool,
    },
    /// Instructions without architectural effect here (`NOP`, `YIELD`, `MEMBAR`, `ERRBAR`,
    /// `CCTL`, `DEPBAR` on scoreboards other than SB0, `FENCE`, …).
    Nop,
    /// Not implemented.
    Unsupported(String),
}

/// The arrivals of `SYNCS.ARRIVE.TRANS64`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Arrivals {
    /// None (`.A0TR`: `mbarrier.expect_tx`).
    Zero,
    /// One (no modifier: `arrive.expect_tx`; `.A1T0`: `arrive`).
    One,
    /// The source register's value (`.ART0`: `arrive` with a count).
    Reg,
}

fn cmp_of(mods: &[String]) -> Option<Cmp> {
    mods.iter().find_map(|m| {
        Some(match m.as_str() {
            "F" => Cmp::F,
            "LT" => Cmp::Lt,
            "EQ" => Cmp::Eq,
            "LE" => Cmp::Le,
            "GT" => Cmp::Gt,
            "NE" => Cmp::Ne,
            "GE" => Cmp::Ge,
            "NUM" => Cmp::Num,
            "NAN" => Cmp::Nan,
            "LTU" => Cmp::Ltu,
            "EQU" => Cmp::Equ,
            "LEU" => Cmp::Leu,
            "GTU" => Cmp::Gtu,
            "NEU" => Cmp::Neu,
            "GEU" => Cmp::Geu,
            "T" => Cmp::T,
            _ => return None,
        })
    })
}

fn bop_of(mods: &[String]) -> BoolOp {
    if mods.iter().any(|m| m == "OR") {
        BoolOp::Or
    } else if mods.iter().any(|m| m == "XOR") {
        BoolOp::Xor
    } else {
        BoolOp::And
    }
}

fn rnd_of(p: &Parsed) -> Rnd {
    if p.has("RZ") || p.has("TRUNC") {
        Rnd::Rz
    } else if p.has("RM") || p.has("FLOOR") {
        Rnd::Rm
    } else if p.has("RP") || p.has("CEIL") {
        Rnd::Rp
    } else {
        Rnd::Rn
    }
}

fn fmods(p: &Parsed) -> FMods {
    FMods {
        rnd: rnd_of(p),
        ftz: p.has("FTZ"),
        sat: p.has("SAT"),
    }
}

fn width(p: &Parsed) -> Width {
    let mut w = Width {
        bytes: 4,
        signed: false,
    };
    for m in &p.mods {
        match m.as_str() {
            "U8" => w.bytes = 1,
            "S8" => {
                w.bytes = 1;
                w.signed = true;
            }
            "U16" => w.bytes = 2,
            "S16" => {
                w.bytes = 2;
                w.signed = true;
            }
            "64" => w.bytes = 8,
            "128" => w.bytes = 16,
            _ => {}
        }
    }
    w
}

fn int_ty(p: &Parsed, default_signed: bool) -> (u32, bool) {
    let mut r = (32, default_signed);
    for m in &p.mods {
        match m.as_str() {
            "U32" => r = (32, false),
            "S32" => r = (32, true),
            "U64" => r = (64, false),
            "S64" => r = (64, true),
            "U16" => r = (16, false),
            "S16" => r = (16, true),
            "U8" => r = (8, false),
            "S8" => r = (8, true),
            _ => {}
        }
    }
    r
}

/// Modifiers that only concern caching, scheduling or scope: accepted on memory instructions.
const MEM_HINTS: &[&str] = &[
    "E", "CONSTANT", "STRONG", "GPU", "SYS", "SM", "CTA", "EF", "EL", "LU", "EU", "NA", "LTC128B",
    "U", "ZD", "PRIVATE", "WEAK", "MMIO", "BYPASS",
];

fn mem_mods_ok(p: &Parsed, extra: &[&str]) -> Result<(), String> {
    for m in &p.mods {
        let known = MEM_HINTS.contains(&m.as_str())
            || extra.contains(&m.as_str())
            || matches!(
                m.as_str(),
                "U8" | "S8" | "U16" | "S16" | "32" | "64" | "128"
            );
        if !known {
            return Err(format!("memory modifier .{m}"));
        }
    }
    Ok(())
}

/// Decodes a parsed instruction.
pub fn decode(p: &Parsed) -> Kind {
    match decode_inner(p) {
        Ok(k) => k,
        Err(why) => Kind::Unsupported(why),
    }
}

/// One class's answer: its kind, `None` for a mnemonic of another class, or why it is unsupported.
type Decoded = Result<Option<Kind>, String>;

/// The instruction classes [`decode_inner`] tries in turn: each decodes the mnemonics of its
/// class and answers `None` for the others.
const DECODERS: [fn(&Parsed) -> Decoded; 11] = [
    decode_tensor,
    decode_tma,
    decode_move,
    decode_int,
    decode_bits,
    decode_compare,
    decode_float,
    decode_convert,
    decode_memory,
    decode_collective,
    decode_control,
];

fn decode_inner(p: &Parsed) -> Result<Kind, String> {
    for decoder in DECODERS {
        if let Some(k) = decoder(p)? {
            return Ok(k);
        }
    }
    Err(format!("mnemonic {}", p.op))
}

/// Moves: registers, special registers, constant banks, selects, predicate-register transfers.
fn decode_move(p: &Parsed) -> Decoded {
    let m = |s: &str| p.has(s);
    Ok(Some(match p.op.as_str() {
        "MOV" | "UMOV" | "R2UR" => Kind::Mov,
        "S2R" | "S2UR" => Kind::S2r { wide: false },
        "CS2R" => Kind::S2r { wide: !m("32") },
        "LDC" | "ULDC" => Kind::Ldc { w: width(p) },
        "SEL" | "FSEL" | "USEL" => Kind::Sel,
        "P2R" => {
            if p.mods.iter().any(|x| x.starts_with('B')) {
                return Err("P2R with a byte selector".into());
            }
            Kind::P2r
        }
        "R2P" => {
            if p.mods.iter().any(|x| x.starts_with('B')) {
                return Err("R2P with a byte selector".into());
            }
            Kind::R2p
        }
        _ => return Ok(None),
    }))
}

/// Integer arithmetic: multiply-add, adds, `LEA`, absolute value, min/max.
fn decode_int(p: &Parsed) -> Decoded {
    let m = |s: &str| p.has(s);
    Ok(Some(match p.op.as_str() {
        "IMAD" | "UIMAD" => Kind::Imad {
            hi: m("HI"),
            wide: m("WIDE"),
            signed: !m("U32"),
            x: m("X"),
        },
        "UIADD3" if m("64") => {
            if p.mods.len() != 1 || p.ops.len() != 4 {
                return Err(format!("UIADD3.{} with carries", p.mods.join(".")));
            }
            Kind::Iadd64
        }
        "IADD3" | "UIADD3" => {
            if let Some(other) = p.mods.iter().find(|x| *x != "X") {
                return Err(format!("{} modifier .{other}", p.op));
            }
            Kind::Iadd3 { x: m("X") }
        }
        "VIADD" => Kind::Viadd,
        "LEA" | "ULEA" => Kind::Lea {
            hi: m("HI"),
            x: m("X"),
            sx32: m("SX32"),
        },
        "IABS" => Kind::Iabs,
        "IMNMX" | "VIMNMX" | "UIMNMX" => Kind::Imnmx { unsigned: m("U32") },
        "VIADDMNMX" => Kind::Viaddmnmx { unsigned: m("U32") },
        "IDP" => decode_idp(p)?,
        _ => return Ok(None),
    }))
}

/// `IDP.4A.<a>.<b>` and `IDP.2A.{LO,HI}.<a>.<b>` (`dp4a`, `dp2a`): the element types of `a` and
/// `b`, in that order (`S8`/`U8`, and for `.2A` `S16`/`U16` first).
fn decode_idp(p: &Parsed) -> Result<Kind, String> {
    let mods: Vec<&str> = p.mods.iter().map(String::as_str).collect();
    let sign = |x: &str, bits: &str| match x.strip_prefix('S').or(x.strip_prefix('U')) {
        Some(b) if b == bits => Ok(x.starts_with('S')),
        _ => Err(format!("IDP.{}", p.mods.join("."))),
    };
    match mods[..] {
        ["4A", a, b] => Ok(Kind::Idp {
            two: false,
            hi: false,
            a_signed: sign(a, "8")?,
            b_signed: sign(b, "8")?,
        }),
        ["2A", half @ ("LO" | "HI"), a, b] => Ok(Kind::Idp {
            two: true,
            hi: half == "HI",
            a_signed: sign(a, "16")?,
            b_signed: sign(b, "8")?,
        }),
        _ => Err(format!("IDP.{}", p.mods.join("."))),
    }
}

/// Logic, shifts and bit operations.
fn decode_bits(p: &Parsed) -> Decoded {
    let m = |s: &str| p.has(s);
    Ok(Some(match p.op.as_str() {
        "LOP3" | "ULOP3" => {
            if !m("LUT") {
                return Err("LOP3 without .LUT".into());
            }
            Kind::Lop3
        }
        "PLOP3" | "UPLOP3" => Kind::Plop3,
        "SHF" | "USHF" => {
            let (bits, signed) = int_ty(p, false);
            Kind::Shf {
                left: m("L"),
                w64: bits == 64,
                signed,
                hi: m("HI"),
                wrap: m("W"),
            }
        }
        "PRMT" | "UPRMT" => {
            use crate::emu::domain::PrmtMode;
            match p.mods.iter().map(String::as_str).collect::<Vec<_>>()[..] {
                [] => Kind::Prmt,
                [mode] => Kind::PrmtMode(match mode {
                    "F4E" => PrmtMode::F4e,
                    "B4E" => PrmtMode::B4e,
                    "RC8" => PrmtMode::Rc8,
                    "ECL" => PrmtMode::Ecl,
                    "ECR" => PrmtMode::Ecr,
                    "RC16" => PrmtMode::Rc16,
                    _ => return Err(format!("PRMT mode .{mode}")),
                }),
                _ => return Err(format!("PRMT mode .{}", p.mods.join("."))),
            }
        }
        "POPC" | "UPOPC" => Kind::Popc,
        "FLO" | "UFLO" => Kind::Flo {
            signed: !m("U32"),
            sh: m("SH"),
        },
        "BREV" | "UBREV" => Kind::Brev,
        "SGXT" | "USGXT" => Kind::Sgxt { signed: !m("U32") },
        "BMSK" | "UBMSK" => match p.mods.iter().map(String::as_str).collect::<Vec<_>>()[..] {
            [] => Kind::Bmsk { wrap: false },
            ["W"] => Kind::Bmsk { wrap: true },
            _ => return Err(format!("{}.{}", p.op, p.mods.join("."))),
        },
        _ => return Ok(None),
    }))
}

/// Comparisons setting predicates (or, for `FSET`, a register).
fn decode_compare(p: &Parsed) -> Decoded {
    let m = |s: &str| p.has(s);
    Ok(Some(match p.op.as_str() {
        "ISETP" | "UISETP" => Kind::Isetp {
            cmp: cmp_of(&p.mods).ok_or("ISETP without comparison")?,
            unsigned: m("U32"),
            bop: bop_of(&p.mods),
            ex: m("EX"),
        },
        "FSETP" | "DSETP" => Kind::Fsetp {
            cmp: cmp_of(&p.mods).ok_or("FSETP without comparison")?,
            bop: bop_of(&p.mods),
            ftz: m("FTZ"),
            f64: p.op == "DSETP",
        },
        "HSET2" => {
            if let Some(x) = p.mods.iter().find(|x| {
                x.as_str() != "BF"
                    && cmp_of(std::slice::from_ref(*x)).is_none()
                    && !matches!(x.as_str(), "AND" | "OR" | "XOR")
            }) {
                return Err(format!("HSET2 modifier .{x}"));
            }
            Kind::Hset2 {
                cmp: cmp_of(&p.mods).ok_or("HSET2 without comparison")?,
                bop: bop_of(&p.mods),
                bf: m("BF"),
            }
        }
        "FSET" => Kind::Fset {
            cmp: cmp_of(&p.mods).ok_or("FSET without comparison")?,
            bop: bop_of(&p.mods),
            bf: m("BF"),
            ftz: m("FTZ"),
        },
        _ => return Ok(None),
    }))
}

/// f32/f64 arithmetic, `MUFU`, packed half precision.
fn decode_float(p: &Parsed) -> Decoded {
    let m = |s: &str| p.has(s);
    Ok(Some(match p.op.as_str() {
        "FADD" | "FMUL" | "FFMA" => {
            for x in &p.mods {
                if !matches!(x.as_str(), "FTZ" | "SAT" | "RZ" | "RM" | "RP" | "RN") {
                    return Err(format!("{} modifier .{x}", p.op));
                }
            }
            let f = fmods(p);
            match p.op.as_str() {
                "FADD" => Kind::Fadd(f),
                "FMUL" => Kind::Fmul(f),
                _ => Kind::Ffma(f),
            }
        }
        "FMNMX" => Kind::Fmnmx { ftz: m("FTZ") },
        "HMNMX2" => {
            if let Some(x) = p
                .mods
                .iter()
                .find(|x| !matches!(x.as_str(), "NAN" | "BF16_V2"))
            {
                return Err(format!("HMNMX2 modifier .{x}"));
            }
            Kind::Hmnmx2 {
                nan: m("NAN"),
                bf16: m("BF16_V2"),
            }
        }
        "FRND" => {
            if let Some(x) = p
                .mods
                .iter()
                .find(|x| !matches!(x.as_str(), "F64" | "FTZ" | "TRUNC" | "FLOOR" | "CEIL"))
            {
                return Err(format!("FRND modifier .{x}"));
            }
            Kind::Frnd {
                f64: m("F64"),
                rnd: if m("TRUNC") {
                    Rnd::Rz
                } else if m("FLOOR") {
                    Rnd::Rm
                } else if m("CEIL") {
                    Rnd::Rp
                } else {
                    Rnd::Rn
                },
                ftz: m("FTZ"),
            }
        }
        "DADD" => Kind::Dadd(rnd_of(p)),
        "DMUL" => Kind::Dmul(rnd_of(p)),
        "DFMA" => Kind::Dfma(rnd_of(p)),
        "FCHK" => Kind::Fchk,
        "MUFU" => Kind::Mufu(match p.mods.first().map(String::as_str) {
            Some("RCP") => Mufu::Rcp,
            Some("RSQ") => Mufu::Rsq,
            Some("EX2") => Mufu::Ex2,
            Some("LG2") => Mufu::Lg2,
            Some("SIN") => Mufu::Sin,
            Some("COS") => Mufu::Cos,
            Some("SQRT") => Mufu::Sqrt,
            Some("RCP64H") => Mufu::Rcp64h,
            Some("RSQ64H") => Mufu::Rsq64h,
            Some("TANH") => Mufu::Tanh,
            other => return Err(format!("MUFU.{}", other.unwrap_or(""))),
        }),
        "HADD2" | "HMUL2" | "HFMA2" => {
            for x in &p.mods {
                if !matches!(x.as_str(), "MMA" | "F32" | "FTZ" | "SAT" | "BF16_V2") {
                    return Err(format!("{} modifier .{x}", p.op));
                }
            }
            if m("F32") && m("BF16_V2") {
                return Err(format!("{}.F32.BF16_V2", p.op));
            }
            Kind::H2 {
                op: match p.op.as_str() {
                    "HADD2" => 0,
                    "HMUL2" => 1,
                    _ => 2,
                },
                f32: m("F32"),
                bf16: m("BF16_V2"),
                m: fmods(p),
            }
        }
        _ => return Ok(None),
    }))
}

/// Conversions between integers and floats.
fn decode_convert(p: &Parsed) -> Decoded {
    let m = |s: &str| p.has(s);
    Ok(Some(match p.op.as_str() {
        "F2I" => {
            let (bits, signed) = int_ty(p, true);
            Kind::F2i {
                src64: m("F64"),
                bits,
                signed,
                rnd: rnd_of(p),
                ftz: m("FTZ"),
            }
        }
        "I2F" | "I2FP" => {
            // `I2F.F64.S64`: the first type is the destination when two are given.
            let mut dst64 = m("F64");
            let mut bits = 32;
            let mut signed = true;
            for x in &p.mods {
                match x.as_str() {
                    "U32" => (bits, signed) = (32, false),
                    "S32" => (bits, signed) = (32, true),
                    "U64" => (bits, signed) = (64, false),
                    "S64" => (bits, signed) = (64, true),
                    "U16" => (bits, signed) = (16, false),
                    "S16" => (bits, signed) = (16, true),
                    "U8" => (bits, signed) = (8, false),
                    "S8" => (bits, signed) = (8, true),
                    "F16" => return Err("I2F to f16".into()),
                    "F32" => dst64 = false,
                    _ => {}
                }
            }
            Kind::I2f {
                dst64,
                bits,
                signed,
                rnd: rnd_of(p),
            }
        }
        "F2F" => {
            let tys: Vec<u32> = p
                .mods
                .iter()
                .filter_map(|x| match x.as_str() {
                    "F16" | "BF16" => Some(16),
                    "F32" => Some(32),
                    "F64" => Some(64),
                    _ => None,
                })
                .collect();
            if tys.len() != 2 || tys[0] == tys[1] || p.has("BF16") && p.has("F16") {
                return Err(format!("F2F.{}", p.mods.join(".")));
            }
            Kind::F2f {
                dst: tys[0],
                src: tys[1],
                bf16: p.has("BF16"),
                rnd: rnd_of(p),
                ftz: m("FTZ"),
            }
        }
        "F2FP" => decode_f2fp(p)?,
        _ => return Ok(None),
    }))
}

/// `F2FP`: f32 pairs packed into f16x2/bf16x2, and the 8-bit float conversions. Every modifier
/// must be one the emulator models; a `MERGE_C` form must merge `RZ` (what ptxas 12.8 and later
/// emit for PTX's `cvt` to `e4m3x2`/`e5m2x2`, sm_89 and sm_90) or the high half of a plain
/// register (`R33.H1`, ptxas 12.4: the high 16 bits of the result are kept from it); any other
/// merge operand is refused.
fn decode_f2fp(p: &Parsed) -> Result<Kind, String> {
    use crate::emu::fp8::Fp8;
    let refuse = || format!("F2FP.{}", p.mods.join("."));
    let fp8 = match (p.has("E4M3"), p.has("E5M2")) {
        (true, false) => Some(Fp8::E4m3),
        (false, true) => Some(Fp8::E5m2),
        (false, false) => None,
        _ => return Err(refuse()),
    };
    if let Some(fmt) = fp8 {
        use super::operand::{Opnd, Sel, RZ};
        use crate::emu::fp8::Fp8Cvt;
        let merge = match p.ops.last() {
            Some(Opnd::R { n: RZ, .. }) => Some(false),
            Some(Opnd::R {
                neg: false,
                abs: false,
                not: false,
                sel: Sel::H(1),
                ..
            }) => Some(true),
            _ => None,
        };
        let merges_zero = merge.is_some();
        let sat = p.has("SATFINITE");
        let how = if sat && p.has("F32") && p.has("PACK_AB_MERGE_C") && merges_zero {
            Fp8Cvt::FromF32Pair
        } else if sat && p.has("F16") && p.has("UNPACK_B_MERGE_C") && merges_zero {
            Fp8Cvt::FromF16x2
        } else if !sat && p.has("F16") && p.has("UNPACK_B") {
            Fp8Cvt::ToF16x2
        } else {
            return Err(refuse());
        };
        let known = [
            "SATFINITE",
            "RELU",
            "E4M3",
            "E5M2",
            "F32",
            "F16",
            "PACK_AB_MERGE_C",
            "UNPACK_B_MERGE_C",
            "UNPACK_B",
        ];
        if p.mods.iter().any(|m| !known.contains(&m.as_str())) {
            return Err(refuse());
        }
        return Ok(Kind::F2fpFp8 {
            fmt,
            how,
            relu: p.has("RELU"),
            merge_high: how != Fp8Cvt::ToF16x2 && merge == Some(true),
        });
    }
    // sm_80 prints `F2FP.PACK_AB` (f16) and `F2FP.BF16.PACK_AB`; sm_90 names both types.
    let known = [
        "PACK_AB", "F16", "BF16", "F32", "RZ", "RM", "RP", "RN", "RELU",
    ];
    if !p.has("PACK_AB")
        || p.has("BF16") && p.has("F16")
        || p.mods.iter().any(|m| !known.contains(&m.as_str()))
    {
        return Err(refuse());
    }
    Ok(Kind::F2fp {
        f16: !p.has("BF16"),
        rnd: rnd_of(p),
        relu: p.has("RELU"),
    })
}

/// Loads, stores, atomics and reductions.
fn decode_memory(p: &Parsed) -> Decoded {
    let m = |s: &str| p.has(s);
    Ok(Some(match p.op.as_str() {
        "LDG" | "LDS" | "LDL" | "LD" => {
            mem_mods_ok(p, &[])?;
            Kind::Ld {
                space: space_of(&p.op),
                w: width(p),
            }
        }
        "STG" | "STS" | "STL" | "ST" => {
            mem_mods_ok(p, &[])?;
            Kind::St {
                space: space_of(&p.op),
                w: width(p),
            }
        }
        "QSPC" => {
            let space = match (p.has("G"), p.has("S"), p.has("L")) {
                (true, false, false) => Space::Global,
                (false, true, false) => Space::Shared,
                (false, false, true) => Space::Local,
                _ => return Err(format!("QSPC modifiers {:?}", p.mods)),
            };
            // The register destination's meaning is not known: only RZ is accepted.
            match (p.ops.first(), p.ops.get(1), p.ops.get(2)) {
                (Some(Opnd::P { .. }), Some(Opnd::R { n: RZ, .. }), Some(Opnd::Mem(_)))
                    if p.mods
                        .iter()
                        .all(|x| matches!(x.as_str(), "E" | "G" | "S" | "L")) =>
                {
                    Kind::Qspc(space)
                }
                _ => return Err("QSPC with a register destination or other operands".into()),
            }
        }
        "ATOMG" | "ATOM" | "ATOMS" | "RED" | "REDG" => {
            let mut op = None;
            let mut ty = AtomTy::U32;
            if m("POPC") && !m("INC") {
                return Err("ATOMS.POPC without .INC".into());
            }
            for x in &p.mods {
                match x.as_str() {
                    "ADD" => op = Some(AtomOp::Add),
                    "MIN" => op = Some(AtomOp::Min),
                    "MAX" => op = Some(AtomOp::Max),
                    "EXCH" => op = Some(AtomOp::Exch),
                    "CAS" => op = Some(AtomOp::Cas),
                    "CAST" if m("SPIN") && p.op == "ATOMS" => op = Some(AtomOp::CasSpin),
                    "SPIN" => {}
                    "AND" => op = Some(AtomOp::And),
                    "OR" => op = Some(AtomOp::Or),
                    "XOR" => op = Some(AtomOp::Xor),
                    "INC" => op = Some(AtomOp::Inc),
                    "DEC" => op = Some(AtomOp::Dec),
                    "S32" => ty = AtomTy::S32,
                    "U32" => ty = AtomTy::U32,
                    "64" | "U64" => ty = AtomTy::U64,
                    "S64" => ty = AtomTy::S64,
                    "F32" => ty = AtomTy::F32,
                    "F64" => ty = AtomTy::F64,
                    "F16x2" if m("ADD") => ty = AtomTy::F16x2,
                    "BF16x2" if m("ADD") => ty = AtomTy::Bf16x2,
                    "FTZ" | "RN" | "E" | "STRONG" | "GPU" | "SYS" | "CTA" | "SM" | "32" => {}
                    "POPC" => {}
                    other => return Err(format!("{} modifier .{other}", p.op)),
                }
            }
            // `ATOMS.POPC.INC` is an add of one per lane, not `atom.inc`'s wrapping increment.
            if m("POPC") {
                op = Some(AtomOp::Add);
            }
            Kind::Atom {
                space: space_of(&p.op),
                op: op.ok_or("atomic without operation")?,
                ty,
                red: p.op.starts_with("RED"),
                popc_inc: m("POPC") && m("INC"),
            }
        }
        _ => return Ok(None),
    }))
}

/// Warp collectives: shuffles, votes, reductions, matches.
fn decode_collective(p: &Parsed) -> Decoded {
    let m = |s: &str| p.has(s);
    Ok(Some(match p.op.as_str() {
        "SHFL" => Kind::Shfl(match p.mods.first().map(String::as_str) {
            Some("IDX") => Shfl::Idx,
            Some("UP") => Shfl::Up,
            Some("DOWN") => Shfl::Down,
            Some("BFLY") => Shfl::Bfly,
            _ => return Err("SHFL mode".into()),
        }),
        "VOTE" | "VOTEU" => Kind::Vote {
            mode: match p.mods.first().map(String::as_str) {
                Some("ALL") => 0,
                Some("ANY") => 1,
                Some("EQ") => 2,
                _ => return Err("VOTE mode".into()),
            },
            uniform: p.op == "VOTEU",
        },
        "REDUX" => {
            let op = match p.mods.first().map(String::as_str) {
                Some("SUM") => 0,
                Some("MIN") => 1,
                Some("MAX") => 2,
                Some("AND") => 3,
                Some("OR") => 4,
                Some("XOR") => 5,
                _ => return Err("REDUX operation".into()),
            };
            Kind::Redux {
                op,
                signed: m("S32"),
            }
        }
        "MATCH" => Kind::Match {
            all: m("ALL"),
            wide: m("U64") || m("64"),
        },
        _ => return Ok(None),
    }))
}

/// Control flow, convergence and CTA barriers, and instructions without effect here.
fn decode_control(p: &Parsed) -> Decoded {
    let m = |s: &str| p.has(s);
    Ok(Some(match p.op.as_str() {
        "BAR" => {
            let red = if m("SYNC") {
                0
            } else if m("RED") && m("POPC") {
                1
            } else if m("RED") && m("AND") {
                2
            } else if m("RED") && m("OR") {
                3
            } else if m("ARV") {
                4
            } else {
                return Err(format!("BAR.{}", p.mods.join(".")));
            };
            Kind::Bar { red }
        }
        "B2R" => {
            if !m("RESULT") {
                return Err("B2R without .RESULT".into());
            }
            Kind::B2r
        }
        "BSSY" => Kind::Bssy,
        "BSYNC" => Kind::Bsync,
        "BREAK" => Kind::Break,
        "BMOV" => Kind::Bmov { clear: m("CLEAR") },
        "WARPSYNC" => {
            if m("COLLECTIVE") {
                return Err("WARPSYNC.COLLECTIVE (collective in divergent code)".into());
            }
            Kind::Warpsync
        }
        "BRA" => {
            if m("DIV") {
                Kind::BraDiv
            } else if m("CONV") && p.mods.len() == 1 {
                Kind::BraConv
            } else if p.mods.is_empty() || m("U") {
                Kind::Bra
            } else {
                return Err(format!("BRA.{}", p.mods.join(".")));
            }
        }
        "EXIT" => Kind::Exit,
        "CALL" => {
            if m("ABS") {
                return Err("CALL.ABS".into());
            }
            Kind::Call
        }
        "BRX" => Kind::Brx,
        "RET" => Kind::Ret,
        // `NANOSLEEP` only delays its warp. `ACQBULK` (`griddepcontrol.wait`) waits for the
        // grids this one depends on, and `PREEXIT` (`griddepcontrol.launch_dependents`) lets
        // dependent grids start early: an emulated launch has neither (as `griddepcontrol` in
        // the PTX emulator).
        "NOP" | "YIELD" | "MEMBAR" | "ERRBAR" | "CGAERRBAR" | "CCTL" | "DEPBAR" | "FENCE"
        | "NANOSLEEP" | "ACQBULK" | "PREEXIT" | "ENDCOLLECTIVE" => {
            if p.op == "ENDCOLLECTIVE" {
                return Err("ENDCOLLECTIVE (collective in divergent code)".into());
            }
            Kind::Nop
        }
        _ => return Ok(None),
    }))
}

/// Tensor-core and asynchronous-copy instructions (sm_80 encodings, also sm_86/89/90):
/// `HMMA.<shape>.<D type>[.BF16|.TF32]`, `IMMA.<shape>.<A type>.<B type>[.SAT]` with `.ROW`/`.COL`
/// operands, `LDSM`, `LDGSTS`, `LDGDEPBAR`, `DEPBAR.LE SB0, n`.
fn decode_tensor(p: &Parsed) -> Decoded {
    Ok(Some(match p.op.as_str() {
        "HMMA" => Kind::Mma(hmma_spec(p)?),
        "HGMMA" | "IGMMA" | "QGMMA" => Kind::Gmma(gmma_spec(p)?),
        // Warpgroup MMAs complete when they are issued: the fence and the wait have nothing
        // left to do (as `wgmma.fence`/`wait_group` in the PTX emulator).
        "WARPGROUP" if p.has("ARRIVE") || p.has("DEPBAR") => Kind::Nop,
        "IMMA" => Kind::Mma(imma_spec(p)?),
        "LDSM" => {
            let (num, trans) = matrix_shape(p)?;
            Kind::Ldsm { num, trans }
        }
        "STSM" => {
            let (num, trans) = matrix_shape(p)?;
            Kind::Stsm { num, trans }
        }
        "LDGSTS" => {
            mem_mods_ok(p, &["ZFILL", "LTC64B", "LTC128B", "LTC256B"])?;
            let w = width(p);
            if w.signed || w.bytes < 4 {
                return Err(format!("LDGSTS.{}", p.mods.join(".")));
            }
            Kind::Ldgsts {
                bytes: w.bytes,
                zfill: p.has("ZFILL"),
            }
        }
        "LDGDEPBAR" => Kind::Ldgdepbar,
        "DEPBAR" => match p.ops.first() {
            Some(Opnd::Sb(0)) if p.has("LE") => Kind::DepbarLdgsts,
            Some(Opnd::Sb(0)) => return Err(format!("DEPBAR.{} on SB0", p.mods.join("."))),
            _ => Kind::Nop,
        },
        _ => return Ok(None),
    }))
}

/// TMA, mbarrier and cluster instructions of sm_90 (forms read off ptxas 12.9 for every
/// `mbarrier` and `cp.async.bulk.tensor` tile form Triton's kernels use, every `barrier.cluster`
/// form and `st.async` of every width; any other modifier is refused):
/// `ELECT`, `SYNCS.EXCH.64`, `SYNCS.ARRIVE.TRANS64`, `SYNCS.PHASECHK.TRANS64`, `SYNCS.CCTL.IV`,
/// `UCGABAR_ARV`, `UCGABAR_WAIT`, `STAS`,
/// `UTMALDG`/`UTMASTG`, `UBLKCP.S.G`/`.G.S` and `UTMACMDFLUSH` (`cp.async.bulk.commit_group`:
/// the copies complete when issued).
fn decode_tma(p: &Parsed) -> Decoded {
    let mods: Vec<&str> = p.mods.iter().map(String::as_str).collect();
    let bad = || Err(format!("{}.{}", p.op, p.mods.join(".")));
    Ok(Some(match p.op.as_str() {
        "ELECT" => match p.ops.get(2) {
            Some(Opnd::P { n: PT, not: false }) if mods.is_empty() => Kind::Elect,
            _ => return Err("ELECT with a source predicate other than PT".into()),
        },
        "SYNCS" => match mods[..] {
            ["EXCH", "64"] => match p.ops.first() {
                Some(Opnd::Ur { n: URZ, .. }) => Kind::MbarInit,
                _ => return Err("SYNCS.EXCH.64 with a result".into()),
            },
            ["ARRIVE", "TRANS64", ref rest @ ..] => {
                let (red, rest) = match rest {
                    ["RED", r @ ..] => (true, r),
                    r => (false, r),
                };
                let (count, tx) = match rest {
                    [] => (Arrivals::One, true),
                    ["A1T0"] => (Arrivals::One, false),
                    ["ART0"] => (Arrivals::Reg, false),
                    ["A0TR"] => (Arrivals::Zero, true),
                    _ => return bad(),
                };
                if red && !matches!(p.ops.first(), Some(Opnd::R { n: RZ, .. })) {
                    return bad();
                }
                Kind::MbarArrive { count, tx }
            }
            ["PHASECHK", "TRANS64"] | ["PHASECHK", "TRANS64", "TRYWAIT"] => Kind::MbarTest,
            ["CCTL", "IV"] => Kind::MbarInval,
            _ => return bad(),
        },
        "STAS" => Kind::StAsync {
            bytes: match mods[..] {
                [] => 4,
                ["64"] => 8,
                ["128"] => 16,
                _ => return bad(),
            },
        },
        "USETMAXREG" => match mods[..] {
            ["TRY_ALLOC", "CTAPOOL"] | ["DEALLOC", "CTAPOOL"] => Kind::Setmaxreg,
            _ => return bad(),
        },
        "UCGABAR_ARV" if mods.is_empty() => Kind::ClusterArrive,
        "UCGABAR_WAIT" if mods.is_empty() => Kind::ClusterWait,
        "UCGABAR_ARV" | "UCGABAR_WAIT" => return bad(),
        "UTMALDG" | "UTMASTG" => {
            let rank = match mods[..] {
                ["1D"] => 1,
                ["2D"] => 2,
                ["3D"] => 3,
                ["4D"] => 4,
                ["5D"] => 5,
                _ => return bad(),
            };
            Kind::Tma {
                rank,
                load: p.op == "UTMALDG",
            }
        }
        "UTMACMDFLUSH" if mods.is_empty() => Kind::Nop,
        "UBLKCP" => match mods[..] {
            ["S", "G"] => Kind::BulkCopy { load: true },
            ["G", "S"] => Kind::BulkCopy { load: false },
            _ => return bad(),
        },
        _ => return Ok(None),
    }))
}

/// The matrices of `LDSM`/`STSM.16.<M88|MT88>[.2|.4]`: how many, transposed.
fn matrix_shape(p: &Parsed) -> Result<(u8, bool), String> {
    Ok(
        match p.mods.iter().map(String::as_str).collect::<Vec<_>>()[..] {
            ["16", "M88"] => (1, false),
            ["16", "M88", "2"] => (2, false),
            ["16", "M88", "4"] => (4, false),
            ["16", "MT88"] => (1, true),
            ["16", "MT88", "2"] => (2, true),
            ["16", "MT88", "4"] => (4, true),
            _ => return Err(format!("{}.{}", p.op, p.mods.join("."))),
        },
    )
}

/// The `mma` of `HMMA.<shape>.<F32|F16>[.BF16|.TF32]` (inputs f16 unless named; C has D's type).
fn hmma_spec(p: &Parsed) -> Result<MmaSpec, String> {
    let bad = || format!("HMMA.{}", p.mods.join("."));
    let mods: Vec<&str> = p.mods.iter().map(String::as_str).collect();
    let (shape, d, input) = match mods[..] {
        [s, d] => (s, d, Elem::F16),
        [s, d, "BF16"] => (s, d, Elem::Bf16),
        [s, d, "TF32"] => (s, d, Elem::Tf32),
        _ => return Err(bad()),
    };
    let d = match d {
        "F32" => Elem::F32,
        "F16" => Elem::F16,
        _ => return Err(bad()),
    };
    MmaSpec::new(
        shape_of(shape).ok_or_else(bad)?,
        [d, input, input, d],
        false,
    )
    .map_err(|e| format!("{}: {e}", bad()))
}

/// The `mma` of `IMMA.<shape>.<A>.<B>[.SAT] Rd, Ra.ROW, Rb.COL, Rc` (8-bit inputs, s32 C/D).
fn imma_spec(p: &Parsed) -> Result<MmaSpec, String> {
    let bad = || format!("IMMA.{}", p.mods.join("."));
    let mods: Vec<&str> = p.mods.iter().map(String::as_str).collect();
    let (shape, a, b, sat) = match mods[..] {
        [s, a, b] => (s, a, b, false),
        [s, a, b, "SAT"] => (s, a, b, true),
        _ => return Err(bad()),
    };
    let ty = |t: &str| match t {
        "S8" => Some(Elem::S8),
        "U8" => Some(Elem::U8),
        _ => None,
    };
    let row_col = [(1, "ROW".to_string()), (2, "COL".to_string())];
    if p.layouts != row_col {
        return Err(format!(
            "{}: operand layouts other than A.ROW, B.COL",
            bad()
        ));
    }
    let (a, b) = (ty(a).ok_or_else(bad)?, ty(b).ok_or_else(bad)?);
    MmaSpec::new(
        shape_of(shape).ok_or_else(bad)?,
        [Elem::S32, a, b, Elem::S32],
        sat,
    )
    .map_err(|e| format!("{}: {e}", bad()))
}

/// The `wgmma` of `HGMMA.64xNxK.<D>[.BF16|.TF32]`, `IGMMA.64xNx32.<A>.<B>[.SAT]`,
/// `QGMMA.64xNx32.<D>.<A>.<B>` (HGMMA inputs f16 unless named).
fn gmma_spec(p: &Parsed) -> Result<WgmmaSpec, String> {
    let bad = || format!("{}.{}", p.op, p.mods.join("."));
    let mods: Vec<&str> = p.mods.iter().map(String::as_str).collect();
    let ty = |t: &str| match t {
        "F32" => Some(Type::F32),
        "F16" => Some(Type::F16),
        "BF16" => Some(Type::Bf16),
        "TF32" => Some(Type::Tf32),
        "S8" => Some(Type::S8),
        "U8" => Some(Type::U8),
        "E4M3" => Some(Type::E4m3),
        "E5M2" => Some(Type::E5m2),
        _ => None,
    };
    let (shape, types, sat) = match (p.op.as_str(), &mods[..]) {
        ("HGMMA", [s, d]) => (*s, [ty(d), Some(Type::F16), Some(Type::F16)], false),
        ("HGMMA", [s, d, i @ ("BF16" | "TF32")]) => (*s, [ty(d), ty(i), ty(i)], false),
        ("IGMMA", [s, a, b]) => (*s, [Some(Type::S32), ty(a), ty(b)], false),
        ("IGMMA", [s, a, b, "SAT"]) => (*s, [Some(Type::S32), ty(a), ty(b)], true),
        ("QGMMA", [s, d, a, b]) => (*s, [ty(d), ty(a), ty(b)], false),
        _ => return Err(bad()),
    };
    let types: Option<Vec<Type>> = types.into_iter().collect();
    let shape = shape
        .strip_prefix("64x")
        .and_then(|r| r.split_once('x'))
        .map(|(n, k)| format!("m64n{n}k{k}"))
        .ok_or_else(bad)?;
    WgmmaSpec::parse(&shape, &types.ok_or_else(bad)?, sat).map_err(|e| format!("{}: {e}", bad()))
}

/// `16816` → (16, 8, 16).
fn shape_of(s: &str) -> Option<(u32, u32, u32)> {
    Some(match s {
        "16816" => (16, 8, 16),
        "1688" => (16, 8, 8),
        "1684" => (16, 8, 4),
        "16832" => (16, 8, 32),
        "8816" => (8, 8, 16),
        _ => return None,
    })
}

fn space_of(op: &str) -> Space {
    match op {
        "LDG" | "STG" | "ATOMG" | "RED" | "REDG" => Space::Global,
        "LDS" | "STS" | "ATOMS" => Space::Shared,
        "LDL" | "STL" => Space::Local,
        _ => Space::Generic,
    }
}

/// The statistics class of an instruction.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Class {
    /// Integer ALU.
    Int,
    /// f32 / f16 arithmetic.
    Fp32,
    /// f64 arithmetic.
    Fp64,
    /// Special functions (`MUFU`).
    Sfu,
    /// Conversions.
    Conv,
    /// Global memory (loads, stores, atomics).
    Global,
    /// Shared memory.
    Shared,
    /// Local memory.
    Local,
    /// Generic memory.
    Generic,
    /// Constant loads.
    Const,
    /// Control flow and synchronisation.
    Control,
    /// Warp collectives (shuffle, vote, redux).
    Warp,
    /// Uniform datapath.
    Uniform,
    /// Moves, special registers, predicates and no-ops.
    Misc,
    /// Tensor cores (`HMMA`, `IMMA`).
    Tensor,
}

impl Class {
    /// All classes in order.
    pub const ALL: [Class; 15] = [
        Class::Int,
        Class::Fp32,
        Class::Fp64,
        Class::Sfu,
        Class::Conv,
        Class::Global,
        Class::Shared,
        Class::Local,
        Class::Generic,
        Class::Const,
        Class::Control,
        Class::Warp,
        Class::Uniform,
        Class::Misc,
        Class::Tensor,
    ];
    /// A short name.
    pub fn name(self) -> &'static str {
        match self {
            Class::Int => "int",
            Class::Fp32 => "fp32",
            Class::Fp64 => "fp64",
            Class::Sfu => "sfu",
            Class::Conv => "conv",
            Class::Global => "global",
            Class::Shared => "shared",
            Class::Local => "local",
            Class::Generic => "generic",
            Class::Const => "const",
            Class::Control => "control",
            Class::Warp => "warp",
            Class::Uniform => "uniform",
            Class::Misc => "misc",
            Class::Tensor => "tensor",
        }
    }
}

/// The class of a decoded instruction (`uniform`: its mnemonic starts with `U`).
pub fn class_of(k: &Kind, op: &str) -> Class {
    if op.starts_with('U') || op == "R2UR" || op == "S2UR" {
        return Class::Uniform;
    }
    match k {
        Kind::Imad { .. }
        | Kind::Iadd3 { .. }
        | Kind::Iadd64
        | Kind::Viadd
        | Kind::Lea { .. }
        | Kind::Lop3
        | Kind::Shf { .. }
        | Kind::Prmt
        | Kind::Isetp { .. }
        | Kind::Iabs
        | Kind::Popc
        | Kind::Flo { .. }
        | Kind::Brev
        | Kind::Sgxt { .. }
        | Kind::Imnmx { .. }
        | Kind::Viaddmnmx { .. }
        | Kind::Idp { .. }
        | Kind::Bmsk { .. }
        | Kind::PrmtMode(_) => Class::Int,
        Kind::Setmaxreg => Class::Control,
        Kind::Fadd(_)
        | Kind::Fmul(_)
        | Kind::Ffma(_)
        | Kind::Fmnmx { .. }
        | Kind::Fset { .. }
        | Kind::Fchk
        | Kind::H2 { .. }
        | Kind::Hmnmx2 { .. }
        | Kind::Hset2 { .. }
        | Kind::Frnd { f64: false, .. } => Class::Fp32,
        Kind::Frnd { f64: true, .. } => Class::Fp64,
        Kind::Fsetp { f64, .. } => {
            if *f64 {
                Class::Fp64
            } else {
                Class::Fp32
            }
        }
        Kind::Dadd(_) | Kind::Dmul(_) | Kind::Dfma(_) => Class::Fp64,
        Kind::Mufu(_) => Class::Sfu,
        Kind::F2i { .. }
        | Kind::I2f { .. }
        | Kind::F2f { .. }
        | Kind::F2fp { .. }
        | Kind::F2fpFp8 { .. } => Class::Conv,
        Kind::Ld { space, .. } | Kind::St { space, .. } | Kind::Atom { space, .. } => match space {
            Space::Global => Class::Global,
            Space::Shared => Class::Shared,
            Space::Local => Class::Local,
            Space::Generic | Space::Const => Class::Generic,
        },
        Kind::Ldc { .. } => Class::Const,
        Kind::Bar { .. }
        | Kind::B2r
        | Kind::Bssy
        | Kind::Bsync
        | Kind::Break
        | Kind::Bmov { .. }
        | Kind::Warpsync
        | Kind::Bra
        | Kind::BraDiv
        | Kind::BraConv
        | Kind::Exit
        | Kind::Call
        | Kind::Brx
        | Kind::Ret => Class::Control,
        Kind::Shfl(_) | Kind::Vote { .. } | Kind::Redux { .. } | Kind::Match { .. } => Class::Warp,
        Kind::Mov | Kind::S2r { .. } | Kind::Sel | Kind::Plop3 | Kind::P2r | Kind::R2p => {
            Class::Misc
        }
        Kind::Mma(_) | Kind::Gmma(_) => Class::Tensor,
        Kind::Ldsm { .. } | Kind::Stsm { .. } => Class::Shared,
        Kind::Ldgsts { .. } => Class::Global,
        Kind::Ldgdepbar | Kind::DepbarLdgsts => Class::Control,
        Kind::MbarInit
        | Kind::MbarArrive { .. }
        | Kind::MbarTest
        | Kind::MbarInval
        | Kind::StAsync { .. } => Class::Shared,
        Kind::ClusterArrive | Kind::ClusterWait => Class::Control,
        Kind::Tma { .. } | Kind::BulkCopy { .. } => Class::Global,
        Kind::Elect => Class::Warp,
        Kind::Nop | Kind::Qspc(_) | Kind::Unsupported(_) => Class::Misc,
    }
}
