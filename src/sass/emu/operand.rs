//! The typed form of one SASS instruction as nvdisasm prints it: guard predicate, mnemonic,
//! modifiers and operands (registers with their negation/absolute/not/half-select decorations,
//! immediates, constant-bank references, memory addresses, branch targets, special registers).
//!
//! This is the operand half of the SASS emulator (RegDem §3: the oracle a binary rewrite is checked
//! against). Our own decoder (`sass::isa`) knows register def/use but not immediates or modifier
//! semantics, so the emulator reads nvdisasm's text (`sass-and-cubin-format.md` §7); anything this
//! parser does not recognise is an error naming the text, never a guess.

use std::collections::HashMap;

/// Register number of `RZ` (and `URZ` is [`URZ`]).
pub const RZ: u8 = 255;
/// Register number of `URZ`.
pub const URZ: u8 = 63;
/// Predicate number of `PT` (and `UPT`).
pub const PT: u8 = 7;

/// Which part of a register an operand reads (`R3.H1`, `R3.B2`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum Sel {
    /// The whole register.
    #[default]
    All,
    /// Low or high 16-bit half (`.H0`, `.H1`).
    H(u8),
    /// Byte 0–3 (`.B0`…`.B3`).
    B(u8),
    /// Both halves replaced by the low half (`.H0_H0`).
    H0H0,
    /// Both halves replaced by the high half (`.H1_H1`).
    H1H1,
    /// The sign bit, as a predicate source (`PLOP3 … R2.SIGN …`).
    Sign,
}

/// An operand.
#[derive(Clone, Debug, PartialEq)]
pub enum Opnd {
    /// A general register (`R7`, `RZ` = 255) with decorations.
    R {
        /// Register number.
        n: u8,
        /// Arithmetic negation (`-R3`).
        neg: bool,
        /// Absolute value (`|R3|`).
        abs: bool,
        /// Bitwise not (`~R3`).
        not: bool,
        /// Part selected.
        sel: Sel,
    },
    /// A uniform register (`UR4`, `URZ` = 63).
    Ur {
        /// Register number.
        n: u8,
        /// Negation.
        neg: bool,
        /// Absolute value.
        abs: bool,
        /// Bitwise not.
        not: bool,
    },
    /// A predicate (`P0`, `!P3`, `PT` = 7).
    P {
        /// Number.
        n: u8,
        /// Negated.
        not: bool,
    },
    /// A uniform predicate (`UP0`, `UPT` = 7).
    Up {
        /// Number.
        n: u8,
        /// Negated.
        not: bool,
    },
    /// An integer immediate (`0x10`, `-0x1`), as 64 bits two's complement.
    Imm(i64),
    /// A float immediate as printed in decimal (`0.5`, `+INF`, `-QNAN`); its width depends on
    /// the instruction.
    FImm(f64),
    /// A constant-bank operand `c[bank][off]`, `c[bank][R2+off]` or `c[bank][UR4+off]`.
    C {
        /// Bank.
        bank: u8,
        /// Byte offset.
        off: i64,
        /// Index register: Some((uniform?, n)).
        idx: Option<(bool, u8)>,
        /// Negation.
        neg: bool,
        /// Absolute value.
        abs: bool,
        /// Bitwise not.
        not: bool,
        /// Half selection (`c[0x0][0x178].H0_H0`, a half-precision kernel parameter).
        sel: Sel,
    },
    /// A memory address `[R2.64+UR4+0x10]`, `[R3.X4+0x100]`, `desc[UR4][R2.64]`.
    Mem(Addr),
    /// A code address (branch target, call target) as a byte offset in the section.
    Target(u64),
    /// A special register (`SR_TID.X`).
    Sr(Special),
    /// A convergence barrier register (`B0`…`B15`).
    B(u8),
    /// The predicate file as a whole (`PR`, `UPR`).
    Pr,
    /// The zero special register pair (`SRZ`).
    Srz,
    /// A dependency scoreboard (`SB0`…`SB5`, operand of `DEPBAR`).
    Sb(u8),
    /// The warpgroup MMA descriptors `gdesc[URn]` (`URn:URn+1` A's shared-memory descriptor,
    /// `URn+2:URn+3` B's) with `.tnspA`/`.tnspB` (the operand is M/N-major).
    GDesc {
        /// First uniform register of the quad.
        ur: u8,
        /// `.tnspA`
        tnsp_a: bool,
        /// `.tnspB`
        tnsp_b: bool,
    },
    /// A warpgroup scoreboard (`gsb0`).
    Gsb(u8),
}

