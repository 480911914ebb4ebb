//! The demo catalogue, the size of Microsoft's CosmicWorks sample (a bike shop): 40 categories,
//! 200 tags, 300 products. Built from fixed tables by index arithmetic, so it is the same on every
//! machine and every run, and a product's tags fit it (a red helmet is tagged "Red").

use crate::model::{Category, Product, Tag, TagRef};

pub struct Catalog {
    pub categories: Vec<Category>,
    pub tags: Vec<Tag>,
    pub products: Vec<Product>,
}

/// (category, product noun, lowest price, highest price, SKU prefix, what it is for)
const CATEGORIES: [(&str, &str, f64, f64, &str, &str); 40] = [
    (
        "Accessories, Bike Racks",
        "Hitch Rack",
        90.0,
        480.0,
        "RA",
        "carries up to four bikes on a car hitch",
    ),
    (
        "Accessories, Bike Stands",
        "Repair Stand",
        60.0,
        320.0,
        "ST",
        "holds the bike steady at working height",
    ),
    (
        "Accessories, Bottles and Cages",
        "Water Bottle",
        5.0,
        30.0,
        "BC",
        "keeps drinks within reach on every ride",
    ),
    (
        "Accessories, Cleaners",
        "Bike Wash",
        6.0,
        35.0,
        "CL",
        "lifts mud and grease without harming seals",
    ),
    (
        "Accessories, Fenders",
        "Fender Set",
        18.0,
        75.0,
        "FE",
        "keeps road spray off rider and drivetrain",
    ),
    (
        "Accessories, Helmets",
        "Helmet",
        35.0,
        260.0,
        "HL",
        "protects with a multi-density shell and a secure fit",
    ),
    (
        "Accessories, Hydration Packs",
        "Hydration Pack",
        40.0,
        160.0,
        "HY",
        "carries water and essentials close to the back",
    ),
    (
        "Accessories, Lights",
        "Headlight",
        15.0,
        190.0,
        "LT",
        "lights the road ahead and makes you seen",
    ),
    (
        "Accessories, Locks",
        "U-Lock",
        20.0,
        140.0,
        "LK",
        "secures the frame to a rack in seconds",
    ),
    (
        "Accessories, Panniers",
        "Pannier",
        45.0,
        210.0,
        "PA",
        "clips to a rack and swallows a day's shopping",
    ),
    (
        "Accessories, Pumps",
        "Floor Pump",
        15.0,
        110.0,
        "PU",
        "reaches high pressure with a clear gauge",
    ),
    (
        "Accessories, Tires and Tubes",
        "Tire",
        8.0,
        85.0,
        "TI",
        "balances grip, speed and puncture protection",
    ),
    (
        "Accessories, Bags",
        "Saddle Bag",
        12.0,
        95.0,
        "BG",
        "holds a tube, levers and a multi-tool",
    ),
    (
        "Bikes, Mountain Bikes",
        "Mountain",
        540.0,
        3400.0,
        "BK-M",
        "climbs steadily and descends with confidence",
    ),
    (
        "Bikes, Road Bikes",
        "Road",
        520.0,
        3580.0,
        "BK-R",
        "is light, stiff and quick on tarmac",
    ),
    (
        "Bikes, Touring Bikes",
        "Touring",
        740.0,
        2380.0,
        "BK-T",
        "carries loads in comfort over long days",
    ),
    (
        "Clothing, Bib-Shorts",
        "Bib-Shorts",
        45.0,
        90.0,
        "SB",
        "has a shaped pad for long hours in the saddle",
    ),
    (
        "Clothing, Caps",
        "Cycling Cap",
        8.0,
        25.0,
        "CA",
        "shades the eyes under a helmet",
    ),
    (
        "Clothing, Gloves",
        "Gloves",
        15.0,
        55.0,
        "GL",
        "adds grip and cushions the palms",
    ),
    (
        "Clothing, Jerseys",
        "Jersey",
        35.0,
        90.0,
        "LJ",
        "wicks sweat and carries snacks in three rear pockets",
    ),
    (
        "Clothing, Shorts",
        "Shorts",
        30.0,
        80.0,
        "SH",
        "moves freely on and off the bike",
    ),
    (
        "Clothing, Socks",
        "Socks",
        8.0,
        20.0,
        "SO",
        "stays dry and blister-free",
    ),
    (
        "Clothing, Tights",
        "Tights",
        40.0,
        90.0,
        "TG",
        "keeps legs warm on cold mornings",
    ),
    (
        "Clothing, Vests",
        "Vest",
        40.0,
        85.0,
        "VE",
        "blocks the wind on the chest and packs away small",
    ),
    (
        "Clothing, Jackets",
        "Jacket",
        60.0,
        89.0,
        "JK",
        "sheds rain and breathes on the climbs",
    ),
    (
        "Components, Bottom Brackets",
        "Bottom Bracket",
        22.0,
        120.0,
        "BB",
        "spins smoothly on sealed bearings",
    ),
    (
        "Components, Brakes",
        "Brake Set",
        45.0,
        320.0,
        "BR",
        "stops reliably in every weather",
    ),
    (
        "Components, Chains",
        "Chain",
        20.0,
        70.0,
        "CH",
        "shifts crisply and resists stretch",
    ),
    (
        "Components, Cranksets",
        "Crankset",
        90.0,
        480.0,
        "CS",
        "turns every watt into speed",
    ),
    (
        "Components, Derailleurs",
        "Rear Derailleur",
        45.0,
        380.0,
        "RD",
        "shifts precisely under load",
    ),
    (
        "Components, Forks",
        "Fork",
        120.0,
        900.0,
        "FK",
        "steers precisely and soaks up the bumps",
    ),
    (
        "Components, Handlebars",
        "Handlebar",
        25.0,
        260.0,
        "HB",
        "puts the hands where they are strongest",
    ),
    (
        "Components, Headsets",
        "Headset",
        20.0,
        160.0,
        "HS",
        "keeps steering smooth and play-free",
    ),
    (
        "Components, Mountain Frames",
        "Mountain Frame",
        260.0,
        1380.0,
        "FR-M",
        "is the backbone of a trail build",
    ),
    (
        "Components, Pedals",
        "Pedal",
        20.0,
        240.0,
        "PD",
        "holds the foot firmly and releases on demand",
    ),
    (
        "Components, Road Frames",
        "Road Frame",
        250.0,
        1430.0,
        "FR-R",
        "is the backbone of a fast road build",
    ),
    (
        "Components, Saddles",
        "Saddle",
        25.0,
        220.0,
        "SE",
        "supports the sit bones without numbness",
    ),
    (
        "Components, Touring Frames",
        "Touring Frame",
        330.0,
        1100.0,
        "FR-T",
        "is the backbone of a load-carrying build",
    ),
    (
        "Components, Wheels",
        "Wheel",
        60.0,
        900.0,
        "WH",
        "rolls true and spins up fast",
    ),
    (
        "Components, Cassettes",
        "Cassette",
        30.0,
        340.0,
        "CT",
        "gives a gear for every gradient",
    ),
];

