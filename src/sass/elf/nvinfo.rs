//! `.nv.info` and `.nv.info.<kernel>`: the EIATTR attribute records, parsed into typed values
//! and serialised back byte for byte.
//!
//! Reference: `sass-and-cubin-format.md` §8.3 (record format: `u8 format, u8 attribute`, then
//! NVAL = 2 padding bytes, BVAL = byte + pad, HVAL = u16, SVAL = u16 length + payload), §8.4 (the
//! EIATTR codes, which ones hold instruction offsets, register numbers and resources).
//!
//! Every record keeps its format byte and attribute code, so a record whose payload does not
//! have the expected shape is kept as [`Attribute::Raw`], and bytes after an unknown format are
//! kept as [`NvInfo::tail`]: `NvInfo::parse(b)?.to_bytes() == b` for every input that parses.

use super::bytes::{push_u16, push_u32, u16_at, u32_at};
use super::ElfError;

/// EIATTR format: no value.
pub const EIFMT_NVAL: u8 = 1;
/// EIATTR format: one byte.
pub const EIFMT_BVAL: u8 = 2;
/// EIATTR format: one 16-bit half word.
pub const EIFMT_HVAL: u8 = 3;
/// EIATTR format: a sized payload.
pub const EIFMT_SVAL: u8 = 4;

