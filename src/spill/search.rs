//! The ptxas-driven search over demotion sets (RegDem §3.1, "let the assembler decide"): every
//! candidate set is replayed on the kernel as it was before any demotion, finished, and assembled
//! with `ptxas -v` at the cap; the searches keep the smallest spill area that leaves ptxas without
//! local memory.
//!
//! Phases, in the order [`super::spill_at_target`] runs them after the greedy order:
//! 1. [`shortest_clean_prefix`]: binary search for the shortest prefix of the order that ptxas
//!    compiles without local memory;
//! 2. [`drop_unneeded`]: removals, largest saving first, in groups of consecutive candidates whose
//!    size doubles after two acceptances in a row and halves after a rejection down to one;
//!    rejected ones are retried while ptxas (which is not monotone) accepts some;
//! 3. [`widen_with_cheap`]: add every value that costs no per-thread word and search removals
//!    again, so that per-thread words can go instead; the search stops where the rest of its
//!    pass could no longer lay out below the current area;
//! 4. [`back_within_budget`]: when the order ran past the shared-memory budget and no clean set
//!    was found back within it, the prefix the budget allowed.
//!
//! The removal passes probe up to [`SearchCtx::jobs`] removals at once (each a ptxas process),
//! speculating that the earlier ones in the window are rejected (the group halved, then the
//! entries after it); a window is read in order and cut at its first acceptance, so the result is
//! the one the sequential search gives.

use std::collections::HashMap;
use std::sync::Mutex;

use crate::analysis::divergence::{Class, FunctionDivergence};
use crate::machine::bitset::BitSet;
use crate::ptx::{print_module, FuncKind, Function, Item, Module, Reg};
use crate::tools::KernelResources;

use super::finish::finish;
use super::layout::{Layout, Slot};
use super::peephole;
use super::plan::{pressure_of, rule_for};
use super::rewrite::{rewrite_register, Bases, Rule, Temps};
use super::{select, Demoted};

/// What every probe of one kernel at one cap shares.
pub(super) struct SearchCtx<'a> {
    /// The whole module (other items are kept for ptxas; other kernels are left out).
    pub module: &'a Module,
    /// The kernel's index in `module.items`.
    pub idx: usize,
    /// The kernel before any demotion, with the spill array's name and base registers reserved.
    pub start: Function,
    /// For every register, the program points where it is live (in `start`).
    pub live: Vec<BitSet>,
    /// For every register, the loop depth of its only definition in `start`
    /// ([`super::plan::sole_definition_depths`]; every plan is made on `start`).
    pub sole_def_depth: Vec<Option<u32>>,
    /// Threads per block (the layout's size).
    pub threads: u32,
    /// The spill array and its base registers.
    pub bases: Bases,
    /// The cap written as `.maxnreg`.
    pub max_regs: u32,
    /// ptxas's `-arch`.
    pub arch: &'a str,
    /// Further ptxas options (the caller's: `-O3`, `--fmad=false`, …).
    pub ptxas_args: &'a [String],
    /// Most shared memory the result may use, bytes.
    pub budget: u32,
    /// Registers that may never be demoted ([`select::async_pinned`]).
    pub pinned: Vec<bool>,
    /// ptxas's answers by text, shared by every search of this kernel ([`PtxasMemo`]).
    pub memo: &'a PtxasMemo,
    /// Most probes (ptxas runs) in flight at once in the removal passes; 1 probes one at a time.
    pub jobs: usize,
}

impl SearchCtx<'_> {
    /// Whether register `r` may be demoted at all.
    pub fn demotable(&self, body: &crate::ptx::Body, r: Reg) -> bool {
        !self.pinned.get(r.index()).copied().unwrap_or(false) && select::eligible(body, r)
    }

    /// The register model's prediction of what ptxas needs for the finished kernel `f`, before
    /// its `.maxnreg` ([`crate::analysis::regmodel::RegModel::need`]): the check in place of
    /// `ptxas -v` when ptxas is not run. `None` when the model cannot read the kernel.
    pub fn predict(&self, f: &Function) -> Option<u32> {
        let arch = crate::analysis::occupancy::arch(self.arch).ok()?;
        match crate::analysis::regmodel::model(self.module, f, arch) {
            Ok(m) => Some(m.need),
            Err(why) => {
                log::info!("register model on `{}`: {why}", f.name);
                None
            }
        }
    }
}

