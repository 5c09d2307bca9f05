//! `warpsmith divergence`: the affine divergence analysis of every function of a PTX file
//! (Sampaio et al., "Spill Code Placement for SIMD Machines" §2; see
//! `warpsmith::analysis::divergence`): each register's class — constant, uniform (block or warp
//! scope), constant-affine, affine (with its coefficient of the lane) or divergent — as a table
//! or as JSON.

use std::fmt::Write;
use std::path::Path;
use std::process::ExitCode;

use serde::ser::{Serialize, SerializeMap, Serializer};
use warpsmith::analysis::divergence::{
    analyze_module, BlockShape, Class, ClassCounts, FunctionDivergence, Options,
};

use super::{emit, load_ptx, CliError};

/// What the command was asked for.
#[derive(Clone, Debug, Default)]
pub struct Request<'a> {
    /// Print JSON instead of a table.
    pub json: bool,
    /// Only this function.
    pub function: Option<&'a str>,
    /// Analysis options (block shape, assumptions).
    pub options: Options,
}

/// Runs the command.
pub fn run(input: &Path, req: &Request<'_>, output: Option<&Path>) -> Result<ExitCode, CliError> {
    let module = load_ptx(input)?;
    let mut results = analyze_module(&module, &req.options);
    if let Some(name) = req.function {
        results.retain(|r| r.name == name);
        if results.is_empty() {
            eprintln!(
                "warpsmith: no function named {name} with a body in {}",
                input.display()
            );
            return Ok(ExitCode::from(2));
        }
    }
    let text = if req.json {
        let mut s = serde_json::to_string_pretty(&Report {
            kernels: results.iter().map(JsonFunction).collect(),
        })
        .unwrap_or_else(|e| format!("{{\"error\": \"{e}\"}}"));
        s.push('\n');
        s
    } else {
        table(&results)
    };
    emit(output, &text)?;
    Ok(ExitCode::SUCCESS)
}

fn shape_text(s: &BlockShape) -> String {
    match s {
        BlockShape::Known(_) => format!("block {}", s.describe()),
        BlockShape::Assumed1d => "1-D blocks assumed".into(),
        BlockShape::Unknown => "block shape unknown".into(),
    }
}

fn counts_text(c: &ClassCounts) -> String {
    format!(
        "{} constant, {} uniform (block), {} uniform (warp), {} constant-affine, {} affine, {} divergent{}",
        c.constant,
        c.uniform_block,
        c.uniform_warp,
        c.constant_affine,
        c.affine,
        c.divergent,
        if c.undefined > 0 {
            format!(", {} undefined", c.undefined)
        } else {
            String::new()
        }
    )
}

fn table(results: &[FunctionDivergence]) -> String {
    let mut s = String::new();
    for r in results {
        let _ = writeln!(
            s,
            "{} {}: {}; {} divergent branches, {} warp-uniform branches",
            if r.is_kernel { ".entry" } else { ".func" },
            r.name,
            shape_text(&r.shape),
            r.divergent_branches,
            r.warp_uniform_branches
        );
        for n in &r.notes {
            let _ = writeln!(s, "  note: {n}");
        }
        let width = r.registers.iter().map(|x| x.name.len()).max().unwrap_or(0);
        for reg in &r.registers {
            let _ = writeln!(s, "  {:width$}  {}", reg.name, reg.class);
        }
        let _ = writeln!(s, "  summary: {}", counts_text(&r.counts()));
    }
    s
}

#[derive(serde::Serialize)]
struct Report<'a> {
    kernels: Vec<JsonFunction<'a>>,
}

struct JsonFunction<'a>(&'a FunctionDivergence);

struct JsonRegisters<'a>(&'a FunctionDivergence);

/// A register's class, with the upper bound the analysis knows for a uniform or affine value
/// (`max`: every lane's unsigned value is at most this).
struct JsonClass(Class, Option<u64>);

impl Serialize for JsonFunction<'_> {
    fn serialize<S: Serializer>(&self, ser: S) -> Result<S::Ok, S::Error> {
        let r = self.0;
        let mut m = ser.serialize_map(None)?;
        m.serialize_entry("name", &r.name)?;
        m.serialize_entry("kind", if r.is_kernel { "entry" } else { "func" })?;
        m.serialize_entry(
            "block_shape",
            &match r.shape {
                BlockShape::Known(d) => serde_json::json!(d),
                BlockShape::Assumed1d => serde_json::json!("1-D (assumed)"),
                BlockShape::Unknown => serde_json::json!("unknown"),
            },
        )?;
        m.serialize_entry("notes", &r.notes)?;
        m.serialize_entry("divergent_branches", &r.divergent_branches)?;
        m.serialize_entry("warp_uniform_branches", &r.warp_uniform_branches)?;
        m.serialize_entry("summary", &r.counts())?;
        m.serialize_entry("registers", &JsonRegisters(r))?;
        m.end()
    }
}

impl Serialize for JsonRegisters<'_> {
    fn serialize<S: Serializer>(&self, ser: S) -> Result<S::Ok, S::Error> {
        let mut m = ser.serialize_map(Some(self.0.registers.len()))?;
        for r in &self.0.registers {
            m.serialize_entry(&r.name, &JsonClass(r.class, r.abs.umax))?;
        }
        m.end()
    }
}

impl Serialize for JsonClass {
    fn serialize<S: Serializer>(&self, ser: S) -> Result<S::Ok, S::Error> {
        let mut m = ser.serialize_map(None)?;
        m.serialize_entry("class", self.0.name())?;
        match self.0 {
            Class::Constant(v) => m.serialize_entry("value", &v)?,
            Class::Uniform(s) => {
                m.serialize_entry("scope", &s)?;
                if let Some(max) = self.1 {
                    m.serialize_entry("max", &max)?;
                }
            }
            Class::ConstantAffine { coef, base } => {
                m.serialize_entry("coef", &coef)?;
                m.serialize_entry("base", &base)?;
            }
            Class::Affine { coef, scope } => {
                m.serialize_entry("coef", &coef)?;
                m.serialize_entry("scope", &scope)?;
                if let Some(max) = self.1 {
                    m.serialize_entry("max", &max)?;
                }
            }
            Class::Undefined | Class::Divergent => {}
        }
        m.end()
    }
}