/// EIATTR codes with names (§8.4; denvdis `ei_attrs.txt`).
pub const EIATTR_NAMES: &[(u8, &str)] = &[
    (0x01, "PAD"),
    (0x02, "IMAGE_SLOT"),
    (0x03, "JUMPTABLE_RELOCS"),
    (0x04, "CTAIDZ_USED"),
    (0x05, "MAX_THREADS"),
    (0x06, "IMAGE_OFFSET"),
    (0x07, "IMAGE_SIZE"),
    (0x08, "TEXTURE_NORMALIZED"),
    (0x09, "SAMPLER_INIT"),
    (0x0a, "PARAM_CBANK"),
    (0x0b, "SMEM_PARAM_OFFSETS"),
    (0x0c, "CBANK_PARAM_OFFSETS"),
    (0x0d, "SYNC_STACK"),
    (0x0e, "TEXID_SAMPID_MAP"),
    (0x0f, "EXTERNS"),
    (0x10, "REQNTID"),
    (0x11, "FRAME_SIZE"),
    (0x12, "MIN_STACK_SIZE"),
    (0x13, "SAMPLER_FORCE_UNNORM"),
    (0x14, "BINDLESS_IMAGE_OFFSETS"),
    (0x15, "BINDLESS_TEXTURE_BANK"),
    (0x16, "BINDLESS_SURFACE_BANK"),
    (0x17, "KPARAM_INFO"),
    (0x18, "SMEM_PARAM_SIZE"),
    (0x19, "CBANK_PARAM_SIZE"),
    (0x1a, "QUERY_NUMATTRIB"),
    (0x1b, "MAXREG_COUNT"),
    (0x1c, "EXIT_INSTR_OFFSETS"),
    (0x1d, "S2RCTAID_INSTR_OFFSETS"),
    (0x1e, "CRS_STACK_SIZE"),
    (0x1f, "NEED_CNP_WRAPPER"),
    (0x20, "NEED_CNP_PATCH"),
    (0x21, "EXPLICIT_CACHING"),
    (0x22, "ISTYPEP_USED"),
    (0x23, "MAX_STACK_SIZE"),
    (0x24, "SUQ_USED"),
    (0x25, "LD_CACHEMOD_INSTR_OFFSETS"),
    (0x26, "LOAD_CACHE_REQUEST"),
    (0x27, "ATOM_SYS_INSTR_OFFSETS"),
    (0x28, "COOP_GROUP_INSTR_OFFSETS"),
    (0x29, "COOP_GROUP_MASK_REGIDS"),
    (0x2a, "SW1850030_WAR"),
    (0x2b, "WMMA_USED"),
    (0x2c, "HAS_PRE_V10_OBJECT"),
    (0x2d, "ATOMF16_EMUL_INSTR_OFFSETS"),
    (0x2e, "ATOM16_EMUL_INSTR_REG_MAP"),
    (0x2f, "REGCOUNT"),
    (0x30, "SW2393858_WAR"),
    (0x31, "INT_WARP_WIDE_INSTR_OFFSETS"),
    (0x32, "SHARED_SCRATCH"),
    (0x33, "STATISTICS"),
    (0x34, "INDIRECT_BRANCH_TARGETS"),
    (0x35, "SW2861232_WAR"),
    (0x36, "SW_WAR"),
    (0x37, "CUDA_API_VERSION"),
    (0x38, "NUM_MBARRIERS"),
    (0x39, "MBARRIER_INSTR_OFFSETS"),
    (0x3a, "COROUTINE_RESUME_ID_OFFSETS"),
    (0x3b, "SAM_REGION_STACK_SIZE"),
    (0x3c, "PER_REG_TARGET_PERF_STATS"),
    (0x3d, "CTA_PER_CLUSTER"),
    (0x3e, "EXPLICIT_CLUSTER"),
    (0x3f, "MAX_CLUSTER_RANK"),
    (0x40, "INSTR_REG_MAP"),
    (0x41, "RESERVED_SMEM_USED"),
    (0x42, "RESERVED_SMEM_0_SIZE"),
    (0x43, "UCODE_SECTION_DATA"),
    (0x44, "UNUSED_LOAD_BYTE_OFFSET"),
    (0x45, "KPARAM_INFO_V2"),
    (0x46, "SYSCALL_OFFSETS"),
    (0x47, "SW_WAR_MEMBAR_SYS_INSTR_OFFSETS"),
    (0x48, "GRAPHICS_GLOBAL_CBANK"),
    (0x49, "SHADER_TYPE"),
    (0x4a, "VRC_CTA_INIT_COUNT"),
    (0x4b, "TOOLS_PATCH_FUNC"),
    (0x4c, "NUM_BARRIERS"),
    (0x4d, "TEXMODE_INDEPENDENT"),
    (0x4e, "PERF_STATISTICS"),
    (0x4f, "AT_ENTRY_FRAGMENTS"),
    (0x50, "SPARSE_MMA_MASK"),
    (0x51, "TCGEN05_1CTA_USED"),
    (0x52, "TCGEN05_2CTA_USED"),
    (0x53, "GEN_ERRBAR_AT_EXIT"),
    (0x54, "REG_RECONFIG"),
    (0x55, "ANNOTATIONS"),
    (0x57, "STACK_CANARY_TRAP_OFFSETS"),
    (0x58, "STUB_FUNCTION_KIND"),
    (0x59, "LOCAL_CTA_ASYNC_STORE_OFFSETS"),
    (0x5a, "MERCURY_FINALIZER_OPTIONS"),
    (0x5b, "BLOCKS_ARE_CLUSTERS"),
    (0x5c, "SANITIZE"),
    (0x5d, "SYSCALLS_FALLBACK"),
    (0x5e, "CUDA_REQ"),
    (0x5f, "MERCURY_ISA_VERSION"),
    (0x60, "EXPORTED_FUNCTION"),
    (0x61, "RTCORE_ENTRY"),
    (0x62, "CLUSTER_LAUNCH_CONTROL_USED"),
    (0x63, "LAUNCH_PRE_REG_ALLOC"),
    (0x64, "MIN_PER_CTA_MEMORY_SIZE"),
    (0x65, "IGNOREOOB_CP_ASYNC_BULK_INSTR_OFFSETS"),
    (0x66, "LANGUAGE"),
    (0x67, "WAR5829587_NEEDED"),
    (0x68, "GRID_ATTRIBUTES"),
    (0x69, "STACK_OFFSET"),
    (0x6a, "RT_LIVESTATE_SASS_MAP"),
    (0x6b, "NVSAL_SW_WAR"),
    (0x6c, "INSTR_OFFSETS"),
    (0x6d, "PREEXIT_USED"),
];

