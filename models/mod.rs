//! The recipes, one file each: the recipe's steps quoted from the seeds, its
//! pure decision function, its actor, its variants and the properties it
//! promises.

pub mod lock;
