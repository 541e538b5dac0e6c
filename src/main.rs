//! The `zoocheck` command. Its subcommands (check, simulate, replay, explore,
//! list) are tracked in the project's issues; until they land it says so.

use std::process::ExitCode;

fn main() -> ExitCode {
    eprintln!(
        "zoocheck {}: the store and client library are in place; \
         the check/simulate/replay commands are not yet. Run `cargo test`.",
        env!("CARGO_PKG_VERSION")
    );
    ExitCode::from(2)
}
