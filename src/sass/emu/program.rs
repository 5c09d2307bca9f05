//! A cubin prepared for emulation: each kernel's instructions (parsed from nvdisasm's listing of
//! the cubin, see [`super::operand`]), its parameter layout from the `.nv.info.<k>` EIATTR
//! records (`PARAM_CBANK`, `KPARAM_INFO`), its constant banks (`.nv.constantN[.<k>]` sections),
//! its static shared-memory size and its local-memory stack size (`FRAME_SIZE`,
//! `MAX_STACK_SIZE`); and the module's variables (data symbols: a `__constant__` one's bank and
//! offset, which a launch spec's `globals` fill; `__device__` ones placed and relocated by
//! [`super::module_globals`], their immediates substituted into the instructions they patch).
//!
//! RegDem §3 (the emulator is the oracle for a binary rewrite); `sass-and-cubin-format.md` §8
//! (EIATTR records) and §7 (nvdisasm).

use std::collections::HashMap;

use crate::sass::elf::nvinfo::{Attribute, NvInfo};

/// `EIATTR_CTA_PER_CLUSTER`: three words, the cluster shape.
const ATTR_CTA_PER_CLUSTER: u8 = 0x3d;
/// `EIATTR_EXPLICIT_CLUSTER`: a flag.
const ATTR_EXPLICIT_CLUSTER: u8 = 0x3e;
use crate::sass::elf::Cubin;
use crate::sass::isa::word::Control;
use crate::sass::nvdisasm;

use super::module_globals::{is_data, ModuleGlobals};
use super::operand::{self, Opnd, Parsed};
use super::SassEmuError;

/// One kernel parameter (from `EIATTR_KPARAM_INFO`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Param {
    /// Ordinal.
    pub ordinal: u32,
    /// Byte offset in the parameter area.
    pub offset: u32,
    /// Size in bytes.
    pub size: u32,
}

/// One instruction ready to execute.
#[derive(Clone, Debug)]
pub struct Inst {
    /// Byte offset in the code section.
    pub pc: u64,
    /// nvdisasm's text, for messages.
    pub text: String,
    /// The parse, or why the text was not understood.
    pub parsed: Result<Parsed, String>,
    /// The scheduling control bits of the instruction word (stall, yield, scoreboards, wait
    /// mask): what the timing mode (`super::timing`) issues by.
    pub control: Control,
}

/// A kernel.
#[derive(Clone, Debug)]
pub struct Kernel {
    /// Name.
    pub name: String,
    /// Instructions; instruction `i` lies at byte `16 i`.
    pub code: Vec<Inst>,
    /// Parameters in ordinal order.
    pub params: Vec<Param>,
    /// Offset of the parameters in constant bank 0.
    pub param_base: u32,
    /// Size of the parameter area.
    pub param_size: u32,
    /// Constant banks: bank number → initial contents (bank 0 is the kernel's `.nv.constant0.<k>`).
    pub cbanks: HashMap<u8, Vec<u8>>,
    /// Static shared memory in bytes.
    pub shared_static: u64,
    /// Local memory stack per thread in bytes.
    pub local_size: u64,
    /// Highest general register number used (+1).
    pub nregs: u32,
    /// CTAs per cluster the kernel requires (`EIATTR_CTA_PER_CLUSTER`, `.reqnctapercluster`).
    pub cluster: Option<[u32; 3]>,
    /// The kernel is launched with a cluster shape (`EIATTR_EXPLICIT_CLUSTER`, `.explicitcluster`).
    pub explicit_cluster: bool,
}

/// A module-scope variable of the cubin (a data symbol).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ModuleVar {
    /// The variable's name.
    pub name: String,
    /// Where it lives: `Some(bank)` for a `__constant__` variable in `.nv.constant<bank>` (read
    /// as `c[bank][offset]`); `None` for one in another section (`.nv.global`, …), whose address
    /// the code gets through relocations the emulator does not apply.
    pub bank: Option<u8>,
    /// Offset in its section, bytes.
    pub offset: u64,
    /// Size, bytes.
    pub size: u64,
}

