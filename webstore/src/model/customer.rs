use serde::{Deserialize, Serialize};
use sitekit::pages::time::day;

/// A customer, in container `customer` (partition key `/customerId`), with its addresses embedded
/// (one-to-few, read and written together) and `salesOrderCount` kept by the `createOrder`
/// stored procedure.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Customer {
    pub id: String,
    #[serde(rename = "type")]
    pub kind: String,
    pub customer_id: String,
    pub title: String,
    pub first_name: String,
    pub last_name: String,
    pub email_address: String,
    pub phone_number: String,
    pub creation_date: String,
    pub addresses: Vec<Address>,
    /// argon2id PHC string: never rendered, never logged.
    pub password: String,
    pub sales_order_count: u64,
    #[serde(default)]
    pub admin: bool,
}

impl std::fmt::Display for Customer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{} {}", self.first_name, self.last_name)
    }
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Address {
    pub address_line1: String,
    pub address_line2: String,
    pub city: String,
    pub state: String,
    pub country: String,
    pub zip_code: String,
}

/// A sales order, in the customer's own logical partition (`type = "salesOrder"`), so a customer
/// and their orders come back from one single-partition query.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct SalesOrder {
    pub id: String,
    #[serde(rename = "type")]
    pub kind: String,
    pub customer_id: String,
    pub order_date: String,
    pub ship_date: String,
    pub details: Vec<OrderLine>,
}

impl Customer {
    pub fn since(&self) -> &str {
        day(&self.creation_date)
    }
}

impl SalesOrder {
    pub fn placed_on(&self) -> &str {
        day(&self.order_date)
    }

    pub fn ships_on(&self) -> &str {
        day(&self.ship_date)
    }

    pub fn total(&self) -> f64 {
        self.details
            .iter()
            .map(|l| l.price * l.quantity as f64)
            .sum()
    }
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct OrderLine {
    pub sku: String,
    pub name: String,
    pub price: f64,
    pub quantity: u32,
}

/// The sign-in lookup: one small document per email address, in the `customer` container under
/// the partition key `email:<address>`, so signing in is a point read (no fan-out over customer
/// partitions) and a second sign-up with the same address fails its create with a 409.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct EmailLogin {
    pub id: String,
    #[serde(rename = "type")]
    pub kind: String,
    /// `email:<address>`: the lookup's own logical partition.
    pub customer_id: String,
    /// The customer this address signs in to.
    pub owner_id: String,
}