/// Attribute code: `EIATTR_REGCOUNT`.
pub const EIATTR_REGCOUNT: u8 = 0x2f;
/// Attribute code: `EIATTR_MAXREG_COUNT`.
pub const EIATTR_MAXREG_COUNT: u8 = 0x1b;
/// Attribute code: `EIATTR_EXIT_INSTR_OFFSETS`.
pub const EIATTR_EXIT_INSTR_OFFSETS: u8 = 0x1c;
/// Attribute code: `EIATTR_INDIRECT_BRANCH_TARGETS`.
pub const EIATTR_INDIRECT_BRANCH_TARGETS: u8 = 0x34;
/// Attribute code: `EIATTR_COROUTINE_RESUME_ID_OFFSETS`.
pub const EIATTR_COROUTINE_RESUME_ID_OFFSETS: u8 = 0x3a;
/// Attribute code: `EIATTR_REG_RECONFIG` (setmaxnreg; kernels the demoter must leave alone).
pub const EIATTR_REG_RECONFIG: u8 = 0x54;

/// Attributes whose SVAL payload is a list of instruction byte offsets (§8.4).
pub const INSTR_OFFSET_ATTRS: &[u8] = &[
    0x1c, 0x1d, 0x25, 0x27, 0x28, 0x2d, 0x31, 0x46, 0x47, 0x57, 0x59, 0x65, 0x6c,
];

/// Attributes whose SVAL payload is a list of fixed-size records, each an instruction byte
/// offset followed by words we keep as read, with the record's size in words. §8.4 lists both
/// as plain offset lists; ptxas 12.8 writes records (read from its cubins, Dec 2026):
/// - `MBARRIER_INSTR_OFFSETS` (0x39): `{offset, 0xff, shared-memory immediate, kind}` for each
///   `SYNCS` instruction on an mbarrier (`SYNCS.EXCH.64 URZ, [UR7+0x24000]` has `0x24000`;
///   kind `0x7010x`/`0x9010a`: exchange, invalidate, try-wait);
/// - `UNUSED_LOAD_BYTE_OFFSET` (0x44): `{offset, byte mask}` for a load part of whose bytes are
///   never read (`LDS.128` with mask `0xfff`).
pub const INSTR_RECORD_ATTRS: &[(u8, usize)] = &[(0x39, 4), (0x44, 2)];

/// The record size in words of an [`INSTR_RECORD_ATTRS`] attribute.
fn instr_record_words(attr: u8) -> Option<usize> {
    INSTR_RECORD_ATTRS
        .iter()
        .find(|(a, _)| *a == attr)
        .map(|(_, n)| *n)
}

/// Attribute code: `EIATTR_ANNOTATIONS` ((kind, instruction offset) pairs, e.g. kind 1 =
/// "SpillRefill" as nvdisasm prints it).
pub const EIATTR_ANNOTATIONS: u8 = 0x55;

/// Attributes that contain instruction offsets in a layout we do not decode; a cubin with one of
/// these cannot be edited safely.
pub const OPAQUE_OFFSET_ATTRS: &[u8] = &[0x03, 0x2e, 0x40, 0x4f, 0x6a];

/// Attributes that contain register numbers (§8.4): renumbering registers must rewrite them.
pub const REGISTER_ATTRS: &[u8] = &[0x29, 0x2e, 0x40];

/// The name of an EIATTR code (`EIATTR_` omitted), or `None` when unknown.
pub fn attr_name(code: u8) -> Option<&'static str> {
    EIATTR_NAMES
        .iter()
        .find(|(c, _)| *c == code)
        .map(|(_, n)| *n)
}

/// One indirect branch and its possible targets (`EIATTR_INDIRECT_BRANCH_TARGETS`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct IndirectBranch {
    /// Byte offset of the BRX/JMX instruction.
    pub branch: u32,
    /// Two 16-bit fields of unknown meaning, kept as read.
    pub unknown: [u16; 2],
    /// Byte offsets of the targets.
    pub targets: Vec<u32>,
}

/// One record of an [`INSTR_RECORD_ATTRS`] attribute.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct InstrRecord {
    /// Byte offset of the instruction the record describes.
    pub offset: u32,
    /// The record's other words, kept as read.
    pub rest: Vec<u32>,
}

