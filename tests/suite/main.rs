//! The integration tests, one binary (one link of the crate with LTO, not one per file): each
//! module runs the built `tlc` against real files, repositories, processes and servers.
//! The support modules come first, before a blank line (docs/ARCHITECTURE.md lists them, and a
//! test keeps that list equal to this block): `common` gives every command a test runs its clean
//! environment; `e2e_support` drives the real Claude Code CLI, its worlds starting from an empty one.

mod agent_support;
mod chromium_support;
mod common;
mod cost_tools;
mod e2e_support;
mod ship_support;
mod terminal_support;

mod adopt;
mod agent_defaults;
mod agent_hostile;
mod agent_install;
mod agent_lifecycle;
mod attest;
mod boundary;
mod cli_contract;
mod cost;
mod docs;
mod e2e_claude;
mod floor;
mod floor_truth;
mod foundation;
mod gates;
mod harness_toolkit;
mod hook;
mod hostile;
mod hostile4;
mod init_wizard;
mod install;
mod lessons;
mod obs;
mod readme;
mod redaction;
mod rules;
mod scope;
mod scope2;
mod serve;
mod serve_browser;
mod serve_hostile;
mod ship;
mod terminal;
mod update;
mod usage;