/// A memory address operand.
#[derive(Clone, Debug, PartialEq, Default)]
pub struct Addr {
    /// Base register (`R2`), when any; `wide` for `R2.64`.
    pub reg: Option<u8>,
    /// The base register is a 64-bit pair.
    pub wide: bool,
    /// The base register is scaled (`.X4`, `.X8`, `.X16`): the factor.
    pub scale: u32,
    /// Uniform register term (`UR4`), when any; `uwide` for `UR4.64`.
    pub ureg: Option<u8>,
    /// The uniform register is a 64-bit pair.
    pub uwide: bool,
    /// Immediate offset.
    pub off: i64,
}

/// Special registers read by `S2R`, `S2UR`, `CS2R`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Special {
    /// `SR_TID.{X,Y,Z}`
    Tid(u8),
    /// `SR_CTAID.{X,Y,Z}`
    Ctaid(u8),
    /// `SR_LANEID`
    LaneId,
    /// `SR_LEMASK` … : lane masks (`eq`, `lt`, `le`, `gt`, `ge`).
    LaneMask(u8),
    /// `SR_CLOCKLO`, `SR_CLOCKHI`, `SR_CLOCK…`: the warp's instruction counter.
    Clock(bool),
    /// `SR_GLOBALTIMERLO/HI`.
    GlobalTimer(bool),
    /// `SR_VIRTID`, `SR_SMID`, `SR_VIRTUALSMID`, `SR_NSMID`, … (constant 0).
    Zero,
    /// `SR_CgaCtaId`: the CTA's rank in its cluster (`%cluster_ctarank`).
    ClusterCtaRank,
    /// `SR_SWINHI`: the high word of the shared-memory window.
    SwinHi,
    /// `SR_WARPID` (warp within the CTA).
    WarpId,
}

/// One parsed instruction.
#[derive(Clone, Debug, PartialEq)]
pub struct Parsed {
    /// Guard: (uniform predicate?, number, negated).
    pub guard: Option<(bool, u8, bool)>,
    /// The base mnemonic (`IMAD`).
    pub op: String,
    /// The modifiers in order (`["WIDE", "U32"]`).
    pub mods: Vec<String>,
    /// The operands in order.
    pub ops: Vec<Opnd>,
    /// Matrix layouts written after register operands (`IMMA … R4.ROW, R8.COL`): (operand
    /// index, `ROW` or `COL`).
    pub layouts: Vec<(usize, String)>,
}

impl Parsed {
    /// True when modifier `m` is present.
    pub fn has(&self, m: &str) -> bool {
        self.mods.iter().any(|x| x == m)
    }
}

/// Splits at commas outside brackets.
fn split_operands(s: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut depth = 0i32;
    let mut cur = String::new();
    for c in s.chars() {
        match c {
            '[' | '(' => depth += 1,
            ']' | ')' => depth -= 1,
            _ => {}
        }
        if c == ',' && depth == 0 {
            out.push(cur.trim().to_string());
            cur.clear();
        } else {
            cur.push(c);
        }
    }
    if !cur.trim().is_empty() {
        out.push(cur.trim().to_string());
    }
    out
}

fn parse_int(s: &str) -> Option<i64> {
    let (neg, t) = match s.strip_prefix('-') {
        Some(t) => (true, t),
        None => (false, s.strip_prefix('+').unwrap_or(s)),
    };
    let v = if let Some(h) = t.strip_prefix("0x") {
        u64::from_str_radix(h, 16).ok()? as i64
    } else {
        return None;
    };
    Some(if neg { v.wrapping_neg() } else { v })
}

