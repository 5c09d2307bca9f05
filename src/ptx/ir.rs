//! The PTX machine IR: one data structure for a whole PTX module, used by every analysis and
//! transform in warpsmith.
//!
//! Design (see `DESIGN.md`, "Architecture rules"):
//! - Indices, not pointers. Inside a function body, registers, labels and instructions are typed
//!   `u32` ids ([`Reg`], [`Label`], [`Inst`]) into arenas of [`Body`]; they print with the PTX names
//!   they came from.
//! - Instruction order is kept apart from instruction content: [`Body::stmts`] is the layout (the
//!   statements in source order, including declarations, labels, scopes and debug directives) and
//!   [`Body::insts`] holds what each instruction is.
//! - Instructions are structured — opcode, ordered modifiers, operands — with one generic operand
//!   grammar; which operands an instruction reads and writes is answered by [`super::roles`]. An
//!   instruction whose opcode is not in [`Opcode`] is kept as [`Opcode::Other`] and treated
//!   conservatively by analyses; nothing the parser accepts is ever dropped.
//! - Source positions ([`Loc`]) are metadata: they never take part in equality, so
//!   `parse(print(parse(x))) == parse(x)` compares meaning, not layout.

use std::borrow::Cow;
use std::fmt;

use super::fxhash::FxMap;

/// A position in the source text (1-based line and column). Never part of equality.
#[derive(Clone, Copy, Debug, Default)]
pub struct Loc {
    /// 1-based line; 0 for code created by a transform.
    pub line: u32,
    /// 1-based column (in bytes).
    pub col: u32,
}

impl PartialEq for Loc {
    fn eq(&self, _: &Loc) -> bool {
        true
    }
}
impl Eq for Loc {}

macro_rules! entity {
    ($(#[$m:meta])* $name:ident, $prefix:literal) => {
        $(#[$m])*
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
        pub struct $name(pub u32);
        impl $name {
            /// The id as an index into its arena.
            #[inline]
            pub fn index(self) -> usize {
                self.0 as usize
            }
            /// The id for arena index `i`.
            #[inline]
            pub fn new(i: usize) -> Self {
                $name(i as u32)
            }
        }
        impl std::fmt::Display for $name {
            fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                write!(f, concat!($prefix, "{}"), self.0)
            }
        }
    };
}
pub(crate) use entity;

entity!(
    /// A register of a function body: index into [`Body::regs`].
    Reg,
    "reg"
);
entity!(
    /// A label of a function body: index into [`Body::labels`].
    Label,
    "label"
);
entity!(
    /// An instruction of a function body: index into [`Body::insts`].
    Inst,
    "inst"
);

macro_rules! string_enum {
    ($(#[$m:meta])* $name:ident { $($(#[$vm:meta])* $var:ident => $s:literal),* $(,)? }) => {
        $(#[$m])*
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
        pub enum $name { $($(#[$vm])* $var),* }
        impl $name {
            /// Every value, in declaration order.
            pub const ALL: &'static [$name] = &[$($name::$var),*];
            /// The PTX spelling (without a leading dot).
            pub fn as_str(self) -> &'static str {
                match self { $($name::$var => $s),* }
            }
            /// Parses the PTX spelling (without a leading dot).
            #[allow(clippy::should_implement_trait)]
            pub fn from_str(s: &str) -> Option<$name> {
                match s { $($s => Some($name::$var),)* _ => None }
            }
        }
        impl fmt::Display for $name {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str(self.as_str())
            }
        }
    };
}

string_enum!(
    /// A PTX fundamental type (ISA §5.2), plus the opaque and packed types.
    Type {
        B8 => "b8", B16 => "b16", B32 => "b32", B64 => "b64", B128 => "b128",
        U8 => "u8", U16 => "u16", U32 => "u32", U64 => "u64",
        S8 => "s8", S16 => "s16", S32 => "s32", S64 => "s64",
        F16 => "f16", F16x2 => "f16x2", Bf16 => "bf16", Bf16x2 => "bf16x2",
        F32 => "f32", F64 => "f64", Tf32 => "tf32",
        E4m3 => "e4m3", E5m2 => "e5m2", E4m3x2 => "e4m3x2", E5m2x2 => "e5m2x2",
        E2m3x2 => "e2m3x2", E3m2x2 => "e3m2x2", E2m1x2 => "e2m1x2", Ue8m0x2 => "ue8m0x2",
        S4 => "s4", U4 => "u4", B1 => "b1", U16x2 => "u16x2", S16x2 => "s16x2",
        Pred => "pred",
        Texref => "texref", Samplerref => "samplerref", Surfref => "surfref",
    }
);

impl Type {
    /// Size in bits (predicates: 1; opaque handles: 64).
    pub fn bits(self) -> u32 {
        use Type::*;
        match self {
            Pred | B1 => 1,
            S4 | U4 => 4,
            B8 | U8 | S8 | E4m3 | E5m2 => 8,
            B16 | U16 | S16 | F16 | Bf16 | E4m3x2 | E5m2x2 | E2m3x2 | E3m2x2 | E2m1x2 | Ue8m0x2 => {
                16
            }
            B32 | U32 | S32 | F32 | F16x2 | Bf16x2 | Tf32 | U16x2 | S16x2 => 32,
            B64 | U64 | S64 | F64 | Texref | Samplerref | Surfref => 64,
            B128 => 128,
        }
    }
    /// Size in bytes, rounded up (predicates take one byte).
    pub fn bytes(self) -> u32 {
        self.bits().div_ceil(8)
    }
    /// True for the floating-point types (scalar and packed).
    pub fn is_float(self) -> bool {
        use Type::*;
        matches!(
            self,
            F16 | F16x2 | Bf16 | Bf16x2 | F32 | F64 | Tf32 | E4m3 | E5m2 | E4m3x2 | E5m2x2
        )
    }
    /// True for the signed integer types.
    pub fn is_signed(self) -> bool {
        matches!(
            self,
            Type::S8 | Type::S16 | Type::S32 | Type::S64 | Type::S4 | Type::S16x2
        )
    }
}

string_enum!(
    /// A state space (ISA §5.1), including the sub-qualified forms PTX 7.8+ allows.
    StateSpace {
        Reg => "reg", Sreg => "sreg", Const => "const", Global => "global", Local => "local",
        Param => "param", ParamEntry => "param::entry", ParamFunc => "param::func",
        Shared => "shared", SharedCta => "shared::cta", SharedCluster => "shared::cluster",
        Tex => "tex",
    }
);

string_enum!(
    /// Linkage and visibility of a module-level symbol.
    Linkage { Visible => "visible", Extern => "extern", Weak => "weak", Common => "common" }
);

string_enum!(
    /// A special (read-only, predefined) register, ISA §10.
    SpecialReg {
        Tid => "%tid", Ntid => "%ntid", Laneid => "%laneid", Warpid => "%warpid", Nwarpid => "%nwarpid",
        Ctaid => "%ctaid", Nctaid => "%nctaid", Smid => "%smid", Nsmid => "%nsmid", Gridid => "%gridid",
        IsExplicitCluster => "%is_explicit_cluster", Clusterid => "%clusterid", Nclusterid => "%nclusterid",
        ClusterCtaid => "%cluster_ctaid", ClusterNctaid => "%cluster_nctaid",
        ClusterCtarank => "%cluster_ctarank", ClusterNctarank => "%cluster_nctarank",
        LanemaskEq => "%lanemask_eq", LanemaskLe => "%lanemask_le", LanemaskLt => "%lanemask_lt",
        LanemaskGe => "%lanemask_ge", LanemaskGt => "%lanemask_gt",
        Clock => "%clock", ClockHi => "%clock_hi", Clock64 => "%clock64",
        Globaltimer => "%globaltimer", GlobaltimerLo => "%globaltimer_lo", GlobaltimerHi => "%globaltimer_hi",
        TotalSmemSize => "%total_smem_size", AggrSmemSize => "%aggr_smem_size",
        DynamicSmemSize => "%dynamic_smem_size", ReservedSmemOffsetBegin => "%reserved_smem_offset_begin",
        ReservedSmemOffsetEnd => "%reserved_smem_offset_end", ReservedSmemOffsetCap => "%reserved_smem_offset_cap",
        WarpSz => "WARP_SZ", CurrentGraphExec => "%current_graph_exec",
    }
);

impl SpecialReg {
    /// True for the registers with `.x/.y/.z` components.
    pub fn has_components(self) -> bool {
        use SpecialReg::*;
        matches!(
            self,
            Tid | Ntid | Ctaid | Nctaid | Clusterid | Nclusterid | ClusterCtaid | ClusterNctaid
        )
    }
}

/// A component selector `.x .y .z .w` (also `.r .g .b .a` in texture code).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Component {
    /// `.x`
    X,
    /// `.y`
    Y,
    /// `.z`
    Z,
    /// `.w`
    W,
}

impl Component {
    /// Parses `x y z w`.
    pub fn parse(s: &str) -> Option<Component> {
        Some(match s {
            "x" => Component::X,
            "y" => Component::Y,
            "z" => Component::Z,
            "w" => Component::W,
            _ => return None,
        })
    }
    /// The PTX spelling without the dot.
    pub fn as_str(self) -> &'static str {
        match self {
            Component::X => "x",
            Component::Y => "y",
            Component::Z => "z",
            Component::W => "w",
        }
    }
}

/// A special register operand, such as `%tid.x`, `%laneid` or `%envreg3`.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum SpecialOperand {
    /// A named special register with an optional component.
    Named(SpecialReg, Option<Component>),
    /// `%envregN` (0..31).
    EnvReg(u32),
    /// `%pmN` / `%pmN_64` performance counters.
    Pm { index: u32, wide: bool },
}

/// An immediate value.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Imm {
    /// A decimal integer literal (sign included). `unsigned` records a `U` suffix.
    Int { value: i64, unsigned: bool },
    /// A hexadecimal, octal or binary integer literal, printed back in hex.
    Hex { value: u64, unsigned: bool },
    /// `0fXXXXXXXX`: an f32 given by its bits.
    F32(u32),
    /// `0dXXXXXXXXXXXXXXXX`: an f64 given by its bits.
    F64(u64),
    /// A decimal floating-point literal (a `.f64` constant in PTX), kept as written.
    FloatDec(Box<str>),
}

