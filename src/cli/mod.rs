//! The command's pieces, one file per concept: which files it reads, how it
//! runs and reports checks and simulations, where it writes traces, how it
//! replays and explores, lists and writes new scenarios, pins snapshots, and shows progress.

pub mod list;
pub mod load;
pub mod pin;
pub mod progress;
pub mod replay;
pub mod run;
pub mod traces;
