//! Domain values: validated names, the team/project/key model and the pure key query.
//!
//! Nothing in `domain` does I/O, knows about HTTP, git or file formats.

pub mod check;
pub mod checks;
pub mod key_files;
pub mod model;
pub mod names;
pub mod placeholders;
pub mod query;
pub mod text;
pub mod translations;
