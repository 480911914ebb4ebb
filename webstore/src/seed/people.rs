//! Believable customers, generated from a per-customer seed so any customer can be generated
//! alone, in any order, and comes out the same on every machine.

use rand::seq::IndexedRandom;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

use sitekit::pages::time::iso;

use crate::model::{Address, Customer, OrderLine, Product, SalesOrder};

const TITLES: &[&str] = &["", "", "Mr.", "Ms.", "Mrs.", "Dr."];
const FIRST: &[&str] = &[
    "Ana", "Aiden", "Amelia", "Ben", "Carla", "Chen", "Daniel", "Dana", "Elena", "Emeka", "Fatima",
    "Felix", "Grace", "Hana", "Hugo", "Ines", "Isaac", "Jamal", "Julia", "Kai", "Kenji", "Lara",
    "Leo", "Lucia", "Maya", "Mateo", "Nadia", "Noah", "Olivia", "Omar", "Priya", "Paul", "Quinn",
    "Rosa", "Ravi", "Sara", "Sam", "Tariq", "Tess", "Uma", "Victor", "Wen", "Xavier", "Yara",
    "Yusuf", "Zoe", "Zane", "Anika", "Bruno", "Chloe",
];
const LAST: &[&str] = &[
    "Adams", "Alvarez", "Bauer", "Brown", "Castro", "Chen", "Diaz", "Dubois", "Evans", "Fischer",
    "Garcia", "Gupta", "Hansen", "Hughes", "Ito", "Jensen", "Johnson", "Kaur", "Kim", "Kowalski",
    "Larsen", "Lopez", "Martin", "Meyer", "Mori", "Nguyen", "Novak", "Okafor", "Olsen", "Patel",
    "Petrov", "Quinn", "Rossi", "Ruiz", "Sato", "Schmidt", "Silva", "Smith", "Tanaka", "Taylor",
    "Usman", "Varga", "Walsh", "Weber", "Wright", "Xu", "Yamada", "Young", "Zhang", "Ziegler",
];
const STREETS: &[&str] = &[
    "Oak Street",
    "Maple Avenue",
    "Harbor Road",
    "Hillcrest Drive",
    "Lake View",
    "Station Road",
    "Mill Lane",
    "Park Avenue",
    "River Walk",
    "Cedar Court",
    "Sunset Boulevard",
    "Elm Row",
];
/// (city, state, country, zip prefix)
const PLACES: &[(&str, &str, &str, &str)] = &[
    ("Seattle", "WA", "US", "981"),
    ("Portland", "OR", "US", "972"),
    ("Denver", "CO", "US", "802"),
    ("Austin", "TX", "US", "787"),
    ("Boston", "MA", "US", "021"),
    ("Vancouver", "BC", "CA", "V6B"),
    ("Toronto", "ON", "CA", "M5V"),
    ("London", "England", "GB", "EC1"),
    ("Bristol", "England", "GB", "BS1"),
    ("Berlin", "BE", "DE", "101"),
    ("Munich", "BY", "DE", "803"),
    ("Paris", "IDF", "FR", "750"),
    ("Lyon", "ARA", "FR", "690"),
    ("Melbourne", "VIC", "AU", "300"),
    ("Sydney", "NSW", "AU", "200"),
];

pub fn rng_for(stream: u64, n: u64) -> ChaCha8Rng {
    ChaCha8Rng::seed_from_u64(stream.wrapping_mul(0x9E37_79B9_7F4A_7C15) ^ n)
}

fn address(rng: &mut ChaCha8Rng) -> Address {
    let (city, state, country, zip) = *PLACES.choose(rng).expect("places");
    Address {
        address_line1: format!(
            "{} {}",
            rng.random_range(1..2400),
            STREETS.choose(rng).expect("streets")
        ),
        address_line2: if rng.random_bool(0.2) {
            format!("Apt {}", rng.random_range(1..60))
        } else {
            String::new()
        },
        city: city.into(),
        state: state.into(),
        country: country.into(),
        zip_code: format!("{zip}{:02}", rng.random_range(0..100)),
    }
}

fn date(rng: &mut ChaCha8Rng, from_year: i32, to_year: i32) -> chrono::NaiveDateTime {
    let start = chrono::NaiveDate::from_ymd_opt(from_year, 1, 1).expect("date");
    let days = (chrono::NaiveDate::from_ymd_opt(to_year, 1, 1).expect("date") - start).num_days();
    start.and_hms_opt(0, 0, 0).expect("time")
        + chrono::Duration::seconds(rng.random_range(0..days * 86_400))
}

/// Customer number `n` with its orders, the order count already in `salesOrderCount`.
pub fn customer(n: u64, password_hash: &str, products: &[Product]) -> (Customer, Vec<SalesOrder>) {
    let mut rng = rng_for(1, n);
    let first = *FIRST.choose(&mut rng).expect("names");
    let last = *LAST.choose(&mut rng).expect("names");
    let customer_id = format!("cust-{n:07}");
    let addresses = (0..rng.random_range(1..=2))
        .map(|_| address(&mut rng))
        .collect();
    let created = date(&mut rng, 2021, 2024);
    let order_count = rng.random_range(0..=6u64);
    let orders: Vec<SalesOrder> = (0..order_count)
        .map(|k| {
            let placed = date(&mut rng, 2024, 2027);
            let details = (0..rng.random_range(1..=4))
                .map(|_| {
                    let p = products.choose(&mut rng).expect("products");
                    OrderLine {
                        sku: p.sku.clone(),
                        name: p.name.clone(),
                        price: p.price,
                        quantity: rng.random_range(1..=3),
                    }
                })
                .collect();
            SalesOrder {
                id: format!("order-{n:07}-{k}"),
                kind: "salesOrder".into(),
                customer_id: customer_id.clone(),
                order_date: iso(placed),
                ship_date: iso(placed + chrono::Duration::days(rng.random_range(1..6))),
                details,
            }
        })
        .collect();
    let customer = Customer {
        id: customer_id.clone(),
        kind: "customer".into(),
        customer_id,
        title: TITLES.choose(&mut rng).expect("titles").to_string(),
        first_name: first.into(),
        last_name: last.into(),
        email_address: format!(
            "{}.{}.{n}@example.com",
            first.to_lowercase(),
            last.to_lowercase()
        ),
        phone_number: format!("+1 555-{:04}", rng.random_range(0..10_000)),
        creation_date: iso(created),
        addresses,
        password: password_hash.to_owned(),
        sales_order_count: order_count,
        admin: false,
    };
    (customer, orders)
}