impl Imm {
    /// The literal's bits as an unsigned 64-bit value (floats: their IEEE bits; decimal floats:
    /// the bits of the f64 they denote).
    pub fn bits(&self) -> u64 {
        match self {
            Imm::Int { value, .. } => *value as u64,
            Imm::Hex { value, .. } => *value,
            Imm::F32(b) => *b as u64,
            Imm::F64(b) => *b,
            Imm::FloatDec(s) => s.parse::<f64>().map(f64::to_bits).unwrap_or(0),
        }
    }
    /// The value as a signed integer when the literal is an integer.
    pub fn as_i64(&self) -> Option<i64> {
        match self {
            Imm::Int { value, .. } => Some(*value),
            Imm::Hex { value, .. } => Some(*value as i64),
            _ => None,
        }
    }
}

/// The base of a memory address `[base+offset]`.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum AddrBase {
    /// `[%rd1+8]`
    Reg(Reg),
    /// `[name+8]`: a variable, parameter or function symbol.
    Sym(Box<str>),
    /// `[0x100]`: an absolute address (the offset is the address).
    None,
}

/// A memory address operand `[base+offset]`.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Address {
    /// What the offset is added to.
    pub base: AddrBase,
    /// The constant byte offset.
    pub offset: i64,
}

/// An instruction operand. One grammar for every instruction; meaning comes from the opcode.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Operand {
    /// A register.
    Reg(Reg),
    /// `%r1+4` outside brackets (PTX allows it in some instructions).
    RegOffset(Reg, i64),
    /// `%v.x`: one component of a vector register (`.reg .v4 .f32 %v;`). A write to it is partial.
    RegComponent(Reg, Component),
    /// `!%p`: a negated predicate source.
    NotReg(Reg),
    /// A special register.
    Special(SpecialOperand),
    /// An immediate.
    Imm(Imm),
    /// A variable, parameter or function name used as a value (`mov.u64 %rd1, arr;`, call targets).
    Sym(Box<str>),
    /// `name+4` outside brackets.
    SymOffset(Box<str>, i64),
    /// A label of the current function (branch targets, `.branchtargets` tables).
    Label(Label),
    /// `[base+offset]`.
    Addr(Address),
    /// `[a, b, ...]`: the multi-part bracket forms of texture and surface instructions.
    Bracket(Vec<Operand>),
    /// `{a, b, c}`: a vector operand.
    Vector(Vec<Operand>),
    /// `(a, b)`: the parenthesised lists of `call`.
    List(Vec<Operand>),
    /// `a|b`: the two destinations of `setp`, `shfl.sync`, `elect.sync`, …
    Pair(Box<Operand>, Box<Operand>),
    /// `_`: the sink (a discarded result or an unused position).
    Sink,
}