/// One kernel-parameter description (`EIATTR_KPARAM_INFO`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct KParamInfo {
    /// Parameter index word (0 in practice).
    pub index: u32,
    /// Parameter ordinal.
    pub ordinal: u16,
    /// Byte offset in the parameter area.
    pub offset: u16,
    /// Flags: bits [12:16] constant bank, bits [18:31] size in bytes (`(flags >> 16) >> 2`
    /// in 4-byte units per §8.3; see [`KParamInfo::size`]).
    pub flags: u32,
}

impl KParamInfo {
    /// The parameter's size in bytes.
    pub fn size(&self) -> u32 {
        self.flags >> 18
    }
    /// The constant bank field.
    pub fn cbank(&self) -> u32 {
        (self.flags >> 12) & 0x1f
    }
}

/// The typed value of one record.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Attribute {
    /// EIFMT_NVAL: a flag (the two padding bytes are kept).
    Flag(u16),
    /// EIFMT_BVAL: a byte and its padding byte.
    Byte(u8, u8),
    /// EIFMT_HVAL: a 16-bit value (CBANK_PARAM_SIZE, MAXREG_COUNT, SPARSE_MMA_MASK, …).
    Half(u16),
    /// `REGCOUNT {symbol, registers}` (global `.nv.info`).
    RegCount {
        /// Function symbol index.
        sym: u32,
        /// Register count.
        count: u32,
    },
    /// `FRAME_SIZE`, `MIN_STACK_SIZE`, `MAX_STACK_SIZE` and other `{symbol, value}` pairs.
    SymValue {
        /// Function symbol index.
        sym: u32,
        /// The value.
        value: u32,
    },
    /// `PARAM_CBANK {symbol of .nv.constant0.<k>, size << 16 | offset}`.
    ParamCbank {
        /// Section symbol of the kernel's constant bank 0.
        sym: u32,
        /// Offset of the parameters in bank 0.
        offset: u16,
        /// Size of the parameters.
        size: u16,
    },
    /// `KPARAM_INFO`.
    KParamInfo(KParamInfo),
    /// `MAX_THREADS` / `REQNTID`: x, y, z.
    Dim3([u32; 3]),
    /// One of the `*_INSTR_OFFSETS` attributes ([`INSTR_OFFSET_ATTRS`]): byte offsets of
    /// instructions in the kernel's `.text`.
    InstrOffsets(Vec<u32>),
    /// One of the [`INSTR_RECORD_ATTRS`]: records that each start with an instruction offset.
    InstrRecords(Vec<InstrRecord>),
    /// `INDIRECT_BRANCH_TARGETS`.
    IndirectBranchTargets(Vec<IndirectBranch>),
    /// `COROUTINE_RESUME_ID_OFFSETS`: (id, instruction offset) pairs.
    ResumeIdOffsets(Vec<(u32, u32)>),
    /// `ANNOTATIONS`: (kind, instruction offset) pairs.
    Annotations(Vec<(u32, u32)>),
    /// Any other SVAL whose length is a multiple of 4: little-endian words (CRS_STACK_SIZE,
    /// SW_WAR, CUDA_API_VERSION, COOP_GROUP_MASK_REGIDS, EXTERNS, …).
    Words(Vec<u32>),
    /// An SVAL payload kept as bytes.
    Raw(Vec<u8>),
}

/// One record: format, attribute code, value, and any zero padding that followed it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Record {
    /// The format byte (`EIFMT_*`).
    pub format: u8,
    /// The attribute code (`EIATTR_*`).
    pub attr: u8,
    /// The typed value.
    pub value: Attribute,
    /// Zero bytes after an SVAL payload whose length was not a multiple of 4.
    pub pad: usize,
}

impl Record {
    /// The attribute's name (`EIATTR_` omitted) or `0x..` for unknown codes.
    pub fn name(&self) -> String {
        attr_name(self.attr).map_or_else(|| format!("{:#04x}", self.attr), str::to_string)
    }

