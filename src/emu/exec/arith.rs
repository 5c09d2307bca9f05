//! The per-lane arithmetic forms of the PTX interpreter ([`super`]) that are more than one
//! [`Domain`] operation over whole warp registers: `mad` with a carry (PTX ISA §9.7.1.3–4,
//! extended precision §9.7.2), the carry chains `add.cc`/`addc`/`sub.cc`/`subc`, `setp`/`set` with
//! a boolean combination (§9.7.4.1–2, packed halves included), `slct`, the packing and unpacking
//! forms of `mov` (§9.7.9.10), and the state-space address forms `cvta` and `isspacep`
//! (§9.7.9.16–17). `step` dispatches here; plain one-operation instructions go through its `alu`.

use super::misrouted;
use super::{
    alu, classify_generic, concrete, gather, gather_operands, lanes, memory, rd, Lanes, Step, Stop,
};
use crate::emu::decode::{DInst, Src};
use crate::emu::domain::{Domain, Op, Space};

/// Executes one of this module's forms (`step` routes only those here).
pub(super) fn exec<D: Domain>(l: Lanes<'_, '_, D>, cc_reg: u32, kind: &DInst) -> Step<()> {
    match kind {
        DInst::Mad {
            mul,
            add,
            cout,
            cin,
            d,
            a,
            b,
            c,
        } => mad(l, cc_reg, (mul, add, cout, cin), (d, a, b, c)),
        DInst::Carry {
            op,
            cout,
            cin,
            c0,
            d,
            a,
            b,
        } => carry(l, cc_reg, (op, cout, cin, c0), (d, a, b)),
        DInst::Setp {
            cmp,
            p,
            q,
            a,
            b,
            comb,
            set_true,
        } => setp(l, cmp, (p, q), (a, b), comb, set_true),
        DInst::SetpX2 {
            lo,
            hi,
            p,
            q,
            a,
            b,
            comb,
            set_one,
        } => setp_x2(l, (lo, hi), (p, q), (a, b), comb, set_one),
        DInst::Slct { cmp, d, a, b, c } => slct(l, cmp, d, (a, b, c)),
        DInst::Pack { d, parts, part } => pack(l, d, parts, part),
        DInst::Unpack { ds, a, part } => unpack(l, ds, a, part),
        DInst::Cvta {
            to,
            space,
            bits,
            d,
            a,
        } => cvta(l, (to, space, bits), d, a),
        DInst::Isspacep { space, d, a } => isspacep(l, space, d, a),
        other => Err(misrouted("arithmetic", other)),
    }
}

/// `mad`/`madc` (`mul` then `add`, with the carry flag `cc` in and out as `cin`/`cout` say).
fn mad<D: Domain>(
    l: Lanes<'_, '_, D>,
    cc_reg: u32,
    (mul, add, cout, cin): (&Op, &Op, &Option<Op>, &bool),
    (d, a, b, c): (&u32, &Src, &Src, &Src),
) -> Step<()> {
    let Lanes {
        dom,
        regs,
        scratch,
        env,
        active,
        ..
    } = l;
    if let (false, None, Op::AddC { bits }) = (*cin, cout, add) {
        // No carry: a whole-warp multiply, then a whole-warp add.
        gather_operands(dom, regs, scratch, &[*a, *b, *c], active, env)?;
        let (ins, rest) = scratch.split_at_mut(96);
        dom.apply_lanes(*mul, active, &[&ins[..32], &ins[32..64]], &mut rest[..32])
            .map_err(|(e, lane)| Stop::Domain(e, Some(lane)))?;
        let dd = *d as usize * 32;
        let plain = Op::Add {
            bits: *bits,
            sat: false,
        };
        dom.apply_lanes(
            plain,
            active,
            &[&rest[..32], &ins[64..96]],
            &mut regs[dd..dd + 32],
        )
        .map_err(|(e, lane)| Stop::Domain(e, Some(lane)))?;
        return Ok(());
    }
    let cc = cc_reg as usize * 32;
    for lane in lanes(active) {
        let x = rd(dom, regs, *a, lane, env)?;
        let y = rd(dom, regs, *b, lane, env)?;
        let z = rd(dom, regs, *c, lane, env)?;
        let p = dom.apply(*mul, &[x, y])?;
        let ci = if *cin {
            regs[cc + lane].clone()
        } else {
            dom.lit(0)
        };
        let r = dom.apply(*add, &[p.clone(), z.clone(), ci.clone()])?;
        if let Some(co) = cout {
            regs[cc + lane] = dom.apply(*co, &[p, z, ci])?;
        }
        regs[*d as usize * 32 + lane] = r;
    }
    Ok(())
}