/// The demotion set in force and everything derived from it.
pub(super) struct Current {
    /// The demotions, in the order they were applied.
    pub order: Vec<(Reg, Class)>,
    /// The spill area.
    pub layout: Layout,
    /// The report entries.
    pub demoted: Vec<Demoted>,
    /// What the peephole clean-up did.
    pub cleaned: peephole::Cleaned,
    /// ptxas's figures for the finished kernel, when checked.
    pub ptxas: Option<KernelResources>,
    /// The register model's prediction for the finished kernel, when the greedy loop's last
    /// check was on it without ptxas ([`SearchCtx::predict`]; not run twice on one kernel).
    pub predicted: Option<u32>,
    /// Peak pressure of the finished kernel, 32-bit units.
    pub pressure: u32,
}

/// A replayed, finished kernel with its layout, report entries, ptxas figures and clean-up counts.
pub(super) struct Probe {
    pub f: Function,
    pub layout: Layout,
    pub demoted: Vec<Demoted>,
    pub ptxas: KernelResources,
    pub cleaned: peephole::Cleaned,
}

impl Current {
    /// Makes `p` (the set `order`) the set in force, and the kernel `f`.
    pub fn adopt(&mut self, f: &mut Function, p: Probe) {
        *f = p.f;
        self.layout = p.layout;
        self.demoted = p.demoted;
        self.ptxas = Some(p.ptxas);
        self.predicted = None;
        self.cleaned = p.cleaned;
        self.pressure = pressure_of(f.body.as_ref().expect("kernels have bodies"));
    }

    /// Whether ptxas checked the set in force and it needs no local memory.
    pub fn is_clean(&self) -> bool {
        self.ptxas.as_ref().is_some_and(clean)
    }
}

/// Whether ptxas's figures show no local memory (no spill traffic, no stack).
pub(super) fn clean(k: &KernelResources) -> bool {
    k.spill_stores + k.spill_loads + k.stack_frame == 0
}

/// Runs `ptxas -v` on `module` with kernel `idx` replaced by `f` and the other kernels left out
/// (they cannot be called, so ptxas compiles only what matters). `None` when ptxas fails (logged).
pub(super) fn ptxas_check(
    module: &Module,
    idx: usize,
    f: &Function,
    arch: &str,
    ptxas_args: &[String],
) -> Option<KernelResources> {
    assemble(&kernel_alone(module, idx, f), &f.name, arch, ptxas_args).ok()
}

/// The text ptxas checks for version `f` of kernel `idx`: `module` with the kernel replaced and
/// the other kernels left out.
fn kernel_alone(module: &Module, idx: usize, f: &Function) -> String {
    let mut m = module.clone();
    m.items[idx] = Item::Function(f.clone());
    let mut k = 0;
    m.items.retain(|item| {
        let keep = k == idx || !matches!(item, Item::Function(g) if g.kind == FuncKind::Entry);
        k += 1;
        keep
    });
    print_module(&m)
}

/// `ptxas -v` on `text`: the figures of kernel `name`, or why there are none.
fn assemble(
    text: &str,
    name: &str,
    arch: &str,
    ptxas_args: &[String],
) -> Result<KernelResources, String> {
    let args: Vec<&str> = ptxas_args.iter().map(String::as_str).collect();
    match crate::tools::ptxas_verbose_source(text, arch, &args) {
        Ok(v) => v
            .into_iter()
            .find(|k| k.name == name)
            .ok_or_else(|| format!("ptxas -v printed no figures for `{name}`")),
        // ptxas refusing a candidate is one of the search's answers; ptxas missing, or printing
        // what cannot be read, turns the pass off for the kernel, which the user must hear of.
        Err(crate::tools::ToolError::Failed { stderr, .. }) => {
            log::info!("ptxas check of `{name}` failed: {stderr}");
            Err(first_error_line(&stderr))
        }
        Err(e) => {
            log::warn!("ptxas check of `{name}` failed: {e}");
            Err(e.to_string())
        }
    }
}