    /// Every instruction byte offset this record holds, mutably (branch sites and targets of
    /// indirect branches, resume offsets, `*_INSTR_OFFSETS`).
    pub fn code_offsets_mut(&mut self) -> Vec<&mut u32> {
        match &mut self.value {
            Attribute::InstrOffsets(v) => v.iter_mut().collect(),
            Attribute::InstrRecords(v) => v.iter_mut().map(|r| &mut r.offset).collect(),
            Attribute::IndirectBranchTargets(v) => v
                .iter_mut()
                .flat_map(|b| std::iter::once(&mut b.branch).chain(b.targets.iter_mut()))
                .collect(),
            Attribute::ResumeIdOffsets(v) | Attribute::Annotations(v) => {
                v.iter_mut().map(|(_, o)| o).collect()
            }
            _ => Vec::new(),
        }
    }

    /// Whether the attribute holds code offsets in a form we cannot remap.
    pub fn has_opaque_offsets(&self) -> bool {
        OPAQUE_OFFSET_ATTRS.contains(&self.attr)
            || (INSTR_OFFSET_ATTRS.contains(&self.attr)
                && !matches!(self.value, Attribute::InstrOffsets(_)))
            || (instr_record_words(self.attr).is_some()
                && !matches!(self.value, Attribute::InstrRecords(_)))
            || (self.attr == EIATTR_INDIRECT_BRANCH_TARGETS
                && !matches!(self.value, Attribute::IndirectBranchTargets(_)))
            || (self.attr == EIATTR_COROUTINE_RESUME_ID_OFFSETS
                && !matches!(self.value, Attribute::ResumeIdOffsets(_)))
            || (self.attr == EIATTR_ANNOTATIONS && !matches!(self.value, Attribute::Annotations(_)))
    }
}

/// A parsed `.nv.info*` section.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct NvInfo {
    /// The records in order.
    pub records: Vec<Record>,
    /// Bytes from the first record whose format is unknown to the end, kept verbatim.
    pub tail: Vec<u8>,
}

fn words(p: &[u8]) -> Option<Vec<u32>> {
    (p.len() % 4 == 0).then(|| {
        p.chunks_exact(4)
            .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
            .collect()
    })
}

fn parse_indirect(p: &[u8]) -> Option<Vec<IndirectBranch>> {
    let mut out = Vec::new();
    let mut o = 0u64;
    while (o as usize) < p.len() {
        let branch = u32_at(p, o, "").ok()?;
        let a = u16_at(p, o + 4, "").ok()?;
        let b = u16_at(p, o + 6, "").ok()?;
        let n = u32_at(p, o + 8, "").ok()? as u64;
        if n > p.len() as u64 / 4 {
            return None;
        }
        let mut targets = Vec::with_capacity(n as usize);
        for k in 0..n {
            targets.push(u32_at(p, o + 12 + 4 * k, "").ok()?);
        }
        o += 12 + 4 * n;
        out.push(IndirectBranch {
            branch,
            unknown: [a, b],
            targets,
        });
    }
    Some(out)
}