impl Operand {
    /// Calls `f` on every register this operand names, including inside addresses, vectors and lists.
    pub fn for_each_reg(&self, f: &mut impl FnMut(Reg)) {
        match self {
            Operand::Reg(r)
            | Operand::RegOffset(r, _)
            | Operand::NotReg(r)
            | Operand::RegComponent(r, _) => f(*r),
            Operand::Addr(a) => {
                if let AddrBase::Reg(r) = a.base {
                    f(r)
                }
            }
            Operand::Bracket(v) | Operand::Vector(v) | Operand::List(v) => {
                v.iter().for_each(|o| o.for_each_reg(f))
            }
            Operand::Pair(a, b) => {
                a.for_each_reg(f);
                b.for_each_reg(f);
            }
            Operand::Special(_)
            | Operand::Imm(_)
            | Operand::Sym(_)
            | Operand::SymOffset(..)
            | Operand::Label(_)
            | Operand::Sink => {}
        }
    }
    /// Calls `f` on every variable, parameter or function name this operand refers to
    /// (`arr`, `arr+4`, `[arr+8]`), including inside vectors, lists and pairs.
    pub fn for_each_sym<'a>(&'a self, f: &mut impl FnMut(&'a str)) {
        match self {
            Operand::Sym(s) | Operand::SymOffset(s, _) => f(s),
            Operand::Addr(a) => {
                if let AddrBase::Sym(s) = &a.base {
                    f(s)
                }
            }
            Operand::Bracket(v) | Operand::Vector(v) | Operand::List(v) => {
                v.iter().for_each(|o| o.for_each_sym(f))
            }
            Operand::Pair(a, b) => {
                a.for_each_sym(f);
                b.for_each_sym(f);
            }
            Operand::Reg(_)
            | Operand::RegOffset(..)
            | Operand::NotReg(_)
            | Operand::RegComponent(..)
            | Operand::Special(_)
            | Operand::Imm(_)
            | Operand::Label(_)
            | Operand::Sink => {}
        }
    }
    /// Mutable form of [`Operand::for_each_reg`], for renaming.
    pub fn for_each_reg_mut(&mut self, f: &mut impl FnMut(&mut Reg)) {
        match self {
            Operand::Reg(r)
            | Operand::RegOffset(r, _)
            | Operand::NotReg(r)
            | Operand::RegComponent(r, _) => f(r),
            Operand::Addr(a) => {
                if let AddrBase::Reg(r) = &mut a.base {
                    f(r)
                }
            }
            Operand::Bracket(v) | Operand::Vector(v) | Operand::List(v) => {
                v.iter_mut().for_each(|o| o.for_each_reg_mut(f))
            }
            Operand::Pair(a, b) => {
                a.for_each_reg_mut(f);
                b.for_each_reg_mut(f);
            }
            Operand::Special(_)
            | Operand::Imm(_)
            | Operand::Sym(_)
            | Operand::SymOffset(..)
            | Operand::Label(_)
            | Operand::Sink => {}
        }
    }
    /// Calls `f` on every label the operand names (inside vectors, lists, brackets and pairs
    /// too), in order.
    pub fn for_each_label(&self, f: &mut impl FnMut(Label)) {
        match self {
            Operand::Label(l) => f(*l),
            Operand::Bracket(v) | Operand::Vector(v) | Operand::List(v) => {
                v.iter().for_each(|o| o.for_each_label(f))
            }
            Operand::Pair(a, b) => {
                a.for_each_label(f);
                b.for_each_label(f);
            }
            _ => {}
        }
    }

    /// [`Operand::for_each_label`] with mutable access, for rebinding.
    pub fn for_each_label_mut(&mut self, f: &mut impl FnMut(&mut Label)) {
        match self {
            Operand::Label(l) => f(l),
            Operand::Bracket(v) | Operand::Vector(v) | Operand::List(v) => {
                v.iter_mut().for_each(|o| o.for_each_label_mut(f))
            }
            Operand::Pair(a, b) => {
                a.for_each_label_mut(f);
                b.for_each_label_mut(f);
            }
            _ => {}
        }
    }
}

macro_rules! opcodes {
    ($($var:ident => $s:literal),* $(,)?) => {
        /// A PTX instruction opcode (ISA §9.7). Anything else the grammar accepts is [`Opcode::Other`]:
        /// kept verbatim and treated conservatively.
        #[derive(Clone, Debug, PartialEq, Eq, Hash)]
        pub enum Opcode {
            $(
                #[doc = concat!("`", $s, "`")]
                $var,
            )*
            /// An opcode warpsmith does not model; printed as written.
            Other(Word),
        }
        impl Opcode {
            /// Every modelled opcode.
            pub const KNOWN: &'static [Opcode] = &[$(Opcode::$var),*];
            /// Looks up a PTX opcode name; unknown names become [`Opcode::Other`].
            pub fn from_name(s: &str) -> Opcode {
                static TABLE: std::sync::OnceLock<FxMap<&'static str, Opcode>> = std::sync::OnceLock::new();
                let table = TABLE.get_or_init(|| [$(($s, Opcode::$var)),*].into_iter().collect());
                match table.get(s) {
                    Some(op) => op.clone(),
                    None => Opcode::Other(s.into()),
                }
            }
            /// The PTX spelling.
            pub fn as_str(&self) -> &str {
                match self { $(Opcode::$var => $s,)* Opcode::Other(s) => s }
            }
        }
    };
}

