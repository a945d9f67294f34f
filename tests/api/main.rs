//! Integration tests: the real app on real git repositories in temporary folders.

mod app_files;
mod cli;
mod errors;
mod export;
mod formats;
mod helpers;
mod history;
mod import;
mod keys;
mod observability;
mod openapi;
mod platforms;
mod plurals;
mod projects;
mod quality;
mod receiver;
mod reliability;
mod remote_http;
mod remote_ssh;
mod repository;
mod rights;
mod server;
mod sync;
mod teams;
mod upload;
mod webhooks;