fn parse_float(s: &str) -> Option<f64> {
    let t = s.trim_start_matches('+');
    match t {
        "INF" => return Some(f64::INFINITY),
        "-INF" => return Some(f64::NEG_INFINITY),
        "QNAN" | "NAN" | "-QNAN" | "-NAN" => return Some(f64::NAN),
        _ => {}
    }
    if !t
        .chars()
        .all(|c| c.is_ascii_digit() || matches!(c, '.' | 'e' | 'E' | '-' | '+'))
        || !t.chars().any(|c| c.is_ascii_digit())
    {
        return None;
    }
    t.parse::<f64>().ok()
}

fn reg_num(s: &str, prefix: &str, zero: &str, zero_val: u8) -> Option<u8> {
    if s == zero {
        return Some(zero_val);
    }
    let d = s.strip_prefix(prefix)?;
    if d.is_empty() || !d.chars().all(|c| c.is_ascii_digit()) {
        return None;
    }
    d.parse::<u8>().ok()
}

fn special(s: &str) -> Option<Special> {
    let axis = |c: &str| match c {
        "X" => Some(0),
        "Y" => Some(1),
        "Z" => Some(2),
        _ => None,
    };
    if let Some(a) = s.strip_prefix("SR_TID.") {
        return axis(a).map(Special::Tid);
    }
    if let Some(a) = s.strip_prefix("SR_CTAID.") {
        return axis(a).map(Special::Ctaid);
    }
    Some(match s {
        "SR_TID" => Special::Tid(0),
        "SR_LANEID" => Special::LaneId,
        "SR_EQMASK" => Special::LaneMask(0),
        "SR_LTMASK" => Special::LaneMask(1),
        "SR_LEMASK" => Special::LaneMask(2),
        "SR_GTMASK" => Special::LaneMask(3),
        "SR_GEMASK" => Special::LaneMask(4),
        "SR_CLOCKLO" | "SR_CLOCK" => Special::Clock(false),
        "SR_CLOCKHI" => Special::Clock(true),
        "SR_GLOBALTIMERLO" | "SR_GLOBALTIMER" => Special::GlobalTimer(false),
        "SR_GLOBALTIMERHI" => Special::GlobalTimer(true),
        "SR_VIRTID" | "SR_SMID" | "SR_VIRTUALSMID" | "SR_GRIDID" => Special::Zero,
        "SR_CgaCtaId" | "SR_CGACTAID" => Special::ClusterCtaRank,
        "SR_SWINHI" => Special::SwinHi,
        "SR_WARPID" => Special::WarpId,
        _ => return None,
    })
}