opcodes! {
    // Integer and bit arithmetic.
    Add => "add", Sub => "sub", Mul => "mul", Mad => "mad", Mul24 => "mul24", Mad24 => "mad24",
    Sad => "sad", Div => "div", Rem => "rem", Abs => "abs", Neg => "neg", Min => "min", Max => "max",
    Popc => "popc", Clz => "clz", Bfind => "bfind", Fns => "fns", Brev => "brev", Bfe => "bfe",
    Bfi => "bfi", Szext => "szext", Bmsk => "bmsk", Dp4a => "dp4a", Dp2a => "dp2a",
    Addc => "addc", Subc => "subc", Madc => "madc",
    // Floating point.
    Testp => "testp", Copysign => "copysign", Fma => "fma", Rcp => "rcp", Sqrt => "sqrt",
    Rsqrt => "rsqrt", Sin => "sin", Cos => "cos", Lg2 => "lg2", Ex2 => "ex2", Tanh => "tanh",
    // Comparison and selection.
    Set => "set", Setp => "setp", Selp => "selp", Slct => "slct",
    // Logic and shift.
    And => "and", Or => "or", Xor => "xor", Not => "not", Cnot => "cnot", Lop3 => "lop3",
    Shf => "shf", Shl => "shl", Shr => "shr",
    // Data movement and conversion.
    Mov => "mov", Shfl => "shfl", Prmt => "prmt", Ld => "ld", Ldu => "ldu", St => "st",
    Multimem => "multimem", Prefetch => "prefetch", Prefetchu => "prefetchu",
    Applypriority => "applypriority", Discard => "discard", Createpolicy => "createpolicy",
    Isspacep => "isspacep", Cvta => "cvta", Cvt => "cvt", Mapa => "mapa", Getctarank => "getctarank",
    Cp => "cp", Tensormap => "tensormap", Ldmatrix => "ldmatrix", Stmatrix => "stmatrix",
    Movmatrix => "movmatrix", Stacksave => "stacksave", Stackrestore => "stackrestore", Alloca => "alloca",
    // Texture and surface.
    Tex => "tex", Tld4 => "tld4", Txq => "txq", Istypep => "istypep", Suld => "suld", Sust => "sust",
    Sured => "sured", Suq => "suq",
    // Control flow.
    Bra => "bra", Brx => "brx", Call => "call", Ret => "ret", Exit => "exit",
    // Synchronisation and communication.
    Bar => "bar", Barrier => "barrier", Membar => "membar", Fence => "fence", Atom => "atom",
    Red => "red", Vote => "vote", Match => "match", Activemask => "activemask", Redux => "redux",
    Elect => "elect", Mbarrier => "mbarrier", Griddepcontrol => "griddepcontrol",
    Nanosleep => "nanosleep", Setmaxnreg => "setmaxnreg", Clusterlaunchcontrol => "clusterlaunchcontrol",
    // Video instructions.
    Vadd => "vadd", Vsub => "vsub", Vabsdiff => "vabsdiff", Vmin => "vmin", Vmax => "vmax",
    Vshl => "vshl", Vshr => "vshr", Vmad => "vmad", Vset => "vset",
    Vadd2 => "vadd2", Vsub2 => "vsub2", Vavrg2 => "vavrg2", Vabsdiff2 => "vabsdiff2",
    Vmin2 => "vmin2", Vmax2 => "vmax2", Vset2 => "vset2",
    Vadd4 => "vadd4", Vsub4 => "vsub4", Vavrg4 => "vavrg4", Vabsdiff4 => "vabsdiff4",
    Vmin4 => "vmin4", Vmax4 => "vmax4", Vset4 => "vset4",
    // Miscellaneous.
    Trap => "trap", Brkpt => "brkpt", Pmevent => "pmevent",
    // Matrix.
    Wmma => "wmma", Mma => "mma", Wgmma => "wgmma", Tcgen05 => "tcgen05",
}

/// An instruction modifier (`.rn`, `.u32`, `.global`, `.v4`, `.sync`, …), in the order written.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Modifier {
    /// A type: `.u32`, `.f32`, `.pred`, …
    Type(Type),
    /// A state space: `.global`, `.shared::cta`, …
    Space(StateSpace),
    /// A vector width: `.v2`, `.v4`, `.v8`.
    Vec(u8),
    /// Any other modifier, without its dot (`rn`, `ftz`, `sync`, `L2::cache_hint`, `m16n8k16`, …).
    /// Common words point at a static spelling; others own theirs (see [`Word`]).
    Word(Word),
}

/// A short PTX word: the spelling of a [`Modifier::Word`] (without the dot) or of an
/// [`Opcode::Other`]. Reads as a `&str` (`Deref`), compares and hashes by its text. Its payload is
/// one pointer, so a [`Modifier`] and an [`Opcode`] take 16 bytes each: a word from the static
/// table of common modifier words costs no allocation; any other word owns a boxed copy of its
/// text (rare in practice). Build one with `From<&str>`/`From<String>` (`"sync".into()`).
#[derive(Clone)]
pub struct Word(WordRepr);

#[derive(Clone)]
enum WordRepr {
    /// An entry of [`COMMON_WORDS`] (a thin pointer to the table's `&str`).
    Static(&'static &'static str),
    /// Any other word (a thin pointer to an owned string).
    Owned(Box<Box<str>>),
}

impl Word {
    /// The word's text.
    #[inline]
    pub fn as_str(&self) -> &str {
        match &self.0 {
            WordRepr::Static(s) => s,
            WordRepr::Owned(s) => s,
        }
    }
    /// The word for `s`: the static spelling when `s` is a common word, else an owned copy.
    pub fn new(s: &str) -> Word {
        match common_word(s) {
            Some(w) => Word(WordRepr::Static(w)),
            None => Word(WordRepr::Owned(Box::new(s.into()))),
        }
    }
}

/// The static entry of [`COMMON_WORDS`] spelled `s`, if any.
fn common_word(s: &str) -> Option<&'static &'static str> {
    static TABLE: std::sync::OnceLock<FxMap<&'static str, &'static &'static str>> =
        std::sync::OnceLock::new();
    TABLE
        .get_or_init(|| COMMON_WORDS.iter().map(|w| (*w, w)).collect())
        .get(s)
        .copied()
}

impl std::ops::Deref for Word {
    type Target = str;
    #[inline]
    fn deref(&self) -> &str {
        self.as_str()
    }
}
impl AsRef<str> for Word {
    fn as_ref(&self) -> &str {
        self.as_str()
    }
}
impl PartialEq for Word {
    fn eq(&self, other: &Word) -> bool {
        self.as_str() == other.as_str()
    }
}
impl Eq for Word {}
impl std::hash::Hash for Word {
    fn hash<H: std::hash::Hasher>(&self, h: &mut H) {
        self.as_str().hash(h)
    }
}
impl fmt::Debug for Word {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(self.as_str(), f)
    }
}
impl fmt::Display for Word {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}
impl From<&str> for Word {
    fn from(s: &str) -> Word {
        Word::new(s)
    }
}
impl From<String> for Word {
    fn from(s: String) -> Word {
        match common_word(&s) {
            Some(w) => Word(WordRepr::Static(w)),
            None => Word(WordRepr::Owned(Box::new(s.into_boxed_str()))),
        }
    }
}
impl From<&String> for Word {
    fn from(s: &String) -> Word {
        Word::new(s)
    }
}

