//! The demo catalogue (provisional generator; see the tests for what it guarantees).

use crate::model::{Category, Product, Tag, TagRef};

pub struct Catalog {
    pub categories: Vec<Category>,
    pub tags: Vec<Tag>,
    pub products: Vec<Product>,
}

const CATEGORIES: [&str; 40] = [
    "Accessories, Bike Racks",
    "Accessories, Bike Stands",
    "Accessories, Bottles and Cages",
    "Accessories, Cleaners",
    "Accessories, Fenders",
    "Accessories, Helmets",
    "Accessories, Hydration Packs",
    "Accessories, Lights",
    "Accessories, Locks",
    "Accessories, Panniers",
    "Accessories, Pumps",
    "Accessories, Tires and Tubes",
    "Accessories, Bags",
    "Bikes, Mountain Bikes",
    "Bikes, Road Bikes",
    "Bikes, Touring Bikes",
    "Clothing, Bib-Shorts",
    "Clothing, Caps",
    "Clothing, Gloves",
    "Clothing, Jerseys",
    "Clothing, Shorts",
    "Clothing, Socks",
    "Clothing, Tights",
    "Clothing, Vests",
    "Clothing, Jackets",
    "Components, Bottom Brackets",
    "Components, Brakes",
    "Components, Chains",
    "Components, Cranksets",
    "Components, Derailleurs",
    "Components, Forks",
    "Components, Handlebars",
    "Components, Headsets",
    "Components, Mountain Frames",
    "Components, Pedals",
    "Components, Road Frames",
    "Components, Saddles",
    "Components, Touring Frames",
    "Components, Wheels",
    "Components, Cassettes",
];
const COLORS: [&str; 10] = [
    "Black", "Red", "Silver", "Blue", "Yellow", "White", "Green", "Orange", "Grey", "Multi",
];
const LINES: [&str; 6] = ["LL", "ML", "HL", "Sport-100", "Pro", "Classic"];

fn slug(s: &str) -> String {
    let mut out = String::new();
    for c in s.to_lowercase().chars() {
        if c.is_ascii_alphanumeric() {
            out.push(c);
        } else if !out.ends_with('-') {
            out.push('-');
        }
    }
    out.trim_matches('-').to_owned()
}

pub fn catalog() -> Catalog {
    let categories: Vec<Category> = CATEGORIES
        .iter()
        .map(|n| Category {
            id: format!("cat-{}", slug(n)),
            kind: "category".into(),
            name: (*n).into(),
        })
        .collect();
    let tags: Vec<Tag> = (0..200)
        .map(|i| {
            let name = format!(
                "{} {}",
                COLORS[i % 10],
                ["Series", "Edition", "Line", "Range", "Collection"][i / 10 % 5]
            ) + &format!(" {}", i / 50 + 1);
            Tag {
                id: format!("tag-{}", slug(&name)),
                kind: "tag".into(),
                name,
            }
        })
        .collect();
    let products = (0..300)
        .map(|i| {
            let c = &categories[i % 40];
            let item = c
                .name
                .split(", ")
                .nth(1)
                .unwrap_or("Item")
                .trim_end_matches('s');
            let name = format!(
                "{} {item} - {}, {}",
                LINES[i % 6],
                COLORS[i % 7],
                38 + (i % 9) * 2
            );
            let base = match c.name.split(',').next() {
                Some("Bikes") => 500.0,
                Some("Components") => 20.0,
                Some("Clothing") => 8.0,
                _ => 5.0,
            };
            let price = ((base * (1.0 + (i * 37 % 100) as f64 / 12.0)) * 100.0).round() / 100.0;
            let tag_refs = (0..1 + i % 4)
                .map(|k| &tags[(i * 7 + k * 13) % 200])
                .map(|t| TagRef {
                    id: t.id.clone(),
                    name: t.name.clone(),
                })
                .collect();
            Product {
                id: format!("prod-{:04}", i + 1),
                category_id: c.id.clone(),
                category_name: c.name.clone(),
                sku: format!(
                    "{}-{:04}",
                    slug(item)
                        .chars()
                        .take(2)
                        .collect::<String>()
                        .to_uppercase(),
                    i + 1
                ),
                name,
                description: format!(
                    "A dependable {} from our {} line.",
                    item.to_lowercase(),
                    LINES[i % 6]
                ),
                price,
                tags: tag_refs,
            }
        })
        .collect();
    Catalog {
        categories,
        tags,
        products,
    }
}
