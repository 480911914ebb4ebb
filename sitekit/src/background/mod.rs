//! Work that runs beside the pages: change-feed workers and their lag, what a rename's
//! propagation has done so far, changes set aside, and progress of long work such as seeding.

pub mod dead_letter;
pub mod progress;
pub mod propagation;
pub mod workers;
