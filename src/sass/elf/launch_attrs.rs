//! The `.nv.info` attributes that bound a kernel's launch and its local memory: the block-size
//! bounds `EIATTR_REQNTID` / `EIATTR_MAX_THREADS` (per kernel, `.nv.info.<k>`), and the stack
//! sizes `EIATTR_FRAME_SIZE`, `EIATTR_MIN_STACK_SIZE`, `EIATTR_MAX_STACK_SIZE` (global
//! `.nv.info`, one `{symbol, bytes}` record each) from which the driver sizes local memory.
//!
//! Reference: `sass-and-cubin-format.md` §8.3–8.4 (EIATTR records).

use super::nvinfo::{Attribute, NvInfo, Record, EIFMT_SVAL};
use super::{Cubin, ElfError};

/// `EIATTR_MAX_THREADS` (`.maxntid`).
pub const EIATTR_MAX_THREADS: u8 = 0x05;
/// `EIATTR_REQNTID` (`.reqntid`).
pub const EIATTR_REQNTID: u8 = 0x10;
/// The stack-size attributes: FRAME_SIZE, MIN_STACK_SIZE, MAX_STACK_SIZE.
pub const STACK_ATTRS: [u8; 3] = [0x11, 0x12, 0x23];

/// A kernel's bound on its block size.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ThreadBound {
    /// `.reqntid x, y, z`: every launch has exactly this shape.
    Required([u32; 3]),
    /// `.maxntid x, y, z`: at most `x·y·z` threads.
    Max([u32; 3]),
}

impl ThreadBound {
    /// The largest number of threads a block may have.
    pub fn threads(&self) -> u32 {
        let (ThreadBound::Required(d) | ThreadBound::Max(d)) = self;
        d.iter().product()
    }
}

impl Cubin {
    fn kernel_info(&self, name: &str) -> Result<(usize, NvInfo), ElfError> {
        let sec = format!(".nv.info.{name}");
        let idx = self.section_index(&sec).ok_or(ElfError::NoSection(sec))?;
        Ok((idx, NvInfo::parse(&self.sections[idx].data)?))
    }

    /// Whether kernel `name` changes its register budget at run time (`setmaxnreg`: ptxas marks
    /// it with `EIATTR_REG_RECONFIG`). Its register count is then part of its contract with the
    /// launch: the warps' requests are served from the CTA's pool, which the count sizes.
    pub fn reconfigures_registers(&self, name: &str) -> bool {
        self.kernel_info(name)
            .is_ok_and(|(_, info)| info.get(super::nvinfo::EIATTR_REG_RECONFIG).is_some())
    }

    /// The block-size bound of kernel `name`, if its `.nv.info.<name>` has one.
    pub fn thread_bound(&self, name: &str) -> Option<ThreadBound> {
        let (_, info) = self.kernel_info(name).ok()?;
        let dim = |attr| match info.get(attr).map(|r| &r.value) {
            Some(Attribute::Dim3(d)) => Some(*d),
            _ => None,
        };
        dim(EIATTR_REQNTID)
            .map(ThreadBound::Required)
            .or_else(|| dim(EIATTR_MAX_THREADS).map(ThreadBound::Max))
    }

    /// Bounds kernel `name`'s blocks to `threads` threads (`EIATTR_MAX_THREADS` = threads, 1, 1:
    /// the driver refuses larger launches), replacing a larger bound or adding one.
    pub fn set_max_threads(&mut self, name: &str, threads: u32) -> Result<(), ElfError> {
        let (idx, mut info) = self.kernel_info(name)?;
        if info.get(EIATTR_REQNTID).is_some() {
            return Err(ElfError::Edit(format!(
                "{name} has a required block size; its bound cannot change"
            )));
        }
        let value = Attribute::Dim3([threads, 1, 1]);
        match info
            .records
            .iter_mut()
            .find(|r| r.attr == EIATTR_MAX_THREADS)
        {
            Some(r) => r.value = value,
            None => info.records.push(Record {
                format: EIFMT_SVAL,
                attr: EIATTR_MAX_THREADS,
                value,
                pad: 0,
            }),
        }
        self.sections[idx].set_data(info.to_bytes());
        // The section grew when the record was added: place everything again.
        self.relayout();
        Ok(())
    }

    /// The stack size of function `name` in bytes: the largest of its stack-size attributes.
    pub fn stack_size(&self, name: &str) -> Result<u32, ElfError> {
        let f = self.function(name)?;
        let Some(s) = self.section(".nv.info") else {
            return Ok(0);
        };
        let info = NvInfo::parse_global(&s.data)?;
        Ok(info
            .records
            .iter()
            .filter(|r| STACK_ATTRS.contains(&r.attr))
            .filter_map(|r| match r.value {
                Attribute::SymValue { sym, value } if sym == f.symbol => Some(value),
                _ => None,
            })
            .max()
            .unwrap_or(0))
    }

    /// Sets every stack-size attribute of function `name` to `bytes`.
    pub fn set_stack_size(&mut self, name: &str, bytes: u32) -> Result<(), ElfError> {
        let f = self.function(name)?;
        let idx = self
            .section_index(".nv.info")
            .ok_or_else(|| ElfError::NoSection(".nv.info".into()))?;
        let mut info = NvInfo::parse_global(&self.sections[idx].data)?;
        for r in info.records.iter_mut() {
            if let (true, Attribute::SymValue { sym, value }) =
                (STACK_ATTRS.contains(&r.attr), &mut r.value)
            {
                if *sym == f.symbol {
                    *value = bytes;
                }
            }
        }
        self.sections[idx].set_data(info.to_bytes());
        Ok(())
    }
}
