//! Errors of the emulator. Every error that concerns an instruction names it: `file:line`, the
//! instruction text as the printer writes it, the CTA and thread.
//!
//! Kinds (the "bug vs limit vs unsupported" distinction of the style guide):
//! - [`EmuError::Spec`]: the launch specification does not fit the kernel (argument count, types,
//!   buffer sizes, launch shape) — the user's mistake, detected before anything runs;
//! - [`EmuError::Unsupported`]: the kernel executed an instruction the emulator does not
//!   implement — never a wrong answer;
//! - [`EmuError::Fault`]: the kernel did something PTX leaves undefined or forbids (out-of-bounds
//!   or misaligned access, `trap`, a thread outside a `shfl.sync` member mask …) — a property of
//!   the kernel;
//! - [`EmuError::Deadlock`]: threads wait at barriers that can never complete;
//! - [`EmuError::Limit`]: the emulator's own model or limits stop the run (instruction budget,
//!   call depth, local memory size, behaviour that needs independent thread scheduling).

use std::fmt;

/// Where in the kernel something happened.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Where {
    /// `file:line`.
    pub at: String,
    /// The instruction as printed.
    pub text: String,
    /// The CTA (`%ctaid`).
    pub cta: [u32; 3],
    /// The thread (`%tid`) when one lane is concerned.
    pub thread: Option<[u32; 3]>,
    /// The warp within the CTA.
    pub warp: u32,
}

impl Where {
    /// `(CTA (x,y,z), thread (x,y,z))` or `(CTA (x,y,z), warp w)`.
    pub fn who(&self) -> String {
        let [x, y, z] = self.cta;
        match self.thread {
            Some(t) => format!("(CTA ({x},{y},{z}), thread ({},{},{}))", t[0], t[1], t[2]),
            None => format!("(CTA ({x},{y},{z}), warp {})", self.warp),
        }
    }
}

impl fmt::Display for Where {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: `{}` {}", self.at, self.text, self.who())
    }
}

/// An emulation error.
#[derive(Debug, thiserror::Error)]
pub enum EmuError {
    /// The launch specification is wrong for this kernel.
    #[error("launch spec: {0}")]
    Spec(String),
    /// The module cannot be prepared for execution (bad initialiser, missing kernel).
    #[error("{0}")]
    Program(String),
    /// An instruction the emulator does not implement was executed.
    #[error("unsupported instruction `{}` at {} {}: {why}", at.text, at.at, at.who())]
    Unsupported {
        /// Where.
        at: Box<Where>,
        /// Why it is not supported.
        why: String,
    },
    /// The kernel did something undefined or forbidden.
    #[error("{at}: {what}")]
    Fault {
        /// Where.
        at: Box<Where>,
        /// What went wrong.
        what: String,
    },
    /// Barrier deadlock.
    #[error("deadlock in CTA ({},{},{}): {detail}", cta[0], cta[1], cta[2])]
    Deadlock {
        /// The CTA.
        cta: [u32; 3],
        /// Who waits where.
        detail: String,
    },
    /// An emulator limit or modelling limit was reached.
    #[error("emulation limit: {what}{}", at.as_ref().map(|w| format!(" at {w}")).unwrap_or_default())]
    Limit {
        /// Where, when known.
        at: Option<Box<Where>>,
        /// What.
        what: String,
    },
}

impl EmuError {
    /// True when the error says something about the kernel's behaviour (a fault or a deadlock)
    /// rather than about the emulator or the launch.
    pub fn is_kernel_misbehaviour(&self) -> bool {
        matches!(self, EmuError::Fault { .. } | EmuError::Deadlock { .. })
    }
}

/// Result alias.
pub type EmuResult<T> = Result<T, EmuError>;
