//! Integration tests: the real app on real git repositories in temporary folders.

mod errors;
mod export;
mod helpers;
mod keys;
mod openapi;
mod platforms;
mod projects;
mod repository;
mod server;
mod teams;