const COLORS: [&str; 16] = [
    "Black", "White", "Red", "Blue", "Silver", "Yellow", "Green", "Orange", "Grey", "Navy", "Teal",
    "Purple", "Pink", "Olive", "Charcoal", "Burgundy",
];
const SIZES: [&str; 8] = ["XS", "S", "M", "L", "XL", "XXL", "One Size", "Kids"];
const FRAME_SIZES: [u32; 7] = [38, 42, 44, 48, 52, 56, 58];
const LINES: [&str; 8] = [
    "LL",
    "ML",
    "HL",
    "Sport-100",
    "Pro",
    "Classic",
    "Elite",
    "Trail",
];
const MATERIALS: [&str; 20] = [
    "Aluminum",
    "Carbon",
    "Steel",
    "Titanium",
    "Chromoly",
    "Merino Wool",
    "Polyester",
    "Nylon",
    "Gore-Tex",
    "Lycra",
    "Rubber",
    "Leather",
    "Fiberglass",
    "Magnesium",
    "Polycarbonate",
    "Cotton",
    "Spandex",
    "Softshell",
    "Mesh",
    "EVA Foam",
];
const DISCIPLINES: [&str; 14] = [
    "Road",
    "Mountain",
    "Gravel",
    "Touring",
    "Commuting",
    "Cyclocross",
    "Triathlon",
    "Enduro",
    "Downhill",
    "Cross-Country",
    "Track",
    "BMX",
    "Bikepacking",
    "E-Bike Ready",
];
const OTHER_TAGS: [&str; 130] = [
    // Weather
    "Summer",
    "Winter",
    "All-Season",
    "Rain-Ready",
    "Windproof",
    "Waterproof",
    "Breathable",
    "Insulated",
    "Reflective",
    "UV Protection",
    // Features
    "Lightweight",
    "Aero",
    "Tubeless Ready",
    "Quick Release",
    "Thru-Axle",
    "Disc Brake",
    "Rim Brake",
    "Hydraulic",
    "Mechanical",
    "Electronic Shifting",
    "11-Speed",
    "12-Speed",
    "1x Drivetrain",
    "2x Drivetrain",
    "Adjustable",
    "Foldable",
    "USB Rechargeable",
    "Long Battery Life",
    "High Visibility",
    "Anti-Theft",
    "Tool-Free",
    "Puncture Resistant",
    "Shock Absorbing",
    "Ergonomic",
    "Padded",
    "Ventilated",
    "Compact",
    "Heavy Duty",
    "Low Maintenance",
    "Stiff",
    "Comfort Fit",
    "Race Fit",
    "Relaxed Fit",
    "Women's Specific",
    "Unisex",
    "Vegan",
    "Recycled Materials",
    "Made in Europe",
    "Handmade",
    "Wide Range",
    "Low Profile",
    "Integrated",
    "Modular",
    "Washable",
    "Quick Dry",
    "Odor Resistant",
    "Thermal",
    "Seamless",
    "Chamois Pad",
    "Anti-Slip",
    "Magnetic",
    "Bluetooth",
    "GPS Mount",
    "Crash Replacement",
    "Lifetime Warranty",
    // Compatibility
    "Shimano Compatible",
    "SRAM Compatible",
    "Campagnolo Compatible",
    "Boost Spacing",
    "Presta Valve",
    "Schrader Valve",
    "Clipless",
    "Flat Pedal",
    "Threaded BB",
    "Press-Fit BB",
    "Tapered Steerer",
    "Internal Routing",
    // Rider and use
    "Beginner",
    "Intermediate",
    "Advanced",
    "Professional",
    "Daily Use",
    "Weekend Rides",
    "Racing",
    "Training",
    "Indoor Trainer",
    "Urban",
    "Trail",
    "Long Distance",
    "Family",
    "Cargo",
    // Series
    "HL Series",
    "ML Series",
    "LL Series",
    "Sport-100 Series",
    "Mountain-100",
    "Mountain-200",
    "Mountain-300",
    "Road-150",
    "Road-250",
    "Road-350",
    "Road-550",
    "Road-650",
    "Road-750",
    "Touring-1000",
    "Touring-2000",
    "Touring-3000",
    // Merchandising
    "Best Seller",
    "New Arrival",
    "On Sale",
    "Clearance",
    "Staff Pick",
    "Gift Idea",
    "Bundle Deal",
    "Editor's Choice",
    "Award Winner",
    "Back in Stock",
    "Team Edition",
    "Limited Edition",
    "Heritage",
    "Signature",
    "Eco Line",
    "Night Ride",
    "Collector's Item",
    "Pro Team Replica",
    "Club Kit",
    "Anniversary",
    "Quick Install",
    "Travel Friendly",
    "Spare Parts Available",
];

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