/// ptxas's answers for the versions of one kernel assembled so far, by their text, with one
/// architecture and one set of options: the search at each register cap starts from the same
/// kernel, so the caps' searches (and a cap searched twice, [`super::caps`]) assemble many of
/// the same texts. ptxas is deterministic; the text is told apart by its length and two
/// independent 64-bit hashes.
#[derive(Default)]
pub(super) struct PtxasMemo {
    answers: Mutex<HashMap<TextKey, Result<KernelResources, String>>>,
}

/// A text's length and two hashes of it (SipHash with its fixed keys, after a different byte).
type TextKey = (usize, u64, u64);

fn text_key(text: &str) -> TextKey {
    use std::hash::{DefaultHasher, Hash, Hasher};
    let hash = |salt: u8| {
        let mut h = DefaultHasher::new();
        salt.hash(&mut h);
        text.hash(&mut h);
        h.finish()
    };
    (text.len(), hash(0), hash(1))
}

impl PtxasMemo {
    /// [`ptxas_check`], with why it failed (ptxas's first error line, `Insufficient registers
    /// (56) to compile instruction …` for a `wgmma` that needs more than the cap, or the tool
    /// error), assembling each text once.
    pub fn check_why(
        &self,
        module: &Module,
        idx: usize,
        f: &Function,
        arch: &str,
        ptxas_args: &[String],
    ) -> Result<KernelResources, String> {
        let text = kernel_alone(module, idx, f);
        let key = text_key(&text);
        if let Some(answer) = self.answers().get(&key) {
            return answer.clone();
        }
        let answer = assemble(&text, &f.name, arch, ptxas_args);
        self.answers().insert(key, answer.clone());
        answer
    }

    /// The answers (a check that panicked while holding them left nothing half-written: an
    /// answer is inserted whole or not at all).
    fn answers(
        &self,
    ) -> std::sync::MutexGuard<'_, HashMap<TextKey, Result<KernelResources, String>>> {
        self.answers.lock().unwrap_or_else(|e| e.into_inner())
    }
}

/// The first `error`/`fatal` line of ptxas's output, without its `ptxas fatal   :` prefix
/// ([`crate::tools::ptxas::first_error`]); else its first line.
fn first_error_line(stderr: &str) -> String {
    use crate::tools::ptxas::{first_error, without_prefix};
    first_error(stderr)
        .or_else(|| {
            stderr
                .lines()
                .find(|l| !l.trim().is_empty())
                .map(without_prefix)
        })
        .unwrap_or("no message")
        .to_string()
}

