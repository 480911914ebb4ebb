//! The three containers of the final design of `000_*` (nine relational tables → three
//! containers), plus the change feed's lease container, each with an indexing policy that indexes
//! only what some query filters or sorts on: every excluded path is index work a write no longer
//! pays for.

use cosmos::{Container, ContainerProperties, Database};
use serde_json::json;

pub const DATABASE: &str = "webstore";

/// The app's containers, shared by every request (`sitekit::Db<Containers>`).
#[derive(Clone)]
pub struct Containers {
    /// Customers, their email sign-in lookups and their sales orders; pk `/customerId`.
    pub customer: Container,
    /// Products; pk `/categoryId`.
    pub product: Container,
    /// Categories, tags and the featured list; pk `/type`.
    pub product_meta: Container,
    /// Change-feed leases of the rename cascade; pk `/processor`.
    pub leases: Container,
}

impl Containers {
    pub async fn create_if_not_exists(db: &Database) -> cosmos::Result<Containers> {
        // customer: routed by customerId for everything but the back office's top-customers
        // query, which filters on type and sorts on salesOrderCount; order history sorts on
        // orderDate. Names, addresses and the password hash are never queried.
        let customer = ContainerProperties::new("customer", "/customerId").with_indexing_policy(json!({
            "indexingMode": "consistent",
            "includedPaths": [{"path": "/type/?"}, {"path": "/salesOrderCount/?"}, {"path": "/orderDate/?"}],
            "excludedPaths": [{"path": "/*"}]
        }));
        // product: a category page sorts by price or name inside its partition; the composite
        // indexes serve both sorts with a stable tie-breaker (scanned backwards for descending).
        // Tag pages and search filter on tags and names; descriptions are never queried.
        let product = ContainerProperties::new("product", "/categoryId").with_indexing_policy(json!({
            "indexingMode": "consistent",
            "includedPaths": [{"path": "/name/?"}, {"path": "/price/?"}, {"path": "/sku/?"}, {"path": "/tags/[]/id/?"}],
            "excludedPaths": [{"path": "/*"}],
            "compositeIndexes": [
                [{"path": "/price", "order": "ascending"}, {"path": "/name", "order": "ascending"}],
                [{"path": "/name", "order": "ascending"}, {"path": "/price", "order": "ascending"}]
            ]
        }));
        // productMeta: short lists read whole per type, sorted by name.
        let product_meta =
            ContainerProperties::new("productMeta", "/type").with_indexing_policy(json!({
                "indexingMode": "consistent",
                "includedPaths": [{"path": "/name/?"}],
                "excludedPaths": [{"path": "/*"}]
            }));
        Ok(Containers {
            customer: db.create_container_if_not_exists(customer).await?,
            product: db.create_container_if_not_exists(product).await?,
            product_meta: db.create_container_if_not_exists(product_meta).await?,
            leases: db
                .create_container_if_not_exists(ContainerProperties::new("leases", "/processor"))
                .await?,
        })
    }
}
