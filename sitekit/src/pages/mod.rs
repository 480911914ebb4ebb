//! What pages show: the layout around every page (with its RU footer), form checks, listings
//! paged by continuation, and numbers and dates as people read them.

pub mod form;
pub mod format;
pub mod layout;
pub mod paging;
pub mod time;