impl SearchCtx<'_> {
    /// [`ptxas_check`] of a version of this kernel (through [`SearchCtx::memo`]).
    pub fn check(&self, f: &Function) -> Option<KernelResources> {
        self.memo
            .check_why(self.module, self.idx, f, self.arch, self.ptxas_args)
            .ok()
    }

    /// The set `order` replayed on `start` and finished, with ptxas's figures (assembled once
    /// per text: an order the removal passes come back to replays to the same PTX, which
    /// [`SearchCtx::memo`] has seen).
    fn probe(&self, order: &[(Reg, Class)]) -> (Option<KernelResources>, Probe) {
        let (mut f, layout, demoted) = self.replay(order);
        let cleaned = finish(&mut f, &layout, &self.bases, &demoted, self.max_regs);
        let k = self.check(&f);
        (
            k.clone(),
            Probe {
                f,
                layout,
                demoted,
                ptxas: k.unwrap_or_default(),
                cleaned,
            },
        )
    }

    /// [`SearchCtx::probe`] of each order, at most [`SearchCtx::jobs`] at once; results in the
    /// orders' order.
    fn probe_each(&self, orders: &[&[(Reg, Class)]]) -> Vec<(Option<KernelResources>, Probe)> {
        if self.jobs <= 1 || orders.len() <= 1 {
            return orders.iter().map(|o| self.probe(o)).collect();
        }
        orders
            .chunks(self.jobs)
            .flat_map(|chunk| {
                std::thread::scope(|s| {
                    let running: Vec<_> = chunk
                        .iter()
                        .map(|&o| s.spawn(move || self.probe(o)))
                        .collect();
                    running
                        .into_iter()
                        .map(|h| h.join().unwrap_or_else(|e| std::panic::resume_unwind(e)))
                        .collect::<Vec<_>>()
                })
            })
            .collect()
    }

    /// Applies the demotions of `order` to a copy of `start`, exactly as the greedy loop did.
    pub fn replay(&self, order: &[(Reg, Class)]) -> (Function, Layout, Vec<Demoted>) {
        let (layout, rules) = self.plan(order);
        let mut f = self.start.clone();
        let mut temps = Temps::default();
        let body = f.body.as_mut().expect("kernels have bodies");
        let demoted = order
            .iter()
            .zip(rules)
            .map(|(&(r, class), rule)| {
                let (loads, stores) =
                    rewrite_register(body, r, rule, &layout, &self.bases, &mut temps);
                Demoted {
                    reg: body.reg_name(r).to_string(),
                    class: class.name().to_string(),
                    rule: rule.name().to_string(),
                    loads,
                    stores,
                }
            })
            .collect();
        (f, layout, demoted)
    }

    /// The spill area's size for the demotions `order`, without rewriting anything.
    pub fn layout_of(&self, order: &[(Reg, Class)]) -> u64 {
        self.plan(order).0.bytes()
    }

    /// Each demotion of `demotions` planned alone on `start`: its rule and its own area in bytes
    /// (its words in its region, ignoring sharing).
    fn alone(&self, demotions: &[(Reg, Class)]) -> Vec<(Rule, u64)> {
        let body = self.start.body.as_ref().expect("kernels have bodies");
        demotions
            .iter()
            .map(|&(r, class)| {
                let mut scratch = Layout::new(self.threads);
                let rule = rule_for(
                    body,
                    r,
                    class,
                    self.sole_def_depth[r.index()],
                    &mut scratch,
                    &self.live[r.index()],
                );
                (rule, scratch.bytes())
            })
            .collect()
    }

    /// The rule of each demotion of `order` and the layout they fill, in order. A register's rule
    /// depends only on its own definitions and liveness in `start`, which rewriting the others
    /// does not change, so the plan made on `start` is the one the rewrites follow.
    fn plan(&self, order: &[(Reg, Class)]) -> (Layout, Vec<Rule>) {
        let body = self.start.body.as_ref().expect("kernels have bodies");
        let mut layout = Layout::new(self.threads);
        let rules = order
            .iter()
            .map(|&(r, class)| {
                rule_for(
                    body,
                    r,
                    class,
                    self.sole_def_depth[r.index()],
                    &mut layout,
                    &self.live[r.index()],
                )
            })
            .collect();
        (layout, rules)
    }
}

/// Phase 1: the greedy loop tightens in steps and ptxas often needs less. Finds the shortest
/// prefix of the order that still leaves ptxas without local memory (binary search, each probe
/// a replay and one ptxas run) and adopts it: less shared memory, fewer accesses.
pub(super) fn shortest_clean_prefix(sx: &SearchCtx, f: &mut Function, cur: &mut Current) {
    if cur.order.len() <= 1 || !cur.is_clean() {
        return;
    }
    let (mut lo, mut hi) = (0usize, cur.order.len());
    let mut best: Option<Probe> = None;
    while hi - lo > 1 {
        let mid = (lo + hi) / 2;
        match sx.probe(&cur.order[..mid]) {
            (Some(k), p) if clean(&k) => {
                hi = mid;
                best = Some(p);
            }
            _ => lo = mid,
        }
    }
    if let Some(p) = best {
        let len = p.demoted.len();
        cur.adopt(f, p);
        cur.order.truncate(len);
    }
}

/// Phase 2: a prefix of the cost order still holds values ptxas did not need moved. Drops each
/// one whose removal shrinks the area and leaves ptxas without local memory.
pub(super) fn drop_unneeded(sx: &SearchCtx, f: &mut Function, cur: &mut Current) {
    if cur.order.len() <= 1 || !cur.is_clean() {
        return;
    }
    if let Some(p) = minimise(sx, &mut cur.order, None) {
        cur.adopt(f, p);
    }
}