/// Modifier words common enough to share one static spelling (saves an allocation each).
static COMMON_WORDS: &[&str] = &[
    "rn",
    "rz",
    "rm",
    "rp",
    "rni",
    "rzi",
    "rmi",
    "rpi",
    "ftz",
    "sat",
    "satfinite",
    "relu",
    "approx",
    "full",
    "lo",
    "hi",
    "wide",
    "cc",
    "sync",
    "aligned",
    "uni",
    "to",
    "nc",
    "ca",
    "cg",
    "cs",
    "lu",
    "cv",
    "wb",
    "wt",
    "eq",
    "ne",
    "lt",
    "le",
    "gt",
    "ge",
    "lo",
    "ls",
    "hi",
    "hs",
    "equ",
    "neu",
    "ltu",
    "leu",
    "gtu",
    "geu",
    "num",
    "nan",
    "and",
    "or",
    "xor",
    "not",
    "popc",
    "add",
    "inc",
    "dec",
    "exch",
    "cas",
    "min",
    "max",
    "up",
    "down",
    "bfly",
    "idx",
    "clamp",
    "wrap",
    "shiftamt",
    "ballot",
    "any",
    "all",
    "relaxed",
    "acquire",
    "release",
    "acq_rel",
    "weak",
    "volatile",
    "mmio",
    "cta",
    "gpu",
    "sys",
    "cluster",
    "row",
    "col",
    "x1",
    "x2",
    "x4",
    "trans",
    "m8n8",
    "m16n8k8",
    "m16n8k16",
    "m16n8k32",
    "m16n8k4",
    "async",
    "commit_group",
    "wait_group",
    "wait_all",
    "bulk",
    "arrive",
    "expect_tx",
    "complete_tx",
    "try_wait",
    "test_wait",
    "init",
    "inval",
    "pending_count",
    "red",
    "zero",
    "trap",
    "b",
    "p",
    "1d",
    "2d",
    "3d",
    "a1d",
    "a2d",
    "cube",
    "acube",
    "level",
    "grad",
    "r",
    "g",
    "a",
    "f4e",
    "b4e",
    "rc8",
    "ecl",
    "ecr",
    "rc16",
    "mode",
    "L2",
    "L1::no_allocate",
    "L1::evict_last",
    "L1::evict_first",
    "L1::evict_normal",
    "L1::evict_unchanged",
    "L2::cache_hint",
    "L2::64B",
    "L2::128B",
    "L2::256B",
    "L2::evict_last",
    "L2::evict_first",
    "L2::evict_normal",
    "mbarrier::complete_tx::bytes",
    "f16f64",
    "pack",
    "release",
    "noftz",
    "neg",
    "abs",
    "setmaxnreg",
];

impl Modifier {
    /// Classifies a modifier spelling (without the dot).
    pub fn parse(s: &str) -> Modifier {
        // One hash lookup for every spelling seen often; the slow path builds an owned word.
        static TABLE: std::sync::OnceLock<FxMap<&'static str, Modifier>> =
            std::sync::OnceLock::new();
        let table = TABLE.get_or_init(|| {
            let mut m = FxMap::default();
            for w in COMMON_WORDS {
                m.insert(*w, Modifier::Word(Word(WordRepr::Static(w))));
            }
            for sp in StateSpace::ALL {
                m.insert(sp.as_str(), Modifier::Space(*sp));
            }
            for t in Type::ALL {
                m.insert(t.as_str(), Modifier::Type(*t));
            }
            for (w, n) in [("v2", 2), ("v4", 4), ("v8", 8)] {
                m.insert(w, Modifier::Vec(n));
            }
            m
        });
        match table.get(s) {
            Some(m) => m.clone(),
            None => Modifier::Word(Word(WordRepr::Owned(Box::new(s.into())))),
        }
    }
    /// The spelling without the dot.
    pub fn as_str(&self) -> Cow<'_, str> {
        match self {
            Modifier::Type(t) => t.as_str().into(),
            Modifier::Space(s) => s.as_str().into(),
            Modifier::Vec(n) => format!("v{n}").into(),
            Modifier::Word(w) => Cow::Borrowed(w.as_str()),
        }
    }
}

/// The modifiers of an instruction: a vector that holds up to three inline (99 % of instructions
/// in clang's and nvcc's output), so that an instruction needs no allocation for them. Reads like a
/// `Vec` (`push`, `iter`, indexing, slices); build one with [`smallvec!`] or `.into()` from a `Vec`.
pub type Mods = SmallVec<[Modifier; 3]>;

/// The operands of an instruction: up to three inline (more than 95 % of instructions), like
/// [`Mods`].
pub type Operands = SmallVec<[Operand; 3]>;

pub use smallvec::{smallvec, SmallVec};

/// An instruction guard `@%p` or `@!%p`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Guard {
    /// The predicate register.
    pub reg: Reg,
    /// True for `@!%p`.
    pub negated: bool,
}

/// One instruction: what it is, not where it is (that is [`Body::stmts`]).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct InstData {
    /// `@%p` / `@!%p`, if any.
    pub guard: Option<Guard>,
    /// The opcode.
    pub opcode: Opcode,
    /// The modifiers in the order written (up to three inline, no allocation).
    pub mods: Mods,
    /// The operands in the order written (up to three inline, no allocation).
    pub operands: Operands,
    /// Where it was written (metadata).
    pub loc: Loc,
}