/// `add.cc`/`addc`/`sub.cc`/`subc`: the result and, with `cout`, the carry flag.
fn carry<D: Domain>(
    l: Lanes<'_, '_, D>,
    cc_reg: u32,
    (op, cout, cin, c0): (&Op, &Option<Op>, &bool, &u64),
    (d, a, b): (&u32, &Src, &Src),
) -> Step<()> {
    let Lanes {
        dom,
        regs,
        scratch,
        env,
        active,
        ..
    } = l;
    // Whole warp: gather a, b and the carry-in, then the result and the carry-out.
    let cc = cc_reg;
    let cin_src = if *cin { Src::Reg(cc) } else { Src::Imm(*c0) };
    gather_operands(dom, regs, scratch, &[*a, *b, cin_src], active, env)?;
    let (ins, rest) = scratch.split_at_mut(96);
    let args = [&ins[..32], &ins[32..64], &ins[64..96]];
    dom.apply_lanes(*op, active, &args, &mut rest[..32])
        .map_err(|(e, lane)| Stop::Domain(e, Some(lane)))?;
    if let Some(co) = cout {
        let c = cc as usize * 32;
        dom.apply_lanes(*co, active, &args, &mut regs[c..c + 32])
            .map_err(|(e, lane)| Stop::Domain(e, Some(lane)))?;
    }
    let dd = *d as usize * 32;
    for lane in lanes(active) {
        regs[dd + lane] = rest[lane].clone();
    }
    Ok(())
}

/// `setp`/`set`: the comparison, its negation into `q`, the combination with `c`.
fn setp<D: Domain>(
    l: Lanes<'_, '_, D>,
    cmp: &Op,
    (p, q): (&Option<u32>, &Option<u32>),
    (a, b): (&Src, &Src),
    comb: &Option<(Op, Src)>,
    set_true: &Option<u64>,
) -> Step<()> {
    let Lanes {
        dom,
        regs,
        scratch,
        env,
        active,
        ..
    } = l;
    if let (Some(p), None, None, None) = (p, q, comb, set_true) {
        let srcs = [*a, *b];
        alu(dom, regs, scratch, *cmp, &srcs, *p, active, env)?;
        return Ok(());
    }
    if set_true.is_none() {
        // t = cmp(a, b) in slot 2, !t in slot 3, c in slot 0; then p and q.
        gather_operands(dom, regs, scratch, &[*a, *b], active, env)?;
        let lane_err = |(e, lane)| Stop::Domain(e, Some(lane));
        {
            let (ins, rest) = scratch.split_at_mut(64);
            dom.apply_lanes(*cmp, active, &[&ins[..32], &ins[32..64]], &mut rest[..32])
                .map_err(lane_err)?;
            let (t, nt) = rest.split_at_mut(32);
            if q.is_some() {
                dom.apply_lanes(Op::Not { bits: 1 }, active, &[&t[..32]], &mut nt[..32])
                    .map_err(lane_err)?;
            }
        }
        if let Some((_, c)) = comb {
            gather(dom, regs, &mut scratch[..32], *c, active, env)?;
        }
        let (c_lanes, rest) = scratch.split_at_mut(64);
        let (t, nt) = rest.split_at_mut(32);
        for (dst, val) in [(p, &*t), (q, &*nt)] {
            let Some(dst) = dst else { continue };
            let dd = *dst as usize * 32;
            match comb {
                Some((bop, _)) => dom
                    .apply_lanes(
                        *bop,
                        active,
                        &[&val[..32], &c_lanes[..32]],
                        &mut regs[dd..dd + 32],
                    )
                    .map_err(lane_err)?,
                None => {
                    for lane in lanes(active) {
                        regs[dd + lane] = val[lane].clone();
                    }
                }
            }
        }
        return Ok(());
    }
    for lane in lanes(active) {
        let x = rd(dom, regs, *a, lane, env)?;
        let y = rd(dom, regs, *b, lane, env)?;
        let t = dom.apply(*cmp, &[x, y])?;
        let (mut pv, mut qv) = (t.clone(), None);
        if q.is_some() {
            qv = Some(dom.apply(Op::Not { bits: 1 }, &[t])?);
        }
        if let Some((bop, c)) = comb {
            let cv = rd(dom, regs, *c, lane, env)?;
            pv = dom.apply(*bop, &[pv, cv.clone()])?;
            if let Some(qq) = qv {
                qv = Some(dom.apply(*bop, &[qq, cv])?);
            }
        }
        if let Some(tv) = set_true {
            let one = dom.lit(*tv);
            let zero = dom.lit(0);
            pv = dom.apply(Op::Select, &[one, zero, pv])?;
        }
        if let Some(p) = p {
            regs[*p as usize * 32 + lane] = pv;
        }
        if let (Some(q), Some(qv)) = (q, qv) {
            regs[*q as usize * 32 + lane] = qv;
        }
    }
    Ok(())
}