/// Removes from `order` every demotion whose removal makes the spill area smaller while ptxas
/// still needs no local memory, trying the largest areas first; rejected removals are retried
/// while a pass still removes something (ptxas is not monotone), at most three passes. Returns
/// the last accepted probe (None when nothing could be removed).
///
/// Removals are tried in groups of consecutive queue entries whose size gallops ([`Gallop`]): it
/// doubles once two groups in a row were accepted and halves after a rejected one, down to
/// single removals. Where runs of the queue are not needed (Liger's GEGLU backward on sm_80:
/// dozens of 64-bit addresses) a run of `k` removals costs about `2·log k` probes instead of
/// `k`; where most are needed, one probe per entry as with single removals, plus about `log k`
/// after each accepted run.
///
/// With `beat`, a result is of use only when its area is below that many bytes: the search
/// stops where even removing every entry left ahead in the queue would not get there.
fn minimise(sx: &SearchCtx, order: &mut Vec<(Reg, Class)>, beat: Option<u64>) -> Option<Probe> {
    let queue = removal_queue(sx, order);
    let mut accepted = None;
    let mut current = sx.layout_of(order);
    for _pass in 0..3 {
        let before = order.len();
        let mut at = Gallop::START;
        while at.next < queue.len() {
            if !still_of_use(sx, order, &queue, at, beat) {
                return accepted;
            }
            let window = removal_window(sx, order, current, &queue, &mut at, beat);
            let sets: Vec<&[(Reg, Class)]> = window.iter().map(|w| w.rest.as_slice()).collect();
            let probes = sx.probe_each(&sets);
            // The first acceptance ends the window: the removals after it were probed on a set
            // that no longer holds, and are tried again from it.
            if let Some((w, p)) = window
                .into_iter()
                .zip(probes)
                .find_map(|(w, (k, p))| k.as_ref().is_some_and(clean).then_some((w, p)))
            {
                log::debug!(
                    "spill `{}`: {} not needed (-{} B)",
                    sx.start.name,
                    w.regs
                        .iter()
                        .map(|&r| sx.start.body.as_ref().map_or("?", |b| b.reg_name(r)))
                        .collect::<Vec<_>>()
                        .join(", "),
                    current - w.bytes
                );
                *order = w.rest;
                current = w.bytes;
                accepted = Some(p);
                at = w.tried_at.accepted(w.regs.len(), w.resume);
            }
        }
        if order.len() == before {
            break;
        }
    }
    accepted
}

/// The demotions of `order` that take room in the spill area, largest area first (each alone:
/// its rule's words in its region, ignoring sharing), the order in which [`minimise`] tries
/// removing them. Rematerialised values cost none and stay.
fn removal_queue(sx: &SearchCtx, order: &[(Reg, Class)]) -> Vec<(u64, Reg)> {
    let mut queue: Vec<(u64, Reg)> = order
        .iter()
        .zip(sx.alone(order))
        .map(|(&(r, _), (_, bytes))| (bytes, r))
        .filter(|&(b, _)| b > 0)
        .collect();
    queue.sort_by(|a, b| b.0.cmp(&a.0).then(a.1.index().cmp(&b.1.index())));
    queue
}

/// Where [`minimise`] stands in its queue: the next entry, the size of the group it tries
/// there, and how many groups in a row were accepted.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Gallop {
    next: usize,
    size: usize,
    streak: u32,
}

impl Gallop {
    const START: Gallop = Gallop {
        next: 0,
        size: 1,
        streak: 0,
    };

    /// Where the search goes on when the group tried here, `len` entries ending before queue
    /// index `resume`, is accepted: the next entries, twice as many once two groups in a row
    /// were accepted (a lone acceptance among rejections, the common case, costs no probe of a
    /// pair that would fail).
    fn accepted(self, len: usize, resume: usize) -> Gallop {
        let streak = self.streak + 1;
        Gallop {
            next: resume,
            size: if streak >= 2 { len * 2 } else { len },
            streak,
        }
    }

