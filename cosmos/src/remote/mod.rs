//! The remote backend: any Cosmos DB for NoSQL endpoint through the official Rust SDK, with the
//! few calls the SDK lacks sent as signed REST requests (`rest.rs`).

mod errors;
mod items;
mod queries;
pub(crate) mod rest;
mod setup;

use std::sync::Arc;

use azure_data_cosmos::options::{
    BinaryEncodingOptions, ContentResponseOnWrite, OperationOptionsBuilder,
};
use azure_data_cosmos::{AccountEndpoint, AccountReference, CosmosClient, RoutingStrategy};

use crate::settings::ConnectionSettings;
use crate::{Error, Result};

pub(crate) use errors::{charged_from_sdk, from_sdk};

/// A connected account: the SDK's client and the REST signer, sharing endpoint and key.
#[derive(Clone)]
pub(crate) struct RemoteAccount {
    pub sdk: CosmosClient,
    pub rest: Arc<rest::Rest>,
}

/// One container of a remote account.
#[derive(Clone)]
pub(crate) struct RemoteContainer {
    pub sdk: azure_data_cosmos::ContainerClient,
    pub rest: Arc<rest::Rest>,
    /// `dbs/{db}/colls/{id}`: what REST requests address and sign.
    pub link: Arc<str>,
    /// The partition key path, read on first need (a write must name the key separately).
    pub pk_path: Arc<std::sync::OnceLock<String>>,
}

impl RemoteAccount {
    /// Builds the SDK's client, which reads the database account (`GET /`) before it answers:
    /// a wrong key or an unreachable endpoint fails here, with one clear line.
    pub async fn connect(settings: &ConnectionSettings) -> Result<Self> {
        let endpoint: AccountEndpoint = settings.endpoint.parse().map_err(|e| {
            Error::bad(
                "endpoint",
                format!("'{}' is not an endpoint URL: {e}", settings.endpoint),
            )
        })?;
        let account = AccountReference::with_authentication_key(
            endpoint,
            azure_core::credentials::Secret::from(settings.key.clone()),
        );
        let defaults = OperationOptionsBuilder::new()
            // Writes answer with the item, as the engine's do (the SDK's default is no body).
            .with_content_response_on_write(ContentResponseOnWrite::Enabled)
            .build();
        let sdk = CosmosClient::builder()
            // JSON text, which every endpoint reads (the gateway does not read binary JSON).
            .with_binary_encoding_options(BinaryEncodingOptions::new().with_enabled(false))
            .with_default_operation_options(defaults)
            .build(account, routing(settings))
            .await
            .map_err(|e| match from_sdk(e) {
                Error::Unavailable(m) => Error::Unavailable(format!(
                    "cannot use the Cosmos DB endpoint {}: {m}",
                    settings.endpoint
                )),
                other => other,
            })?;
        let rest = rest::Rest::new(&settings.endpoint, &settings.key, settings.is_loopback())?;
        Ok(RemoteAccount {
            sdk,
            rest: Arc::new(rest),
        })
    }
}

/// The region order the SDK routes by: `COSMOS_REGION` when set (the app's nearest Azure
/// region), else the account's own order.
fn routing(settings: &ConnectionSettings) -> RoutingStrategy {
    match &settings.region {
        Some(region) => RoutingStrategy::ProximityTo(region.clone().into()),
        None => RoutingStrategy::PreferredRegions(Vec::new()),
    }
}
