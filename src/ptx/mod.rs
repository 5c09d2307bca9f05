//! The PTX machine IR and everything that reads or writes it as text: lexer, parser, printer,
//! builder, and the operand-role tables analyses consult.

pub mod builder;
pub mod declared;
pub mod diag;
mod fxhash;
pub mod ir;
mod label_scopes;
pub mod lexer;
pub mod parse;
pub mod printer;
pub mod roles;

pub use declared::DeclaredMemory;
pub use diag::{Diagnostic, ParseErrors};
pub use ir::*;
pub use parse::parse_module;
pub use printer::print_module;
