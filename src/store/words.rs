//! Requests and their results in words, as traces, diagrams and the
//! fault kinds' descriptions print them (`create /lock/c0-lock-
//! (ephemeral sequential)`, `created /lock/c0-lock-0000000000`).

use super::{CreateMode, MultiOutcome, Op, OpResult, Response};

/// A request in words (`create /lock/c0-lock- (ephemeral sequential)`).
pub fn op(op: &Op) -> String {
    match op {
        Op::Create { path, mode, .. } => {
            let mode = match mode {
                CreateMode::Persistent => "persistent",
                CreateMode::Ephemeral => "ephemeral",
                CreateMode::PersistentSequential => "persistent sequential",
                CreateMode::EphemeralSequential => "ephemeral sequential",
                CreateMode::Container => "container",
                CreateMode::PersistentWithTtl => "persistent with TTL",
                CreateMode::PersistentSequentialWithTtl => "persistent sequential with TTL",
            };
            format!("create {path} ({mode})")
        }
        Op::Delete { path, .. } => format!("delete {path}"),
        Op::Exists { path, watch } => {
            format!("exists {path}{}", if *watch { " +watch" } else { "" })
        }
        Op::GetData { path, watch } => {
            format!("getData {path}{}", if *watch { " +watch" } else { "" })
        }
        Op::SetData { path, .. } => format!("setData {path}"),
        Op::GetChildren { path, watch } => {
            format!("getChildren {path}{}", if *watch { " +watch" } else { "" })
        }
        Op::Sync { path } => format!("sync {path}"),
        Op::AddWatch { path, mode } => format!("addWatch {path} ({})", mode.name()),
        Op::RemoveWatches { path, kind } => format!("removeWatches {path} ({})", kind.name()),
        Op::CheckWatches { path, kind } => format!("checkWatches {path} ({})", kind.name()),
        Op::Multi(ops) => format!("multi of {}", ops.len()),
        Op::Close => "close".into(),
    }
}

/// What a request ended with, in words (`created /lock/c0-lock-0000000000`).
pub fn result(result: &OpResult) -> String {
    match result {
        Err(code) => code.name().into(),
        Ok(Response::Created { path, .. }) => format!("created {path}"),
        Ok(Response::Deleted) => "deleted".into(),
        Ok(Response::Exists(Some(_))) => "exists".into(),
        Ok(Response::Exists(None)) => "does not exist".into(),
        Ok(Response::Data { .. }) => "data".into(),
        Ok(Response::SetData { .. }) => "data set".into(),
        Ok(Response::Children { names, .. }) => {
            let names: Vec<&str> = names.iter().map(|name| &**name).collect();
            format!("children [{}]", names.join(", "))
        }
        Ok(Response::Synced { .. }) => "synced".into(),
        Ok(Response::Multi(MultiOutcome::Committed(_))) => "multi committed".into(),
        Ok(Response::Multi(MultiOutcome::Aborted { code, .. })) => {
            format!("multi aborted: {}", code.name())
        }
        Ok(Response::Closed) => "closed".into(),
        Ok(Response::WatchAdded) => "watch added".into(),
        Ok(Response::WatchesRemoved) => "watches removed".into(),
    }
}
