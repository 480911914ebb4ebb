//! The change-feed workers of `004_*`: they keep the denormalized copies in step, out of band.

pub mod copy_posts;
pub mod propagate_usernames;