    /// Where the search goes on when the group tried here, `len` entries ending before queue
    /// index `resume`, is rejected: the first half of the group, or past a single entry (or an
    /// empty group) to the next one.
    fn rejected(self, len: usize, resume: usize) -> Gallop {
        if self.size > 1 && len > 1 {
            Gallop {
                size: (self.size / 2).min(len - 1),
                streak: 0,
                ..self
            }
        } else {
            Gallop {
                next: resume,
                size: 1,
                streak: 0,
            }
        }
    }
}

/// One removal [`minimise`] probes: `order` without `regs`.
struct Removal {
    regs: Vec<Reg>,
    rest: Vec<(Reg, Class)>,
    /// The spill area without them.
    bytes: u64,
    /// Where the queue goes on when it is accepted.
    resume: usize,
    /// The search's state when it was tried.
    tried_at: Gallop,
}

/// The next [`SearchCtx::jobs`] removals [`minimise`] would probe from `*at` if each were
/// rejected (`*at` advanced past them): the group of `at.size` entries still in `order`, then
/// half as many, down to one entry, then the following entries one at a time. A group that
/// does not make the area smaller than `current` is passed over unprobed (with shared words, a
/// removal may free nothing).
fn removal_window(
    sx: &SearchCtx,
    order: &[(Reg, Class)],
    current: u64,
    queue: &[(u64, Reg)],
    at: &mut Gallop,
    beat: Option<u64>,
) -> Vec<Removal> {
    let mut window = Vec::new();
    while at.next < queue.len()
        && window.len() < sx.jobs.max(1)
        && still_of_use(sx, order, queue, *at, beat)
    {
        let tried_at = *at;
        let (regs, resume) = group_at(order, queue, tried_at);
        *at = tried_at.rejected(regs.len(), resume);
        if regs.is_empty() {
            continue;
        }
        let rest: Vec<(Reg, Class)> = order
            .iter()
            .filter(|(r, _)| !regs.contains(r))
            .copied()
            .collect();
        let bytes = sx.layout_of(&rest);
        if bytes < current {
            window.push(Removal {
                regs,
                rest,
                bytes,
                resume,
                tried_at,
            });
        }
    }
    window
}

/// Whether [`minimise`] may still find a result of use from `at`: always without `beat`; with
/// it, while `order` without every queue entry from `at` on (the most this pass can remove)
/// lays out in fewer than `beat` bytes. A bound, not a proof: warp and block words are never
/// shared, so their area only falls as demotions go, but per-thread words are packed first-fit,
/// and a subset could in principle pack into more of them; a later pass could also have retried
/// a removal rejected before `at`.
fn still_of_use(
    sx: &SearchCtx,
    order: &[(Reg, Class)],
    queue: &[(u64, Reg)],
    at: Gallop,
    beat: Option<u64>,
) -> bool {
    beat.is_none_or(|beat| sx.layout_of(&fewest_left(order, queue, at)) < beat)
}

/// `order` without every queue entry from `at` on: the fewest demotions the rest of a pass of
/// [`minimise`] can leave.
fn fewest_left(order: &[(Reg, Class)], queue: &[(u64, Reg)], at: Gallop) -> Vec<(Reg, Class)> {
    let ahead = &queue[at.next.min(queue.len())..];
    order
        .iter()
        .filter(|&&(r, _)| !ahead.iter().any(|&(_, x)| x == r))
        .copied()
        .collect()
}

/// The first `at.size` entries of `queue` from `at.next` that are still in `order`, and the
/// queue index after the last of them (after the whole queue's end when fewer are left).
fn group_at(order: &[(Reg, Class)], queue: &[(u64, Reg)], at: Gallop) -> (Vec<Reg>, usize) {
    let mut regs = Vec::new();
    let mut i = at.next;
    while i < queue.len() && regs.len() < at.size.max(1) {
        let r = queue[i].1;
        i += 1;
        if order.iter().any(|&(x, _)| x == r) {
            regs.push(r);
        }
    }
    (regs, i)
}

