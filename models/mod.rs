//! The recipes, one file each: the recipe's steps quoted from the seeds, its
//! pure decision function, its actor, its variants and the properties it
//! promises. The lock, the shared lock and leader election share the
//! contender's machinery and differ in their decision rules.
//!
//! A recipe joins the catalogue by one line of [`recipes!`]: its file and its
//! type, in the order `list` gives them.

pub mod contender;
pub mod joined;

/// Declares each recipe's module and [`each`], which visits them in order.
macro_rules! recipes {
    ($($file:ident: $recipe:ident),* $(,)?) => {
        $(pub mod $file;)*

        /// Visits every recipe with its type, in the catalogue's order
        /// ([`crate::catalogued::Visit`]).
        pub fn each(visit: &mut impl crate::catalogued::Visit) {
            $(visit.recipe::<$file::$recipe>();)*
        }
    };
}

recipes! {
    lock: Lock,
    shared_lock: SharedLock,
    revocable_lock: RevocableLock,
    semaphore: Semaphore,
    election: Election,
    barrier: Barrier,
    double_barrier: DoubleBarrier,
    queue: Queue,
    priority_queue: PriorityQueue,
    two_phase_commit: TwoPhaseCommit,
    membership: Membership,
    configuration: Configuration,
}