impl InstData {
    /// True when the instruction carries modifier word `w` (e.g. `"uni"`, `"sync"`, `"wide"`).
    pub fn has_word(&self, w: &str) -> bool {
        self.mods
            .iter()
            .any(|m| matches!(m, Modifier::Word(x) if &**x == w))
    }
    /// The types among the modifiers, in order (`cvt.f32.s32` gives `[F32, S32]`).
    pub fn types(&self) -> impl Iterator<Item = Type> + '_ {
        self.mods.iter().filter_map(|m| match m {
            Modifier::Type(t) => Some(*t),
            _ => None,
        })
    }
    /// The last type modifier (the operation type for most instructions).
    pub fn ty(&self) -> Option<Type> {
        self.types().last()
    }
    /// The state-space modifier, if any.
    pub fn space(&self) -> Option<StateSpace> {
        self.mods.iter().find_map(|m| match m {
            Modifier::Space(s) => Some(*s),
            _ => None,
        })
    }
    /// The vector width modifier, if any.
    pub fn vec_width(&self) -> Option<u8> {
        self.mods.iter().find_map(|m| match m {
            Modifier::Vec(n) => Some(*n),
            _ => None,
        })
    }
}

/// The type of a register declaration: an optional vector width and a scalar type.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct RegType {
    /// `.v2`/`.v4` vector registers (rare).
    pub vec: Option<u8>,
    /// The scalar type.
    pub ty: Type,
}

impl RegType {
    /// A scalar register type.
    pub fn scalar(ty: Type) -> RegType {
        RegType { vec: None, ty }
    }
    /// Size in bits of the whole register (predicates: 1).
    pub fn bits(self) -> u32 {
        self.ty.bits() * self.vec.map_or(1, u32::from)
    }
}

/// A register: its declared type and where its PTX name lies in [`Body::reg_names`]. Create
/// registers with [`Body::add_reg`]; read names with [`Body::reg_name`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RegData {
    /// The declared type.
    pub ty: RegType,
    name_start: u32,
    name_len: u32,
}

/// One item of a `.reg` declaration.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum RegDeclItem {
    /// `%r<N>`: registers `%r0 … %r(N-1)`, ids `first … first+N-1`.
    Range {
        prefix: Box<str>,
        count: u32,
        first: Reg,
    },
    /// A single named register.
    Single(Reg),
}

/// A `.reg` declaration statement: `.reg .b32 %r<10>;`, `.reg .pred p, q;`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RegDecl {
    /// The declared type.
    pub ty: RegType,
    /// `.align N` on a vector register declaration, if written.
    pub align: Option<u32>,
    /// The declared names.
    pub items: Vec<RegDeclItem>,
}

/// A variable initialiser (ISA §5.4.4).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Init {
    /// A constant.
    Imm(Imm),
    /// The address of a symbol: `name`, `name+4`, `generic(name)+4`, `mask(...)` is not modelled.
    Sym {
        name: Box<str>,
        generic: bool,
        offset: i64,
    },
    /// `{a, b, c}` (nested for multi-dimensional arrays).
    List(Vec<Init>),
}

/// `.ptr` attributes of a kernel parameter: `.ptr .global .align 16`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PtrAttr {
    /// The space the pointer points to, if written.
    pub space: Option<StateSpace>,
    /// The pointee alignment, if written.
    pub align: Option<u32>,
}

/// A variable or parameter declaration: `.global .align 4 .b8 buf[64] = {…};`, `.param .u64 p`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Variable {
    /// Linkage (module scope only).
    pub linkage: Option<Linkage>,
    /// The state space (`.param` for parameters).
    pub space: StateSpace,
    /// `.align N`.
    pub align: Option<u32>,
    /// `.v2`/`.v4` vector variables.
    pub vec: Option<u8>,
    /// The element type.
    pub ty: Type,
    /// `.ptr` attributes (kernel parameters only).
    pub ptr: Option<PtrAttr>,
    /// The name; `None` for the unnamed parameters of prototypes (`.param .b32 _`).
    pub name: Option<Box<str>>,
    /// Array dimensions; `None` for an unsized dimension (`[]`).
    pub dims: Vec<Option<u64>>,
    /// The initialiser.
    pub init: Option<Init>,
    /// `.attribute(.managed)` and similar attribute words, without dots.
    pub attributes: Vec<Box<str>>,
    /// Where it was written (metadata).
    pub loc: Loc,
}

impl Variable {
    /// Size in bytes (0 when a dimension is unsized).
    pub fn size_bytes(&self) -> u64 {
        let elem = u64::from(self.ty.bytes()) * u64::from(self.vec.unwrap_or(1));
        self.dims
            .iter()
            .fold(elem, |acc, d| acc.saturating_mul(d.unwrap_or(0)))
    }
}

/// A performance-tuning or other directive between a function's header and its body.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum FuncDirective {
    /// `.maxntid x[, y[, z]]`
    MaxNtid(Vec<u32>),
    /// `.reqntid x[, y[, z]]`
    ReqNtid(Vec<u32>),
    /// `.minnctapersm n`
    MinNctaPerSm(u32),
    /// `.maxnctapersm n` (deprecated)
    MaxNctaPerSm(u32),
    /// `.maxnreg n`
    MaxNreg(u32),
    /// `.noreturn`
    NoReturn,
    /// `.pragma "a", "b";`
    Pragma(Vec<Box<str>>),
    /// `.reqnctapercluster`, `.explicitcluster`, `.maxclusterrank`, `.blocksareclusters`, …
    /// kept with their numeric arguments.
    Other { name: Box<str>, args: Vec<u32> },
}

/// A statement of a function body, in layout order.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Stmt {
    /// An instruction.
    Inst(Inst),
    /// A label definition `name:`.
    Label(Label),
    /// A `.reg` declaration.
    RegDecl(RegDecl),
    /// A `.local`, `.shared`, `.param`, `.const` or `.global` variable declared in the body.
    Var(Box<Variable>),
    /// `{`: a nested scope opens.
    ScopeOpen,
    /// `}`: a nested scope closes.
    ScopeClose,
    /// `name: .branchtargets L1, L2;` (targets of `brx.idx`).
    BranchTargets { label: Label, targets: Vec<Label> },
    /// `name: .calltargets f, g;`
    CallTargets {
        label: Label,
        targets: Vec<Box<str>>,
    },
    /// `name: .callprototype …;` kept as its text after the directive name.
    CallPrototype { label: Label, text: Box<str> },
    /// `.pragma "…";` inside a body.
    Pragma(Vec<Box<str>>),
    /// `.loc …` and other debug directives, kept as their text: name (without dot) and arguments.
    Debug { name: Box<str>, text: Box<str> },
}

/// A function body: arenas plus layout.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Body {
    /// Register arena.
    pub regs: Vec<RegData>,
    /// The names of all registers, back to back (one allocation instead of one per register).
    reg_names: String,
    /// Label arena (label names).
    pub labels: Vec<Box<str>>,
    /// Instruction arena.
    pub insts: Vec<InstData>,
    /// The statements in order.
    pub stmts: Vec<Stmt>,
}

