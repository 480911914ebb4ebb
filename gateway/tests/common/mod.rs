//! The tests' gateway (a free port, a real engine in a temporary directory).

pub use gateway::testing::TestGateway;

pub mod signed;
