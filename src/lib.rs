pub mod domain;
pub mod store;