/// `setp`/`set` on packed halves.
fn setp_x2<D: Domain>(
    l: Lanes<'_, '_, D>,
    (lo, hi): (&Op, &Op),
    (p, q): (&Option<u32>, &Option<u32>),
    (a, b): (&Src, &Src),
    comb: &Option<(Op, Src)>,
    set_one: &Option<u64>,
) -> Step<()> {
    let Lanes {
        dom,
        regs,
        env,
        active,
        ..
    } = l;
    for lane in lanes(active) {
        let x = rd(dom, regs, *a, lane, env)?;
        let y = rd(dom, regs, *b, lane, env)?;
        let mut t0 = dom.apply(*lo, &[x.clone(), y.clone()])?;
        let mut t1 = dom.apply(*hi, &[x, y])?;
        if let Some((bop, c)) = comb {
            let cv = rd(dom, regs, *c, lane, env)?;
            t0 = dom.apply(*bop, &[t0, cv.clone()])?;
            t1 = dom.apply(*bop, &[t1, cv])?;
        }
        match set_one {
            Some(one) => {
                let (o, z) = (dom.lit(*one), dom.lit(0));
                let l = dom.apply(Op::Select, &[o.clone(), z.clone(), t0])?;
                let h = dom.apply(Op::Select, &[o, z, t1])?;
                let sh = dom.lit(16);
                let h = dom.apply(Op::Shl { bits: 32 }, &[h, sh])?;
                if let Some(p) = p {
                    regs[*p as usize * 32 + lane] = dom.apply(Op::Or { bits: 32 }, &[l, h])?;
                }
            }
            None => {
                if let Some(p) = p {
                    regs[*p as usize * 32 + lane] = t0;
                }
                if let Some(q) = q {
                    regs[*q as usize * 32 + lane] = t1;
                }
            }
        }
    }
    Ok(())
}

/// `slct`: `d = cmp(c, 0) ? a : b`.
fn slct<D: Domain>(
    l: Lanes<'_, '_, D>,
    cmp: &Op,
    d: &u32,
    (a, b, c): (&Src, &Src, &Src),
) -> Step<()> {
    let Lanes {
        dom,
        regs,
        env,
        active,
        ..
    } = l;
    for lane in lanes(active) {
        let x = rd(dom, regs, *a, lane, env)?;
        let y = rd(dom, regs, *b, lane, env)?;
        let z = rd(dom, regs, *c, lane, env)?;
        let zero = dom.lit(0);
        let t = dom.apply(*cmp, &[z, zero])?;
        regs[*d as usize * 32 + lane] = dom.apply(Op::Select, &[x, y, t])?;
    }
    Ok(())
}