/// Parses a register-like token with decorations (`-|R3.H1|`, `~UR4`, `!P0`, `c[0x0][0x10]`).
fn parse_value(tok: &str) -> Option<Opnd> {
    // `.reuse` (an operand-cache hint) may follow the register anywhere: `|R0|.reuse`,
    // `R8.reuse.H0_H0`.
    let owned = tok.trim().replace(".reuse", "");
    let tok = owned.as_str();
    let mut t = tok;
    let mut neg = false;
    let mut not = false;
    let mut abs = false;
    if let Some(r) = t.strip_prefix('-') {
        // `-0x1` and `-1.5` are immediates.
        if parse_int(t).is_none() && parse_float(t).is_none() {
            neg = true;
            t = r;
        }
    }
    if let Some(r) = t.strip_prefix('~') {
        not = true;
        t = r;
    }
    if let Some(r) = t.strip_prefix('!') {
        not = true;
        t = r;
    }
    if t.starts_with('|') && t.ends_with('|') && t.len() >= 2 {
        abs = true;
        t = &t[1..t.len() - 1];
    }
    if let Some(v) = parse_int(t) {
        return Some(Opnd::Imm(v));
    }
    if !neg && !not && !abs {
        if let Some(f) = parse_float(tok.trim()) {
            return Some(Opnd::FImm(f));
        }
    }
    if t.starts_with("c[") {
        let (bank, rest) = bracket(&t[1..])?;
        let bank = parse_int(bank)? as u8;
        // nvdisasm separates the brackets when a half is selected: `c[0x0] [0x178].H0_H0`.
        let (inner, tail) = bracket(rest.trim_start())?;
        let sel = match tail {
            "" => Sel::All,
            ".H0" => Sel::H(0),
            ".H1" => Sel::H(1),
            ".H0_H0" => Sel::H0H0,
            ".H1_H1" => Sel::H1H1,
            _ => return None,
        };
        let a = parse_addr_inner(inner)?;
        let idx = match (a.reg, a.ureg) {
            (Some(r), None) => Some((false, r)),
            (None, Some(u)) => Some((true, u)),
            (None, None) => None,
            _ => return None,
        };
        return Some(Opnd::C {
            bank,
            off: a.off,
            idx,
            neg,
            abs,
            not,
            sel,
        });
    }
    let (base, sel) = match t.rsplit_once('.') {
        Some((b, s)) if b.starts_with('R') || b.starts_with("UR") => {
            let sel = match s {
                "H0" => Sel::H(0),
                "H1" => Sel::H(1),
                "B0" => Sel::B(0),
                "B1" => Sel::B(1),
                "B2" => Sel::B(2),
                "B3" => Sel::B(3),
                "H0_H0" => Sel::H0H0,
                "H1_H1" => Sel::H1H1,
                "SIGN" => Sel::Sign,
                "F32" => Sel::All,
                _ => return None,
            };
            (b, sel)
        }
        _ => (t, Sel::All),
    };
    if let Some(n) = reg_num(base, "R", "RZ", RZ) {
        return Some(Opnd::R {
            n,
            neg,
            abs,
            not,
            sel,
        });
    }
    if let Some(n) = reg_num(base, "UR", "URZ", URZ) {
        return Some(Opnd::Ur { n, neg, abs, not });
    }
    if let Some(n) = reg_num(base, "UP", "UPT", PT) {
        return Some(Opnd::Up { n, not });
    }
    if let Some(n) = reg_num(base, "P", "PT", PT) {
        return Some(Opnd::P { n, not });
    }
    if let Some(n) = reg_num(base, "B", "", 0) {
        return (n < 16).then_some(Opnd::B(n));
    }
    if let Some(n) = reg_num(base, "SB", "", 0) {
        return (n < 6).then_some(Opnd::Sb(n));
    }
    match base {
        "PR" | "UPR" => return Some(Opnd::Pr),
        "SRZ" => return Some(Opnd::Srz),
        _ => {}
    }
    special(t).map(Opnd::Sr)
}

/// `[inner]rest` → (inner, rest).
fn bracket(s: &str) -> Option<(&str, &str)> {
    let s = s.strip_prefix('[')?;
    let end = s.find(']')?;
    Some((&s[..end], &s[end + 1..]))
}

fn parse_addr_inner(inner: &str) -> Option<Addr> {
    let mut a = Addr {
        scale: 1,
        ..Addr::default()
    };
    let s = inner.replace("+-", "-");
    let mut terms: Vec<(bool, &str)> = Vec::new();
    let mut start = 0;
    let mut neg = false;
    for (i, c) in s.char_indices() {
        if (c == '+' || c == '-') && i > 0 {
            terms.push((neg, &s[start..i]));
            neg = c == '-';
            start = i + 1;
        } else if c == '-' && i == 0 {
            neg = true;
            start = 1;
        }
    }
    terms.push((neg, &s[start..]));
    for (neg, t) in terms {
        let t = t.trim();
        if t.is_empty() {
            continue;
        }
        if let Some(v) = parse_int(t) {
            a.off += if neg { -v } else { v };
            continue;
        }
        if neg {
            return None;
        }
        let mut parts = t.split('.');
        let base = parts.next()?;
        let mut wide = false;
        let mut scale = 1;
        for p in parts {
            match p {
                "64" => wide = true,
                "U32" => {}
                "X4" => scale = 4,
                "X8" => scale = 8,
                "X16" => scale = 16,
                "reuse" => {}
                _ => return None,
            }
        }
        if let Some(n) = reg_num(base, "R", "RZ", RZ) {
            if a.reg.is_some() {
                return None;
            }
            a.reg = Some(n);
            a.wide = wide;
            a.scale = scale;
        } else if let Some(n) = reg_num(base, "UR", "URZ", URZ) {
            if a.ureg.is_some() {
                return None;
            }
            a.ureg = Some(n);
            a.uwide = wide;
        } else {
            return None;
        }
    }
    Some(a)
}