fn typed_sval(attr: u8, p: &[u8], global: bool) -> Attribute {
    let w = words(p);
    let typed = match (attr, &w) {
        (EIATTR_REGCOUNT, Some(w)) if w.len() == 2 => Some(Attribute::RegCount {
            sym: w[0],
            count: w[1],
        }),
        (0x11 | 0x12 | 0x23, Some(w)) if w.len() == 2 && global => Some(Attribute::SymValue {
            sym: w[0],
            value: w[1],
        }),
        (0x0a, Some(w)) if w.len() == 2 => Some(Attribute::ParamCbank {
            sym: w[0],
            offset: w[1] as u16,
            size: (w[1] >> 16) as u16,
        }),
        (0x17, Some(w)) if w.len() == 3 => Some(Attribute::KParamInfo(KParamInfo {
            index: w[0],
            ordinal: w[1] as u16,
            offset: (w[1] >> 16) as u16,
            flags: w[2],
        })),
        (0x05 | 0x10, Some(w)) if w.len() == 3 => Some(Attribute::Dim3([w[0], w[1], w[2]])),
        (a, Some(w)) if INSTR_OFFSET_ATTRS.contains(&a) => Some(Attribute::InstrOffsets(w.clone())),
        (a, Some(w)) if instr_record_words(a).is_some_and(|n| w.len() % n == 0) => {
            let n = instr_record_words(a).unwrap_or(1);
            Some(Attribute::InstrRecords(
                w.chunks_exact(n)
                    .map(|c| InstrRecord {
                        offset: c[0],
                        rest: c[1..].to_vec(),
                    })
                    .collect(),
            ))
        }
        (EIATTR_INDIRECT_BRANCH_TARGETS, _) => {
            parse_indirect(p).map(Attribute::IndirectBranchTargets)
        }
        (EIATTR_COROUTINE_RESUME_ID_OFFSETS, Some(w)) if w.len() % 2 == 0 => Some(
            Attribute::ResumeIdOffsets(w.chunks_exact(2).map(|c| (c[0], c[1])).collect()),
        ),
        (EIATTR_ANNOTATIONS, Some(w))
            if w.len() % 2 == 0 && w.chunks_exact(2).all(|c| c[0] < 0x100 && c[1] % 16 == 0) =>
        {
            Some(Attribute::Annotations(
                w.chunks_exact(2).map(|c| (c[0], c[1])).collect(),
            ))
        }
        (_, Some(w)) => Some(Attribute::Words(w.clone())),
        _ => None,
    };
    typed.unwrap_or_else(|| Attribute::Raw(p.to_vec()))
}

fn sval_payload(v: &Attribute) -> Vec<u8> {
    let mut out = Vec::new();
    match v {
        Attribute::RegCount { sym, count } => {
            push_u32(&mut out, *sym);
            push_u32(&mut out, *count);
        }
        Attribute::SymValue { sym, value } => {
            push_u32(&mut out, *sym);
            push_u32(&mut out, *value);
        }
        Attribute::ParamCbank { sym, offset, size } => {
            push_u32(&mut out, *sym);
            push_u32(&mut out, (*size as u32) << 16 | *offset as u32);
        }
        Attribute::KParamInfo(k) => {
            push_u32(&mut out, k.index);
            push_u32(&mut out, (k.offset as u32) << 16 | k.ordinal as u32);
            push_u32(&mut out, k.flags);
        }
        Attribute::Dim3(d) => d.iter().for_each(|x| push_u32(&mut out, *x)),
        Attribute::InstrOffsets(w) | Attribute::Words(w) => {
            w.iter().for_each(|x| push_u32(&mut out, *x))
        }
        Attribute::InstrRecords(v) => {
            for r in v {
                push_u32(&mut out, r.offset);
                r.rest.iter().for_each(|x| push_u32(&mut out, *x));
            }
        }
        Attribute::IndirectBranchTargets(v) => {
            for b in v {
                push_u32(&mut out, b.branch);
                push_u16(&mut out, b.unknown[0]);
                push_u16(&mut out, b.unknown[1]);
                push_u32(&mut out, b.targets.len() as u32);
                b.targets.iter().for_each(|x| push_u32(&mut out, *x));
            }
        }
        Attribute::ResumeIdOffsets(v) | Attribute::Annotations(v) => {
            for (a, b) in v {
                push_u32(&mut out, *a);
                push_u32(&mut out, *b);
            }
        }
        Attribute::Raw(b) => out.extend_from_slice(b),
        Attribute::Flag(_) | Attribute::Byte(..) | Attribute::Half(_) => {}
    }
    out
}

impl NvInfo {
    /// Parses a per-kernel `.nv.info.<k>` section.
    pub fn parse(data: &[u8]) -> Result<NvInfo, ElfError> {
        Self::parse_with(data, false)
    }

    /// Parses the global `.nv.info` section (its `{symbol, value}` records become
    /// [`Attribute::SymValue`]).
    pub fn parse_global(data: &[u8]) -> Result<NvInfo, ElfError> {
        Self::parse_with(data, true)
    }