/// A cubin's kernels.
#[derive(Clone, Debug)]
pub struct SassProgram {
    /// The SASS architecture (80, 90, …).
    pub sm: u32,
    /// Kernels by name.
    pub kernels: Vec<Kernel>,
    /// Module-scope variables (launch specs' `globals` name them).
    pub vars: Vec<ModuleVar>,
    /// The module's `.global` variables placed in global memory, relocations applied.
    pub globals: ModuleGlobals,
}

impl SassProgram {
    /// Reads a cubin: parses the ELF, lists it with nvdisasm (needed: our decoder does not yet
    /// give operand semantics) and prepares every kernel.
    pub fn from_cubin(bytes: &[u8]) -> Result<SassProgram, SassEmuError> {
        let cubin = Cubin::parse(bytes).map_err(|e| SassEmuError::Cubin(e.to_string()))?;
        let sm = cubin.sm();
        if !matches!(sm, 80 | 86 | 89 | 90) {
            return Err(SassEmuError::Cubin(format!(
                "sm_{sm} cubins are not supported (sm_80, sm_86, sm_89, sm_90)"
            )));
        }
        let listing = nvdisasm::list_bytes(bytes, false).map_err(SassEmuError::Nvdisasm)?;
        let globals = ModuleGlobals::load(&cubin)?;
        let global_info = cubin
            .section(".nv.info")
            .and_then(|s| NvInfo::parse_global(&s.data).ok());
        // Local stack: every function's frame and stack sizes together bound what any call chain
        // of the kernel can use (recursion aside).
        let mut stack_total: u64 = 0;
        if let Some(info) = &global_info {
            for r in &info.records {
                if let Attribute::SymValue { value, .. } = r.value {
                    if matches!(r.attr, 0x11 | 0x12 | 0x23) {
                        stack_total += u64::from(value);
                    }
                }
            }
        }
        let mut kernels = Vec::new();
        for f in cubin.functions() {
            let Some(lf) = listing.iter().find(|l| l.name == f.name) else {
                continue;
            };
            // Kernels only: they have a `.nv.info.<k>` with parameter records or a constant bank.
            let info = cubin
                .section(&format!(".nv.info.{}", f.name))
                .and_then(|s| NvInfo::parse(&s.data).ok());
            let Some(c0) = cubin.section(&format!(".nv.constant0.{}", f.name)) else {
                continue;
            };
            let mut params = Vec::new();
            let mut param_base = None;
            let mut param_size = 0;
            let mut cluster = None;
            let mut explicit_cluster = false;
            if let Some(info) = &info {
                for r in &info.records {
                    match &r.value {
                        Attribute::Words(w) if r.attr == ATTR_CTA_PER_CLUSTER && w.len() == 3 => {
                            cluster = Some([w[0], w[1], w[2]]);
                        }
                        _ if r.attr == ATTR_EXPLICIT_CLUSTER => explicit_cluster = true,
                        Attribute::KParamInfo(k) => params.push(Param {
                            ordinal: u32::from(k.ordinal),
                            offset: u32::from(k.offset),
                            size: k.size(),
                        }),
                        Attribute::ParamCbank { offset, size, .. } => {
                            param_base = Some(u32::from(*offset));
                            param_size = u32::from(*size);
                        }
                        _ => {}
                    }
                }
            }
            params.sort_by_key(|p| p.ordinal);
            let param_base = param_base.unwrap_or(if sm >= 90 { 0x210 } else { 0x160 });
            let mut cbanks = HashMap::new();
            // A constant bank is at most 64 KiB (a corrupt size must not allocate more).
            let mut c0data = c0.data.clone();
            c0data.resize((c0.header.sh_size as usize).min(0x10000), 0);
            cbanks.insert(0u8, c0data);
            for s in &cubin.sections {
                let Some(rest) = s.name.strip_prefix(".nv.constant") else {
                    continue;
                };
                let (num, owner) = match rest.split_once('.') {
                    Some((n, o)) => (n, Some(o)),
                    None => (rest, None),
                };
                let Ok(bank) = num.parse::<u8>() else {
                    continue;
                };
                if bank == 0 || owner.is_some_and(|o| o != f.name) {
                    continue;
                }
                let mut d = s.data.clone();
                d.resize((s.header.sh_size as usize).min(0x10000), 0);
                cbanks.insert(bank, d);
            }
            for p in &globals.bank_patches {
                if let Some(d) = cbanks.get_mut(&p.bank) {
                    let end = (p.offset + p.bytes.len()).min(d.len());
                    if p.offset < end {
                        d[p.offset..end].copy_from_slice(&p.bytes[..end - p.offset]);
                    }
                }
            }
            let text = &cubin.sections[f.text].data;
            let control_at = |off: u64| {
                let b = text.get(off as usize..off as usize + 16)?;
                Some(Control::decode(u128::from_le_bytes(b.try_into().ok()?)))
            };
            let mut code = Vec::new();
            let mut nregs = 0u32;
            for (i, li) in lf.instructions.iter().enumerate() {
                if li.offset != 16 * i as u64 {
                    return Err(SassEmuError::Cubin(format!(
                        "{}: instruction {i} at offset {:#x} (expected 16-byte instructions)",
                        f.name, li.offset
                    )));
                }
                let (text, parsed) = match globals
                    .code
                    .get(&(f.text, li.offset))
                    .map(|v| v.apply(&li.text))
                {
                    None => (li.text.clone(), operand::parse(&li.text, &lf.labels)),
                    Some(Ok(t)) => {
                        let p = operand::parse(&t, &lf.labels);
                        (t, p)
                    }
                    Some(Err(why)) => (li.text.clone(), Err(why)),
                };
                if let Ok(p) = &parsed {
                    for o in &p.ops {
                        let n = match o {
                            Opnd::R { n, .. } if *n != operand::RZ => u32::from(*n) + 4,
                            Opnd::Mem(a) => a.reg.map_or(0, |r| u32::from(r) + 2),
                            _ => 0,
                        };
                        nregs = nregs.max(n);
                    }
                }
                code.push(Inst {
                    pc: li.offset,
                    text,
                    parsed,
                    control: control_at(li.offset).unwrap_or(Control::NONE),
                });
            }
            let has_call = lf.instructions.iter().any(|i| i.base_mnemonic() == "CALL");
            kernels.push(Kernel {
                name: f.name.clone(),
                code,
                params,
                param_base,
                param_size,
                cbanks,
                shared_static: cubin.shared_size(&f.name),
                // Calls may recurse beyond what the frame sizes say: give them 32 KiB more.
                local_size: stack_total.div_ceil(16) * 16 + if has_call { 32 * 1024 } else { 16 },
                nregs: nregs.min(256),
                cluster,
                explicit_cluster,
            });
        }
        let vars = module_vars(&cubin);
        Ok(SassProgram {
            sm,
            kernels,
            vars,
            globals,
        })
    }

    /// The kernel called `name`.
    pub fn kernel(&self, name: &str) -> Option<&Kernel> {
        self.kernels.iter().find(|k| k.name == name)
    }
}

/// The cubin's data symbols ([`is_data`]) with their section: a module-level
/// `.nv.constant<N>` (no kernel suffix) gives the bank.
fn module_vars(cubin: &Cubin) -> Vec<ModuleVar> {
    let Ok(symbols) = cubin.symbols() else {
        return Vec::new();
    };
    symbols
        .iter()
        .filter(|sym| is_data(sym))
        .filter_map(|sym| {
            let section = cubin.sections.get(usize::from(sym.st_shndx))?;
            let bank = section
                .name
                .strip_prefix(".nv.constant")
                .and_then(|n| n.parse::<u8>().ok());
            Some(ModuleVar {
                name: sym.name.clone(),
                bank,
                offset: sym.st_value,
                size: sym.st_size,
            })
        })
        .collect()
}