impl Body {
    /// The data of register `r`.
    pub fn reg(&self, r: Reg) -> &RegData {
        &self.regs[r.index()]
    }
    /// The PTX name of register `r` (`%r5`, `%p1`, `temp`).
    pub fn reg_name(&self, r: Reg) -> &str {
        let d = &self.regs[r.index()];
        &self.reg_names[d.name_start as usize..(d.name_start + d.name_len) as usize]
    }
    /// Adds a register named `name` (not declared: the caller adds the `.reg` statement, or uses
    /// the builder which does both).
    pub fn add_reg(&mut self, name: &str, ty: RegType) -> Reg {
        let r = Reg::new(self.regs.len());
        let name_start = self.reg_names.len() as u32;
        self.reg_names.push_str(name);
        self.regs.push(RegData {
            ty,
            name_start,
            name_len: name.len() as u32,
        });
        r
    }
    /// Adds registers `{prefix}0 … {prefix}{count-1}` (a `%r<N>` range); returns the first.
    pub fn add_reg_range(&mut self, prefix: &str, count: u32, ty: RegType) -> Reg {
        let first = Reg::new(self.regs.len());
        self.regs.reserve(count as usize);
        // The exact length of the names: `count` prefixes and the digits of 0 … count-1.
        let mut name_bytes = prefix.len() * count as usize;
        let (mut lo, mut digits) = (0u64, 1usize);
        while lo < u64::from(count) {
            let hi = (lo.max(1) * 10).min(u64::from(count));
            name_bytes += (hi - lo) as usize * digits;
            lo = hi;
            digits += 1;
        }
        self.reg_names.reserve(name_bytes);
        // The index in decimal, counted up in place: `digits[at..]` (a u32 has at most 10 digits).
        let mut digits = [b'0'; 11];
        let mut at = digits.len() - 1;
        for _ in 0..count {
            let name_start = self.reg_names.len() as u32;
            self.reg_names.push_str(prefix);
            // ASCII digits: pushed as chars (no UTF-8 check, no call to memcpy for 1–3 bytes).
            for &d in &digits[at..] {
                self.reg_names.push(char::from(d));
            }
            let mut j = digits.len() - 1;
            loop {
                if digits[j] < b'9' {
                    digits[j] += 1;
                    break;
                }
                digits[j] = b'0';
                if j == at {
                    at = at.saturating_sub(1);
                    digits[at] = b'1';
                    break;
                }
                j -= 1;
            }
            let name_len = self.reg_names.len() as u32 - name_start;
            self.regs.push(RegData {
                ty,
                name_start,
                name_len,
            });
        }
        first
    }
    /// The register named `name`, if any (a linear search: for tests and tools, not hot paths).
    pub fn reg_by_name(&self, name: &str) -> Option<Reg> {
        (0..self.regs.len())
            .map(Reg::new)
            .find(|r| self.reg_name(*r) == name)
    }
    /// The data of instruction `i`.
    pub fn inst(&self, i: Inst) -> &InstData {
        &self.insts[i.index()]
    }
    /// Mutable data of instruction `i`.
    pub fn inst_mut(&mut self, i: Inst) -> &mut InstData {
        &mut self.insts[i.index()]
    }
    /// The name of label `l`.
    pub fn label_name(&self, l: Label) -> &str {
        &self.labels[l.index()]
    }
    /// The instructions in layout order.
    pub fn inst_order(&self) -> impl Iterator<Item = Inst> + '_ {
        self.stmts.iter().filter_map(|s| match s {
            Stmt::Inst(i) => Some(*i),
            _ => None,
        })
    }
    /// Per instruction in the layout, the index of its statement in [`Body::stmts`].
    pub fn stmt_positions(&self) -> std::collections::HashMap<Inst, usize> {
        self.stmts
            .iter()
            .enumerate()
            .filter_map(|(k, s)| match s {
                Stmt::Inst(i) => Some((*i, k)),
                _ => None,
            })
            .collect()
    }
    /// Places instructions already in the arena into the layout: `inserts[k]`, in order, before
    /// the statement at position `k` (positions as [`Body::stmt_positions`] gives them).
    pub fn insert_before_positions(
        &mut self,
        inserts: &std::collections::HashMap<usize, Vec<Inst>>,
    ) {
        let added: usize = inserts.values().map(Vec::len).sum();
        let mut stmts = Vec::with_capacity(self.stmts.len() + added);
        for (k, s) in self.stmts.iter().enumerate() {
            if let Some(insts) = inserts.get(&k) {
                stmts.extend(insts.iter().map(|&i| Stmt::Inst(i)));
            }
            stmts.push(s.clone());
        }
        self.stmts = stmts;
    }
    /// The sizes of the arenas (for reserving the next body's; see [`Body::reserve`]).
    pub(crate) fn counts(&self) -> BodyCounts {
        BodyCounts {
            regs: self.regs.len(),
            reg_name_bytes: self.reg_names.len(),
            insts: self.insts.len(),
            stmts: self.stmts.len(),
        }
    }
    /// Reserves exactly `c` in each arena (at least a few), so that a body of about that size is
    /// built without regrowth and without the slack of doubling.
    pub(crate) fn reserve(&mut self, c: BodyCounts) {
        self.regs.reserve_exact(c.regs.max(8));
        self.reg_names.reserve_exact(c.reg_name_bytes.max(32));
        self.insts.reserve_exact(c.insts.max(8));
        self.stmts.reserve_exact(c.stmts.max(8));
    }
    /// Gives back the arenas' unused capacity (a shrink in place: no copy).
    pub(crate) fn shrink_to_fit(&mut self) {
        self.regs.shrink_to_fit();
        self.reg_names.shrink_to_fit();
        self.labels.shrink_to_fit();
        self.insts.shrink_to_fit();
        self.stmts.shrink_to_fit();
    }
    /// The variables declared in the body (any nesting).
    pub fn vars(&self) -> impl Iterator<Item = &Variable> + '_ {
        self.stmts.iter().filter_map(|s| match s {
            Stmt::Var(v) => Some(&**v),
            _ => None,
        })
    }
}

/// The sizes of a body's arenas (the parser reserves the next body's from the previous one's).
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct BodyCounts {
    regs: usize,
    reg_name_bytes: usize,
    insts: usize,
    stmts: usize,
}