/// `mov d, {a, b, …}`: packs `part`-bit parts, the first lowest.
fn pack<D: Domain>(l: Lanes<'_, '_, D>, d: &u32, parts: &[Src], part: &u32) -> Step<()> {
    let Lanes {
        dom,
        regs,
        env,
        active,
        ..
    } = l;
    for lane in lanes(active) {
        let mut acc = dom.lit(0);
        for (i, p) in parts.iter().enumerate() {
            let v = rd(dom, regs, *p, lane, env)?;
            let v = dom.apply(
                Op::Ext {
                    from: *part,
                    to: 64,
                    signed: false,
                },
                &[v],
            )?;
            let sh = dom.lit(u64::from(*part) * i as u64);
            let v = dom.apply(Op::Shl { bits: 64 }, &[v, sh])?;
            acc = dom.apply(Op::Or { bits: 64 }, &[acc, v])?;
        }
        regs[*d as usize * 32 + lane] = acc;
    }
    Ok(())
}

/// `mov {a, b, …}, s`: unpacks `part`-bit parts, the first lowest.
fn unpack<D: Domain>(l: Lanes<'_, '_, D>, ds: &[Option<u32>], a: &Src, part: &u32) -> Step<()> {
    let Lanes {
        dom,
        regs,
        env,
        active,
        ..
    } = l;
    for lane in lanes(active) {
        let v = rd(dom, regs, *a, lane, env)?;
        for (i, dst) in ds.iter().enumerate() {
            let Some(dst) = dst else { continue };
            let sh = dom.lit(u64::from(*part) * i as u64);
            let x = dom.apply(
                Op::Shr {
                    bits: 64,
                    signed: false,
                },
                &[v.clone(), sh],
            )?;
            let x = dom.apply(
                Op::Ext {
                    from: *part,
                    to: *part,
                    signed: false,
                },
                &[x],
            )?;
            regs[*dst as usize * 32 + lane] = x;
        }
    }
    Ok(())
}

/// `cvta` (`to`: generic to `space`, else `space` to generic): moves an address between a
/// state space and its window of the generic space.
fn cvta<D: Domain>(
    l: Lanes<'_, '_, D>,
    (to, space, bits): (&bool, &Space, &u32),
    d: &u32,
    a: &Src,
) -> Step<()> {
    let Lanes {
        dom,
        regs,
        env,
        active,
        ..
    } = l;
    let base = memory::window_base(*space);
    for lane in lanes(active) {
        let x = rd(dom, regs, *a, lane, env)?;
        let b = dom.lit(base);
        let r = if *to {
            dom.apply(
                Op::Sub {
                    bits: *bits,
                    sat: false,
                },
                &[x, b],
            )?
        } else {
            dom.apply(
                Op::Add {
                    bits: *bits,
                    sat: false,
                },
                &[x, b],
            )?
        };
        regs[*d as usize * 32 + lane] = r;
    }
    Ok(())
}

/// `isspacep`: whether a generic address lies in `space`'s window.
fn isspacep<D: Domain>(l: Lanes<'_, '_, D>, space: &Space, d: &u32, a: &Src) -> Step<()> {
    let Lanes {
        dom,
        regs,
        env,
        active,
        ..
    } = l;
    for lane in lanes(active) {
        let x = rd(dom, regs, *a, lane, env)?;
        let x = concrete(dom, &x, "address")?;
        let r = match classify_generic(x) {
            Some((s, _)) => s == *space,
            None => false,
        };
        regs[*d as usize * 32 + lane] = dom.lit(u64::from(r));
    }
    Ok(())
}
