//! Set-up shared by the `cosmos` crate's tests.

use cosmos::{Account, ConnectionSettings};
use gateway::testing::TestGateway;

/// An account on the gateway, with its (the emulator's) key.
pub async fn connect(gw: &TestGateway) -> Account {
    Account::connect(&ConnectionSettings::new(
        gw.endpoint(),
        gateway::EMULATOR_KEY,
    ))
    .await
    .unwrap()
}