fn tag_names() -> Vec<String> {
    COLORS
        .iter()
        .map(|c| c.to_string())
        .chain(SIZES.iter().map(|s| format!("Size {s}")))
        .chain(MATERIALS.iter().map(|m| m.to_string()))
        .chain(DISCIPLINES.iter().map(|d| d.to_string()))
        .chain(OTHER_TAGS.iter().map(|t| t.to_string()))
        .chain(FRAME_SIZES.iter().map(|s| format!("Frame {s} cm")))
        .chain(
            [
                "Size 26\"",
                "Size 27.5\"",
                "Size 29\"",
                "Size 700c",
                "Size 650b",
            ]
            .map(String::from),
        )
        .collect()
}

fn money(v: f64) -> f64 {
    (v * 100.0).round() / 100.0
}

pub fn catalog() -> Catalog {
    let categories: Vec<Category> = CATEGORIES
        .iter()
        .map(|(name, ..)| Category {
            id: format!("cat-{}", slug(name)),
            kind: "category".into(),
            name: (*name).into(),
        })
        .collect();
    let tags: Vec<Tag> = tag_names()
        .into_iter()
        .map(|name| Tag {
            id: format!("tag-{}", slug(&name)),
            kind: "tag".into(),
            name,
        })
        .collect();
    let tag = |name: &str| -> TagRef {
        let t = tags.iter().find(|t| t.name == name).expect("a known tag");
        TagRef {
            id: t.id.clone(),
            name: t.name.clone(),
        }
    };

    let mut products = Vec::with_capacity(300);
    for i in 0..300usize {
        // 40 categories × 7, and an eighth product in the first 20.
        let (c, k) = if i < 280 {
            (i % 40, i / 40)
        } else {
            (i - 280, 7)
        };
        let (cat_name, noun, low, high, sku_prefix, purpose) = CATEGORIES[c];
        let family = cat_name.split(',').next().unwrap_or("");
        let line = LINES[(c + k) % LINES.len()];
        let color = COLORS[(c * 3 + k * 5) % COLORS.len()];
        let frame = FRAME_SIZES[(c + k * 2) % FRAME_SIZES.len()];
        let size = SIZES[(c + k) % 6];
        let name = match family {
            "Bikes" => format!(
                "{noun}-{} {color}, {frame}",
                [100, 200, 300, 400, 500, 600, 700, 800][k]
            ),
            "Clothing" => format!("{line} {noun}, {size}"),
            _ if noun.ends_with("Frame") => format!("{line} {noun} - {color}, {frame}"),
            _ => format!("{line} {noun} - {color}"),
        };
        // Price rises with the line; the spread is the category's.
        let step = (k as f64 + ((c * 7 + k * 3) % 5) as f64 / 5.0) / 8.0;
        let price = money(low + (high - low) * step) - if k % 2 == 0 { 0.01 } else { 0.0 };
        let mut tag_refs = vec![tag(color)];
        let discipline = match cat_name {
            n if n.contains("Mountain") => "Mountain",
            n if n.contains("Road") => "Road",
            n if n.contains("Touring") || n.contains("Panniers") => "Touring",
            _ => DISCIPLINES[(c + k) % DISCIPLINES.len()],
        };
        tag_refs.push(tag(discipline));
        if family == "Clothing" {
            tag_refs.push(tag(&format!("Size {size}")));
        }
        if family == "Bikes" || noun.ends_with("Frame") {
            tag_refs.push(tag(&format!("Frame {frame} cm")));
        }
        for extra in [
            OTHER_TAGS[(c * 11 + k * 17) % OTHER_TAGS.len()],
            MATERIALS[(c + k * 3) % MATERIALS.len()],
        ] {
            if tag_refs.len() < 5 && (k + c) % 3 != 0 && !tag_refs.iter().any(|t| t.name == extra) {
                tag_refs.push(tag(extra));
            }
        }
        products.push(Product {
            id: format!("prod-{:04}", i + 1),
            category_id: categories[c].id.clone(),
            category_name: cat_name.into(),
            sku: format!("{sku_prefix}-{}{:03}-{}", &line[..1], i + 1, &color[..1]),
            description: format!(
                "The {name} {purpose}. Part of our {line} line, built for {} riding.",
                discipline.to_lowercase()
            ),
            name,
            price,
            tags: tag_refs,
        });
    }
    Catalog {
        categories,
        tags,
        products,
    }
}

