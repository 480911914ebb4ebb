//! Changes a change-feed worker cannot handle, set aside instead of stopping it. The policy is
//! the processor's (`cosmos::dead_letter`: a batch that keeps failing is retried a bounded
//! number of times, then the changes that fail alone are set aside); a worker that knows a
//! change can never succeed (a document it cannot decode) sets it aside at once with
//! [`set_aside`]. Either way it lands in the worker's lease container under the partition
//! `deadLetter:<processor>`, where the Data Explorer's change-feed page lists it.

pub use cosmos::dead_letter::{partition, set_aside};