/// Phase 3: values that cost a warp or block word or none (constants, lane-affine values, uniform
/// and affine values with one definition) and are live where the pressure exceeds the cap: add
/// them all and search removals again, so that per-thread words can go instead; adopt the result
/// when its area is smaller.
pub(super) fn widen_with_cheap(
    sx: &SearchCtx,
    f: &mut Function,
    cur: &mut Current,
    div: &FunctionDivergence,
    original_regs: usize,
) {
    if !cur.is_clean() || cur.layout.bytes() == 0 {
        return;
    }
    let extra = cheap_candidates(sx, &cur.order, div, original_regs);
    if extra.is_empty() {
        return;
    }
    let mut wider = cur.order.clone();
    wider.extend(extra);
    let (k, mut best) = sx.probe(&wider);
    if !k.as_ref().is_some_and(clean) {
        return;
    }
    if let Some(p) = minimise(sx, &mut wider, Some(cur.layout.bytes())) {
        best = p;
    }
    if best.layout.bytes() < cur.layout.bytes() {
        cur.order = wider;
        cur.adopt(f, best);
    }
}

/// Registers not in `order` whose rule costs no per-thread word and that are live at a program
/// point where the pressure (of the original kernel) exceeds the cap.
fn cheap_candidates(
    sx: &SearchCtx,
    order: &[(Reg, Class)],
    div: &FunctionDivergence,
    original_regs: usize,
) -> Vec<(Reg, Class)> {
    use crate::machine::pressure::{reg_class, RegClass};
    let body = sx.start.body.as_ref().expect("kernels have bodies");
    let n_points = sx.live.first().map_or(0, BitSet::capacity);
    let mut pressure = vec![0u32; n_points];
    for (r, set) in sx.live.iter().enumerate().take(original_regs) {
        if let RegClass::General(u) = reg_class(body.reg(Reg::new(r)).ty) {
            for p in set.iter() {
                pressure[p] += u;
            }
        }
    }
    let live_over_cap: Vec<(Reg, Class)> = (0..original_regs)
        .map(Reg::new)
        .filter(|&r| {
            sx.demotable(body, r)
                && !order.iter().any(|&(x, _)| x == r)
                && sx.live[r.index()].iter().any(|p| pressure[p] > sx.max_regs)
        })
        .map(|r| (r, div.class(r)))
        .collect();
    let rules = sx.alone(&live_over_cap);
    live_over_cap
        .into_iter()
        .zip(rules)
        .filter(|(_, (rule, _))| !matches!(rule, Rule::Slot(Slot::Thread(_))))
        .map(|(d, _)| d)
        .collect()
}

/// Where the budget first stopped the greedy order: its length then, how many `not_demoted`
/// entries existed then, and why it stopped.
pub(super) struct BudgetStop {
    pub len: usize,
    pub kept: usize,
    pub why: String,
}

/// Phase 4: when the set in force is past the budget (the order ran past it and no clean set was
/// found back within it), replays the prefix the budget allowed. Returns a note for the report.
pub(super) fn back_within_budget(
    sx: &SearchCtx,
    f: &mut Function,
    cur: &mut Current,
    greedy_order: &[(Reg, Class)],
    stop: Option<BudgetStop>,
    use_ptxas: bool,
    not_demoted: &mut Vec<String>,
) -> Option<String> {
    let budget = sx.budget;
    if cur.layout.bytes() <= u64::from(budget) {
        let s = stop.filter(|s| use_ptxas && greedy_order.len() > s.len && cur.is_clean())?;
        return Some(format!(
            "the demotion order ran past the budget of {budget} B after {} demotions; the removal searches brought a set ptxas compiles without local memory back to {} B",
            s.len,
            cur.layout.bytes()
        ));
    }
    let s = stop?;
    let (mut g, layout, demoted) = sx.replay(&greedy_order[..s.len]);
    cur.cleaned = finish(&mut g, &layout, &sx.bases, &demoted, sx.max_regs);
    cur.ptxas = if use_ptxas { sx.check(&g) } else { None };
    cur.predicted = None;
    *f = g;
    cur.order = greedy_order[..s.len].to_vec();
    cur.layout = layout;
    cur.demoted = demoted;
    cur.pressure = pressure_of(f.body.as_ref().expect("kernels have bodies"));
    not_demoted.truncate(s.kept);
    not_demoted.push(s.why);
    Some(format!(
        "searching past the budget ({} demotions) found no set that ptxas compiles without local memory within {budget} B",
        greedy_order.len()
    ))
}

