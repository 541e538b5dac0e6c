//! The recipes, one file each: the recipe's steps quoted from the seeds, its
//! pure decision function, its actor, its variants and the properties it
//! promises. The lock, the shared lock and leader election share the
//! contender's machinery and differ in their decision rules.

pub mod barrier;
pub mod configuration;
pub mod contender;
pub mod double_barrier;
pub mod election;
pub mod joined;
pub mod lock;
pub mod membership;
pub mod priority_queue;
pub mod queue;
pub mod revocable_lock;
pub mod semaphore;
pub mod shared_lock;
pub mod two_phase_commit;