    fn parse_with(data: &[u8], global: bool) -> Result<NvInfo, ElfError> {
        let mut records = Vec::new();
        let mut o = 0usize;
        while o < data.len() {
            if !(EIFMT_NVAL..=EIFMT_SVAL).contains(&data[o]) {
                return Ok(NvInfo {
                    records,
                    tail: data[o..].to_vec(),
                });
            }
            if data.len() - o < 4 {
                return Err(ElfError::Malformed {
                    what: ".nv.info record header",
                    offset: o as u64,
                });
            }
            let (format, attr) = (data[o], data[o + 1]);
            let h = u16::from_le_bytes([data[o + 2], data[o + 3]]);
            let (value, next) = match format {
                EIFMT_NVAL => (Attribute::Flag(h), o + 4),
                EIFMT_BVAL => (Attribute::Byte(data[o + 2], data[o + 3]), o + 4),
                EIFMT_HVAL => (Attribute::Half(h), o + 4),
                EIFMT_SVAL => {
                    let end = o + 4 + h as usize;
                    let p = data.get(o + 4..end).ok_or(ElfError::Malformed {
                        what: ".nv.info record payload",
                        offset: o as u64,
                    })?;
                    (typed_sval(attr, p, global), end)
                }
                _ => {
                    return Ok(NvInfo {
                        records,
                        tail: data[o..].to_vec(),
                    })
                }
            };
            let mut pad = 0;
            if next % 4 != 0 {
                let want = 4 - next % 4;
                if data
                    .get(next..next + want)
                    .is_some_and(|b| b.iter().all(|&x| x == 0))
                {
                    pad = want;
                }
            }
            records.push(Record {
                format,
                attr,
                value,
                pad,
            });
            o = next + pad;
        }
        Ok(NvInfo {
            records,
            tail: Vec::new(),
        })
    }

    /// Serialises the records (and the kept tail).
    pub fn to_bytes(&self) -> Vec<u8> {
        let mut out = Vec::new();
        for r in &self.records {
            out.push(r.format);
            out.push(r.attr);
            match &r.value {
                Attribute::Flag(h) | Attribute::Half(h) => push_u16(&mut out, *h),
                Attribute::Byte(a, b) => {
                    out.push(*a);
                    out.push(*b);
                }
                v => {
                    let p = sval_payload(v);
                    push_u16(&mut out, p.len() as u16);
                    out.extend_from_slice(&p);
                }
            }
            out.extend(std::iter::repeat_n(0u8, r.pad));
        }
        out.extend_from_slice(&self.tail);
        out
    }

    /// The first record with attribute `attr`.
    pub fn get(&self, attr: u8) -> Option<&Record> {
        self.records.iter().find(|r| r.attr == attr)
    }
}