#[cfg(test)]
mod tests {
    use std::collections::HashSet;

    use super::*;

    fn url_safe(id: &str) -> bool {
        !id.is_empty()
            && id
                .chars()
                .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-')
    }

    #[test]
    fn the_catalogue_has_cosmicworks_size_and_consistent_copies() {
        let c = catalog();
        assert_eq!(
            (c.categories.len(), c.tags.len(), c.products.len()),
            (40, 200, 300)
        );
        for ids in [
            c.categories
                .iter()
                .map(|x| x.id.as_str())
                .collect::<Vec<_>>(),
            c.tags.iter().map(|x| x.id.as_str()).collect(),
            c.products.iter().map(|x| x.id.as_str()).collect(),
        ] {
            assert_eq!(
                ids.iter().collect::<HashSet<_>>().len(),
                ids.len(),
                "unique ids"
            );
            assert!(ids.iter().all(|id| url_safe(id)), "{ids:?}");
        }
        let names: HashSet<_> = c.tags.iter().map(|t| &t.name).collect();
        assert_eq!(names.len(), 200, "unique tag names");
        let skus: HashSet<_> = c.products.iter().map(|p| &p.sku).collect();
        assert_eq!(skus.len(), 300, "unique SKUs");
        for p in &c.products {
            let cat = c.categories.iter().find(|x| x.id == p.category_id).unwrap();
            assert_eq!(cat.name, p.category_name);
            assert!(
                (1..=5).contains(&p.tags.len()),
                "{}: {} tags",
                p.name,
                p.tags.len()
            );
            for t in &p.tags {
                assert!(c.tags.iter().any(|x| x.id == t.id && x.name == t.name));
            }
            assert!(
                p.price > 0.0 && (p.price * 100.0 - (p.price * 100.0).round()).abs() < 1e-6,
                "{}",
                p.price
            );
        }
        for cat in &c.categories {
            assert!(
                c.products
                    .iter()
                    .filter(|p| p.category_id == cat.id)
                    .count()
                    >= 5
            );
        }
        assert_eq!(
            c.products[17].name,
            catalog().products[17].name,
            "deterministic"
        );
    }
}