#[cfg(test)]
mod tests {
    use super::{fewest_left, first_error_line, group_at, Class, Gallop, Reg};

    #[test]
    fn a_rejected_group_halves_and_a_rejected_entry_is_passed() {
        let g = |next, size, streak| Gallop { next, size, streak };
        let at = g(3, 8, 2);
        assert_eq!(at.rejected(8, 11), g(3, 4, 0));
        // Only three entries were left: the next try is two of them.
        assert_eq!(at.rejected(3, 20), g(3, 2, 0));
        assert_eq!(g(3, 1, 1).rejected(1, 5), g(5, 1, 0));
        assert_eq!(at.rejected(0, 20), g(20, 1, 0));
    }

    #[test]
    fn groups_grow_after_two_acceptances_in_a_row() {
        let first = Gallop::START.accepted(1, 4);
        assert_eq!(
            first,
            Gallop {
                next: 4,
                size: 1,
                streak: 1
            }
        );
        let second = first.accepted(1, 5);
        assert_eq!(
            second,
            Gallop {
                next: 5,
                size: 2,
                streak: 2
            }
        );
        assert_eq!(second.accepted(2, 7).size, 4);
        // A rejection ends the run: the next acceptance does not grow the group.
        assert_eq!(second.rejected(2, 7).accepted(1, 6).size, 1);
    }

    #[test]
    fn a_group_skips_entries_already_removed() {
        let class = Class::Divergent;
        let order: Vec<(Reg, Class)> = [1, 3, 4, 6].iter().map(|&r| (Reg(r), class)).collect();
        let queue: Vec<(u64, Reg)> = (0..8).map(|r| (64, Reg(r))).collect();
        let (regs, resume) = group_at(
            &order,
            &queue,
            Gallop {
                size: 2,
                next: 1,
                ..Gallop::START
            },
        );
        assert_eq!((regs, resume), (vec![Reg(1), Reg(3)], 4));
        let (regs, resume) = group_at(
            &order,
            &queue,
            Gallop {
                size: 4,
                next: 5,
                ..Gallop::START
            },
        );
        assert_eq!((regs, resume), (vec![Reg(6)], 8));
    }

    #[test]
    fn ptxas_refusals_are_quoted_without_the_prefix() {
        let wgmma =
            "ptxas fatal   : (C7602) Insufficient registers (56) to compile instruction at \
                     line 389 in function k. Try to compile with register target of 58 or higher.\n\
                     ptxas fatal   : Ptx assembly aborted due to errors\n";
        assert_eq!(
            first_error_line(wgmma),
            "(C7602) Insufficient registers (56) to compile instruction at line 389 in function k. \
             Try to compile with register target of 58 or higher."
        );
        let syntax = "ptxas info : x\nptxas /tmp/a.ptx, line 7; error   : Unknown symbol 'y'\n";
        assert_eq!(first_error_line(syntax), "Unknown symbol 'y'");
        assert_eq!(first_error_line(""), "no message");
    }

    #[test]
    fn the_fewest_left_keeps_entries_behind_and_values_not_queued() {
        let d = Class::Divergent;
        let order: Vec<(Reg, Class)> = (0..5).map(|i| (Reg::new(i), d)).collect();
        // Register 4 costs no area (rematerialised) and is not queued.
        let queue: Vec<(u64, Reg)> = [3, 0, 2, 1].map(|i| (64, Reg::new(i))).to_vec();
        let at = |next| Gallop {
            next,
            size: 1,
            streak: 0,
        };
        let regs = |v: Vec<(Reg, Class)>| v.iter().map(|(r, _)| r.index()).collect::<Vec<_>>();
        assert_eq!(regs(fewest_left(&order, &queue, at(0))), [4]);
        assert_eq!(regs(fewest_left(&order, &queue, at(2))), [0, 3, 4]);
        assert_eq!(regs(fewest_left(&order, &queue, at(4))), [0, 1, 2, 3, 4]);
    }
}