fn parse_operand(tok: &str, labels: &HashMap<String, u64>) -> Option<Opnd> {
    let t = tok.trim();
    if let Some(l) = t.strip_prefix("`(").and_then(|x| x.strip_suffix(')')) {
        return labels.get(l).map(|&o| Opnd::Target(o));
    }
    if let Some(rest) = t.strip_prefix("gdesc[") {
        let (ur, mods) = rest.split_once(']')?;
        let ur = reg_num(ur, "UR", "URZ", URZ)?;
        let (mut tnsp_a, mut tnsp_b) = (false, false);
        for m in mods.split('.').filter(|m| !m.is_empty()) {
            match m {
                "tnspA" => tnsp_a = true,
                "tnspB" => tnsp_b = true,
                _ => return None,
            }
        }
        return Some(Opnd::GDesc { ur, tnsp_a, tnsp_b });
    }
    if let Some(n) = t.strip_prefix("gsb").and_then(|n| n.parse::<u8>().ok()) {
        return Some(Opnd::Gsb(n));
    }
    if let Some(rest) = t.strip_prefix("desc[") {
        // `desc[UR4][R2.64+0x10]`: the descriptor register is a cache policy; only the address
        // matters here.
        let end = rest.find(']')?;
        let (inner, tail) = bracket(&rest[end + 1..])?;
        if !tail.is_empty() {
            return None;
        }
        return parse_addr_inner(inner).map(Opnd::Mem);
    }
    if t.starts_with('[') {
        let (inner, tail) = bracket(t)?;
        if !tail.is_empty() {
            return None;
        }
        return parse_addr_inner(inner).map(Opnd::Mem);
    }
    parse_value(t)
}

