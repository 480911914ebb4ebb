//! The demo catalogue, in the shape of Microsoft's CosmicWorks sample (the AdventureWorks bike
//! shop as Cosmos DB documents): 40 categories, 200 tags and 300 products, in
//! `webstore/data/catalog.json` — one document per line, as the seed writes them (a product's
//! category and tag names are copies, kept in step by the rename worker).
//!
//! The file is part of the build, so ids, names, SKUs and prices are the same on every machine:
//! the seed can be re-run after a crash, and tests pick products by position. Edit the JSON to
//! change the shop; the tests below check what the site relies on.

use std::sync::OnceLock;

use serde::Deserialize;

use crate::model::{Category, Product, Tag};

/// The whole demo catalogue.
#[derive(Debug, Clone, PartialEq, Deserialize)]
pub struct Catalog {
    pub categories: Vec<Category>,
    pub tags: Vec<Tag>,
    pub products: Vec<Product>,
}

const CATALOG_JSON: &str = include_str!("../../data/catalog.json");

/// The whole demo catalogue (parsed once).
pub fn catalog() -> Catalog {
    static PARSED: OnceLock<Catalog> = OnceLock::new();
    PARSED
        .get_or_init(|| {
            serde_json::from_str(CATALOG_JSON)
                .expect("webstore/data/catalog.json is valid (tested)")
        })
        .clone()
}

#[cfg(test)]
mod tests {
    use std::collections::HashSet;

    use super::*;

    fn url_safe(id: &str) -> bool {
        !id.is_empty()
            && id.len() <= 64
            && id
                .bytes()
                .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-')
    }

    fn all_unique<'a>(items: impl IntoIterator<Item = &'a str>) -> bool {
        let mut seen = HashSet::new();
        items.into_iter().all(|s| seen.insert(s))
    }

    #[test]
    fn has_40_categories_200_tags_and_300_products() {
        let c = catalog();
        assert_eq!(c.categories.len(), 40);
        assert_eq!(c.tags.len(), 200);
        assert_eq!(c.products.len(), 300);
        assert!(c.categories.iter().all(|x| x.kind == "category"));
        assert!(c.tags.iter().all(|x| x.kind == "tag"));
        assert_eq!(c.categories[0].id, "cat-accessories-bike-racks");
        assert_eq!(c.products[0].id, "prod-0001");
    }

    #[test]
    fn ids_are_unique_url_safe_slugs() {
        let c = catalog();
        for ids in [
            c.categories
                .iter()
                .map(|x| x.id.as_str())
                .collect::<Vec<_>>(),
            c.tags.iter().map(|x| x.id.as_str()).collect(),
            c.products.iter().map(|x| x.id.as_str()).collect(),
        ] {
            assert!(all_unique(ids.iter().copied()), "duplicate id");
            for id in ids {
                assert!(url_safe(id), "{id:?}");
            }
        }
        assert!(all_unique(c.tags.iter().map(|t| t.name.as_str())));
        assert!(all_unique(c.categories.iter().map(|t| t.name.as_str())));
    }

    #[test]
    fn products_copy_their_category_and_tags_exactly() {
        let c = catalog();
        for p in &c.products {
            let category = c
                .categories
                .iter()
                .find(|x| x.id == p.category_id)
                .unwrap_or_else(|| panic!("{}: no category {}", p.id, p.category_id));
            assert_eq!(category.name, p.category_name, "{}", p.id);
            assert!((1..=5).contains(&p.tags.len()), "{}: {:?}", p.id, p.tags);
            assert!(all_unique(p.tags.iter().map(|t| t.id.as_str())), "{}", p.id);
            for t in &p.tags {
                assert!(
                    c.tags.iter().any(|x| x.id == t.id && x.name == t.name),
                    "{}: {t:?}",
                    p.id
                );
            }
        }
    }

    #[test]
    fn every_category_has_at_least_5_products_and_every_tag_a_product() {
        let c = catalog();
        for category in &c.categories {
            let n = c
                .products
                .iter()
                .filter(|p| p.category_id == category.id)
                .count();
            assert!(n >= 5, "{}: {n}", category.name);
        }
        for tag in &c.tags {
            assert!(
                c.products
                    .iter()
                    .any(|p| p.tags.iter().any(|t| t.id == tag.id)),
                "no product carries {}",
                tag.name
            );
        }
    }

    #[test]
    fn prices_have_two_decimals_and_fit_the_category() {
        for p in catalog().products {
            assert!(p.price > 0.0, "{}", p.name);
            let cents = p.price * 100.0;
            assert!(
                (cents - cents.round()).abs() < 1e-6,
                "{}: {}",
                p.name,
                p.price
            );
            let (low, high) = match p.category_name.split(", ").collect::<Vec<_>>()[..] {
                ["Bikes", _] => (500.0, 3500.0),
                ["Components", kind] if kind.ends_with("Frames") => (250.0, 1500.0),
                ["Components", _] => (20.0, 500.0),
                ["Clothing", _] => (8.0, 90.0),
                _ => (5.0, 200.0),
            };
            assert!(
                (low..=high).contains(&p.price),
                "{} ({}): {}",
                p.name,
                p.category_name,
                p.price
            );
        }
    }

    #[test]
    fn skus_and_names_are_unique_and_complete() {
        let c = catalog();
        assert!(all_unique(c.products.iter().map(|p| p.sku.as_str())));
        assert!(all_unique(c.products.iter().map(|p| p.name.as_str())));
        for p in &c.products {
            assert!(
                p.sku
                    .bytes()
                    .all(|b| b.is_ascii_uppercase() || b.is_ascii_digit() || b == b'-'),
                "{}",
                p.sku
            );
            assert!(!p.name.contains('{'), "{}", p.name);
            assert!(!p.description.is_empty(), "{}", p.name);
        }
    }
}
