//! The `/models` comparison: the article's published V1/V2/V3 table (`article.rs`), what this
//! instance measured for the same requests (`measurements.rs`), and the chart (`chart.rs`).

pub mod article;
pub mod chart;
pub mod measurements;
pub mod sample;

pub use measurements::{Measurements, Stat};

/// The article's requests, in its order.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Request {
    C1,
    Q1,
    C2,
    Q2,
    Q3,
    C3,
    Q4,
    C4,
    Q5,
    Q6,
}

impl Request {
    pub const ALL: [Request; 10] = [
        Request::C1,
        Request::Q1,
        Request::C2,
        Request::Q2,
        Request::Q3,
        Request::C3,
        Request::Q4,
        Request::C4,
        Request::Q5,
        Request::Q6,
    ];

    pub fn code(&self) -> &'static str {
        match self {
            Request::C1 => "C1",
            Request::Q1 => "Q1",
            Request::C2 => "C2",
            Request::Q2 => "Q2",
            Request::Q3 => "Q3",
            Request::C3 => "C3",
            Request::Q4 => "Q4",
            Request::C4 => "C4",
            Request::Q5 => "Q5",
            Request::Q6 => "Q6",
        }
    }

    pub fn title(&self) -> &'static str {
        match self {
            Request::C1 => "Create/edit a user",
            Request::Q1 => "Retrieve a user",
            Request::C2 => "Create/edit a post",
            Request::Q2 => "Retrieve a post",
            Request::Q3 => "List a user's posts in short form",
            Request::C3 => "Create a comment",
            Request::Q4 => "List a post's comments",
            Request::C4 => "Like a post",
            Request::Q5 => "List a post's likes",
            Request::Q6 => "List the most recent posts (feed)",
        }
    }
}

/// The models, in the article's order.
pub const VERSIONS: [&str; 3] = ["V1", "V2", "V3"];