/// `.entry` or `.func`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum FuncKind {
    /// A kernel.
    Entry,
    /// A device function.
    Func,
}

/// A kernel or device function, declared or defined.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Function {
    /// `.visible`, `.extern`, `.weak`.
    pub linkage: Option<Linkage>,
    /// `.entry` or `.func`.
    pub kind: FuncKind,
    /// Return parameters `(.param .b32 r)`; `None` when there is no return list.
    pub returns: Option<Vec<Variable>>,
    /// The name.
    pub name: Box<str>,
    /// Parameters; `None` when the header has no parameter list at all.
    pub params: Option<Vec<Variable>>,
    /// Directives between the header and the body.
    pub directives: Vec<FuncDirective>,
    /// The body; `None` for a declaration (`… ;`).
    pub body: Option<Body>,
    /// Where it was written (metadata).
    pub loc: Loc,
}

impl Function {
    /// The names of the variables, parameters and functions its body's instructions refer to.
    pub fn referenced_symbols(&self) -> std::collections::BTreeSet<&str> {
        let mut out = std::collections::BTreeSet::new();
        if let Some(b) = &self.body {
            for i in &b.insts {
                i.operands.iter().for_each(|o| {
                    o.for_each_sym(&mut |s| {
                        out.insert(s);
                    })
                });
            }
        }
        out
    }
    /// The launch bounds given by `.reqntid` (preferred) or `.maxntid`, as a thread count.
    pub fn block_size_bound(&self) -> Option<u32> {
        let pick = |want_req: bool| {
            self.directives.iter().find_map(|d| match d {
                FuncDirective::ReqNtid(v) if want_req => Some(v.iter().product()),
                FuncDirective::MaxNtid(v) if !want_req => Some(v.iter().product()),
                _ => None,
            })
        };
        pick(true).or_else(|| pick(false))
    }
    /// The parameters, or an empty slice when there is no list.
    pub fn param_list(&self) -> &[Variable] {
        self.params.as_deref().unwrap_or(&[])
    }
}

/// A module-level item, in source order.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Item {
    /// A kernel or function.
    Function(Function),
    /// A module-scope variable.
    Var(Variable),
    /// `.file N "path"[, timestamp, size]`.
    File {
        index: u32,
        path: Box<str>,
        extra: Vec<u64>,
    },
    /// A `.section` (DWARF) kept verbatim: name and the text between its braces.
    Section { name: Box<str>, text: Box<str> },
    /// `.pragma "…";` at module scope.
    Pragma(Vec<Box<str>>),
    /// `.alias a, b;`
    Alias { alias: Box<str>, aliasee: Box<str> },
}

/// A whole PTX module.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Module {
    /// `.version major.minor`.
    pub version: (u32, u32),
    /// `.target` entries (`sm_90a`, `texmode_independent`, `debug`, …).
    pub target: Vec<Box<str>>,
    /// `.address_size`, if written.
    pub address_size: Option<u32>,
    /// Everything else, in order.
    pub items: Vec<Item>,
}

impl Module {
    /// The functions (kernels and device functions) in order.
    pub fn functions(&self) -> impl Iterator<Item = &Function> + '_ {
        self.items.iter().filter_map(|i| match i {
            Item::Function(f) => Some(f),
            _ => None,
        })
    }
    /// Mutable access to the functions in order.
    pub fn functions_mut(&mut self) -> impl Iterator<Item = &mut Function> + '_ {
        self.items.iter_mut().filter_map(|i| match i {
            Item::Function(f) => Some(f),
            _ => None,
        })
    }
    /// The function named `name`, preferring a definition over a declaration.
    pub fn function(&self, name: &str) -> Option<&Function> {
        let mut decl = None;
        for f in self.functions().filter(|f| &*f.name == name) {
            if f.body.is_some() {
                return Some(f);
            }
            decl = Some(f);
        }
        decl
    }
    /// The module-scope variables.
    pub fn vars(&self) -> impl Iterator<Item = &Variable> + '_ {
        self.items.iter().filter_map(|i| match i {
            Item::Var(v) => Some(v),
            _ => None,
        })
    }
    /// The target architecture (`sm_90a` → `"sm_90a"`), if the `.target` names one.
    pub fn sm(&self) -> Option<&str> {
        self.target
            .iter()
            .map(|t| &**t)
            .find(|t| t.starts_with("sm_") || t.starts_with("compute_"))
    }
}

/// Appends `v` in decimal: the parser's register-name and the printer's number hot paths, where
/// `write!` is several times slower.
pub(crate) fn push_i64(out: &mut String, v: i64) {
    if v < 0 {
        out.push('-');
    }
    let mut u = v.unsigned_abs();
    let mut digits = [0u8; 20];
    let mut n = 0;
    loop {
        digits[n] = b'0' + (u % 10) as u8;
        n += 1;
        u /= 10;
        if u == 0 {
            break;
        }
    }
    for d in digits[..n].iter().rev() {
        out.push(*d as char);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The IR's footprint decides parse throughput (allocation and first touch of its memory):
    /// these sizes are part of the design (docs/ptx-ir.md), not an accident.
    #[test]
    fn compact_sizes() {
        use std::mem::size_of;
        assert_eq!(size_of::<Word>(), 16);
        assert_eq!(size_of::<Modifier>(), 16);
        assert_eq!(size_of::<Operand>(), 32);
        assert_eq!(size_of::<Mods>(), 56);
        assert_eq!(size_of::<Operands>(), 104);
        assert_eq!(size_of::<Opcode>(), 16);
        assert_eq!(size_of::<InstData>(), 192);
        assert_eq!(size_of::<Stmt>(), 40);
    }

    #[test]
    fn words_compare_by_text() {
        let a = Word::from("sync");
        let b = Word::from(String::from("sync"));
        let c = Word::from("m64n256k16");
        assert_eq!(a, b);
        assert_eq!(&*a, "sync");
        assert_eq!(&*c, "m64n256k16");
        assert_ne!(a, c);
        assert_eq!(Modifier::parse("m64n256k16"), Modifier::Word(c.clone()));
        assert_eq!(Modifier::parse("sync"), Modifier::Word(a));
        assert_eq!(Modifier::parse("u32"), Modifier::Type(Type::U32));
        assert_eq!(format!("{c:?}"), "\"m64n256k16\"");
    }
}
