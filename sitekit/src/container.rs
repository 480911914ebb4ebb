//! Containers as an app declares them in code.

use engine::IndexingPolicy;
use engine::{ContainerClient, ContainerProperties, DatabaseClient};

/// Creates the container on first start; on later starts applies the indexing policy declared in
/// `props` if the stored one differs (the engine rebuilds the index online), so editing a policy
/// in the app's code takes effect on the next start.
pub async fn ensure(
    db: &DatabaseClient,
    props: ContainerProperties,
) -> engine::Result<ContainerClient> {
    let wanted = props.indexing_policy.clone();
    let container = db.create_container_if_not_exists(props).await?;
    if let Some(wanted) = wanted {
        let parse =
            |v: &serde_json::Value| serde_json::from_value::<IndexingPolicy>(v.clone()).ok();
        if parse(&container.read_container()?.indexing_policy) != parse(&wanted) {
            tracing::info!(
                container = container.id(),
                "indexing policy changed: rebuilding the index"
            );
            db.replace_indexing_policy(container.id(), wanted).await?;
        }
    }
    Ok(container)
}