/// A one-line rendering of a record's value, for listings.
pub fn describe(r: &Record) -> String {
    let hexes = |v: &[u32]| {
        v.iter()
            .map(|x| format!("{x:#x}"))
            .collect::<Vec<_>>()
            .join(" ")
    };
    match &r.value {
        Attribute::Flag(_) => String::new(),
        Attribute::Byte(a, _) => format!("{a:#x}"),
        Attribute::Half(h) => format!("{h:#x}"),
        Attribute::RegCount { sym, count } => format!("sym {sym}: {count} registers"),
        Attribute::SymValue { sym, value } => format!("sym {sym}: {value:#x}"),
        Attribute::ParamCbank { sym, offset, size } => {
            format!("sym {sym}: offset {offset:#x} size {size:#x}")
        }
        Attribute::KParamInfo(k) => format!(
            "ordinal {} offset {:#x} size {:#x} cbank {:#x}",
            k.ordinal,
            k.offset,
            k.size(),
            k.cbank()
        ),
        Attribute::Dim3(d) => format!("{} {} {}", d[0], d[1], d[2]),
        Attribute::InstrOffsets(v) | Attribute::Words(v) => hexes(v),
        Attribute::InstrRecords(v) => v
            .iter()
            .map(|r| format!("{:#x} [{}]", r.offset, hexes(&r.rest)))
            .collect::<Vec<_>>()
            .join("; "),
        Attribute::IndirectBranchTargets(v) => v
            .iter()
            .map(|b| format!("{:#x} -> [{}]", b.branch, hexes(&b.targets)))
            .collect::<Vec<_>>()
            .join("; "),
        Attribute::ResumeIdOffsets(v) | Attribute::Annotations(v) => v
            .iter()
            .map(|(a, b)| format!("{a}@{b:#x}"))
            .collect::<Vec<_>>()
            .join(" "),
        Attribute::Raw(b) => format!("{} raw bytes", b.len()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn records_round_trip() {
        let mut b = vec![0x04, 0x2f, 8, 0, 1, 0, 0, 0, 10, 0, 0, 0];
        b.extend_from_slice(&[0x03, 0x1b, 0xff, 0x00]);
        b.extend_from_slice(&[0x01, 0x35, 0, 0]);
        b.extend_from_slice(&[0x04, 0x1c, 8, 0, 0x50, 0, 0, 0, 0x90, 1, 0, 0]);
        b.extend_from_slice(&[0x04, 0x99, 3, 0, 1, 2, 3, 0]);
        let info = NvInfo::parse(&b).unwrap();
        assert_eq!(info.records.len(), 5);
        assert_eq!(
            info.records[0].value,
            Attribute::RegCount { sym: 1, count: 10 }
        );
        assert_eq!(
            info.records[3].value,
            Attribute::InstrOffsets(vec![0x50, 0x190])
        );
        assert_eq!(info.records[4].pad, 1);
        assert_eq!(info.to_bytes(), b);
        // Unknown format: kept as a tail.
        let t = [0x04, 0x37, 4, 0, 0x80, 0, 0, 0, 0x09, 0x01, 0xaa];
        let info = NvInfo::parse(&t).unwrap();
        assert_eq!(info.tail.len(), 3);
        assert_eq!(info.to_bytes(), t);
        assert!(NvInfo::parse(&[0x04, 0x37, 40, 0]).is_err());
    }

    /// `MBARRIER_INSTR_OFFSETS` as ptxas 12.8 writes it for Triton's TMA matmul (sm_90a): only
    /// the first word of each 16-byte record is an instruction offset.
    #[test]
    fn mbarrier_records_offset_first_word_only() {
        let words = [0x960u32, 0xff, 0x24000, 0x70100, 0x2200, 0xff, 0, 0x9010a];
        let mut b = vec![0x04, 0x39, 32, 0];
        words.iter().for_each(|w| push_u32(&mut b, *w));
        let mut info = NvInfo::parse(&b).unwrap();
        let r = &mut info.records[0];
        assert!(!r.has_opaque_offsets());
        let offsets: Vec<u32> = r.code_offsets_mut().into_iter().map(|o| *o).collect();
        assert_eq!(offsets, [0x960, 0x2200]);
        for o in r.code_offsets_mut() {
            *o += 0x100;
        }
        let out = info.to_bytes();
        let back = NvInfo::parse(&out).unwrap();
        assert_eq!(
            back.records[0].value,
            Attribute::InstrRecords(vec![
                InstrRecord {
                    offset: 0xa60,
                    rest: vec![0xff, 0x24000, 0x70100]
                },
                InstrRecord {
                    offset: 0x2300,
                    rest: vec![0xff, 0, 0x9010a]
                },
            ])
        );
        // A payload that is not whole records: kept as words, and opaque to an editor.
        let mut odd = vec![0x04, 0x39, 12, 0];
        words[..3].iter().for_each(|w| push_u32(&mut odd, *w));
        let info = NvInfo::parse(&odd).unwrap();
        assert!(info.records[0].has_opaque_offsets());
        assert_eq!(info.to_bytes(), odd);
        // UNUSED_LOAD_BYTE_OFFSET: {offset, mask} pairs.
        let mut pair = vec![0x04, 0x44, 8, 0];
        [0x1830u32, 0xfff]
            .iter()
            .for_each(|w| push_u32(&mut pair, *w));
        let info = NvInfo::parse(&pair).unwrap();
        assert_eq!(
            info.records[0].value,
            Attribute::InstrRecords(vec![InstrRecord {
                offset: 0x1830,
                rest: vec![0xfff]
            }])
        );
    }
}
