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

pub mod agent;
pub mod cli;
pub mod clock;
pub mod config;
pub mod cost;
pub mod decision;
pub mod error;
pub mod fault;
pub mod fsread;
pub mod fswrite;
pub mod gate;
pub mod gitfiles;
pub mod hashing;
pub mod hook;
pub mod lesson;
pub mod obs;
pub mod paths;
pub mod pathtext;
pub mod policy;
pub mod project;
pub mod render;
pub mod revision;
pub mod serve;
pub mod ship;
pub mod store;
pub mod sys;
pub mod update;

#[cfg(test)]
mod architecture;