/// Parses one instruction text (`@!P0 IMAD.MOV.U32 R1, RZ, RZ, -R3`, without `;`). `labels`
/// resolves branch and call targets. `None` when some part is not understood.
pub fn parse(text: &str, labels: &HashMap<String, u64>) -> Result<Parsed, String> {
    let text = text.trim().trim_end_matches(';').trim();
    let (guard, rest) = if let Some(r) = text.strip_prefix('@') {
        let (g, rest) = r
            .split_once(char::is_whitespace)
            .ok_or("guard without opcode")?;
        let (not, g) = match g.strip_prefix('!') {
            Some(x) => (true, x),
            None => (false, g),
        };
        let gd = if let Some(n) = reg_num(g, "UP", "UPT", PT) {
            (true, n, not)
        } else if let Some(n) = reg_num(g, "P", "PT", PT) {
            (false, n, not)
        } else {
            return Err(format!("guard `{g}`"));
        };
        (Some(gd), rest.trim())
    } else {
        (None, text)
    };
    let (opcode, operands) = match rest.split_once(char::is_whitespace) {
        Some((o, r)) => (o, r.trim()),
        None => (rest, ""),
    };
    let mut parts = opcode.split('.');
    let op = parts.next().unwrap_or("").to_string();
    let mods: Vec<String> = parts.map(str::to_string).collect();
    let mut ops = Vec::new();
    // A branch-like target is written after the last operand without a comma:
    // `RET.REL.NODEC R20 `(k)`, `CALL.REL.NOINC R12 `(k)`.
    // `BRX R4 -0x150 (*"BRANCH_TARGETS …"*)`: register and offset separated by a space, and a
    // comment.
    let operands = match operands.find("(*") {
        Some(i) => operands[..i].trim(),
        None => operands,
    };
    // `DEPBAR.LE SB0, 0x0, {4,3,2,1}`: the braces list more scoreboards to drain. Operations
    // on scoreboards complete when issued here (only LDGSTS groups wait), so the list adds
    // nothing to wait for.
    let operands = match (op == "DEPBAR", operands.find(", {")) {
        (true, Some(i)) if operands.ends_with('}') => &operands[..i],
        _ => operands,
    };
    let mut tokens = split_operands(operands);
    if op == "BRX" && tokens.len() == 1 {
        tokens = tokens[0].split_whitespace().map(str::to_string).collect();
    }
    let mut extra = None;
    if let Some(last) = tokens.last_mut() {
        if let Some(i) = last.find(" `(") {
            extra = Some(last[i + 1..].to_string());
            *last = last[..i].trim().to_string();
        }
    }
    let mut layouts = Vec::new();
    for t in tokens.iter().chain(extra.iter()) {
        if t.is_empty() {
            continue;
        }
        // `R4.ROW`, `R8.reuse.COL`: the layout of a matrix operand (IMMA).
        let (t, layout) = match t.rsplit_once('.') {
            Some((r, l @ ("ROW" | "COL"))) => (r, Some(l)),
            _ => (t.as_str(), None),
        };
        if let Some(l) = layout {
            layouts.push((ops.len(), l.to_string()));
        }
        ops.push(parse_operand(t, labels).ok_or_else(|| format!("operand `{t}`"))?);
    }
    Ok(Parsed {
        guard,
        op,
        mods,
        ops,
        layouts,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_common_forms() {
        let l: HashMap<String, u64> = [(".L_x_0".to_string(), 0x40)].into_iter().collect();
        let p = parse("@!P0 IMAD.MOV.U32 R1, RZ, RZ, -R3.reuse", &l).unwrap();
        assert_eq!(p.guard, Some((false, 0, true)));
        assert_eq!(p.op, "IMAD");
        assert_eq!(p.mods, vec!["MOV", "U32"]);
        assert_eq!(
            p.ops[3],
            Opnd::R {
                n: 3,
                neg: true,
                abs: false,
                not: false,
                sel: Sel::All
            }
        );
        let p = parse("LDG.E.CONSTANT R2, desc[UR4][R2.64+-0x10]", &l).unwrap();
        assert_eq!(
            p.ops[1],
            Opnd::Mem(Addr {
                reg: Some(2),
                wide: true,
                scale: 1,
                off: -16,
                ..Addr::default()
            })
        );
        let p = parse("FFMA R3, -|R2|, 0.5, c[0x0][0x160]", &l).unwrap();
        assert_eq!(p.ops[2], Opnd::FImm(0.5));
        assert!(matches!(
            p.ops[3],
            Opnd::C {
                bank: 0,
                off: 0x160,
                idx: None,
                ..
            }
        ));
        let p = parse("BRA `(.L_x_0)", &l).unwrap();
        assert_eq!(p.ops, vec![Opnd::Target(0x40)]);
        let p = parse("RET.REL.NODEC R20 `(.L_x_0)", &l).unwrap();
        assert_eq!(p.ops.len(), 2);
        let p = parse("LDC.64 R12, c[0x2][R12+0x8]", &l).unwrap();
        assert!(matches!(
            p.ops[1],
            Opnd::C {
                bank: 2,
                off: 8,
                idx: Some((false, 12)),
                ..
            }
        ));
        let p = parse("S2R R0, SR_TID.X", &l).unwrap();
        assert_eq!(p.ops[1], Opnd::Sr(Special::Tid(0)));
        let p = parse("IADD3 R0, -0x1, R2, RZ", &l).unwrap();
        assert_eq!(p.ops[1], Opnd::Imm(-1));
        assert!(parse("FOO R0, what?", &l).is_err());
        let p = parse("IMMA.16832.S8.S8.SAT R16, R4.ROW, R24.reuse.COL, R16", &l).unwrap();
        assert_eq!(p.layouts, vec![(1, "ROW".into()), (2, "COL".into())]);
        assert!(matches!(p.ops[2], Opnd::R { n: 24, .. }));
        let p = parse("DEPBAR.LE SB0, 0x1", &l).unwrap();
        assert_eq!(p.ops, vec![Opnd::Sb(0), Opnd::Imm(1)]);
        assert!(parse("DEPBAR.LE SB9, 0x1", &l).is_err());
        let p = parse("DEPBAR.LE SB0, 0x0, {4,3,2,1}", &l).unwrap();
        assert_eq!(p.ops, vec![Opnd::Sb(0), Opnd::Imm(0)]);
        let p = parse(
            "HGMMA.64x64x16.F32 R120, R152, gdesc[UR24].tnspB, R120, gsb0",
            &l,
        )
        .unwrap();
        assert_eq!(
            p.ops[2],
            Opnd::GDesc {
                ur: 24,
                tnsp_a: false,
                tnsp_b: true
            }
        );
        assert_eq!(p.ops[4], Opnd::Gsb(0));
        assert!(parse("HGMMA.64x64x16.F32 R0, gdesc[UR4].odd, R0", &l).is_err());
    }
}
