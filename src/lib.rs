//! tlc: the local data service of an AI coding-agent harness.
//!
//! The binary is a thin shell over this library: [`cli`] parses and renders, [`hook`] adapts
//! provider payloads, the domains ([`obs`], [`cost`], [`policy`], [`gate`], [`lesson`], [`agent`],
//! [`ship`]) own their tables and SQL, and [`store`], [`config`] and [`render`] are shared by all
//! of them.
//!
//! `unsafe` code is denied here and allowed in two modules only: [`sys`] (the operating system
//! calls the standard library does not wrap) and `cost::borrowed_insert` (SQLite's C interface,
//! for the bulk import's copy-free binds).
#![deny(unsafe_code)]
#![warn(missing_docs)]

pub(crate) mod agent;
pub mod cli;
pub(crate) mod clock;
pub mod config;
pub(crate) mod confine;
pub mod cost;
pub(crate) mod decision;
pub mod error;
pub(crate) mod fault;
pub(crate) mod fsread;
pub(crate) mod fswrite;
pub(crate) mod gate;
pub(crate) mod gitfiles;
pub(crate) mod hashing;
pub(crate) mod hook;
pub(crate) mod lesson;
pub(crate) mod obs;
pub mod paths;
pub(crate) mod pathtext;
pub mod policy;
pub(crate) mod project;
pub mod render;
pub(crate) mod revision;
pub(crate) mod serve;
pub(crate) mod ship;
pub mod store;
pub(crate) mod sys;
pub(crate) mod update;

#[cfg(test)]
mod architecture;
