//! The demo catalogue, in the shape of Microsoft's CosmicWorks sample (the AdventureWorks bike
//! shop as Cosmos DB documents): 40 categories, 200 tags and 300 products.
//!
//! Everything comes from the tables below by index arithmetic, with no randomness at all, so ids,
//! names, SKUs and prices are the same on every call and every machine: the seed can be re-run
//! after a crash, and tests pick products by position.
//!
//! A category lists product *families* ("Mountain-200", "Sport-100 Helmet"); a family comes in
//! colours and sizes, as AdventureWorks products do, and each colour/size combination is one
//! product with its own SKU. A category takes its share of products from its families in turn,
//! so every family is on the shelf.

use crate::model::{Category, Product, Tag, TagRef};

/// The whole demo catalogue, the same on every call and every machine.
#[derive(Debug, Clone, PartialEq)]
pub struct Catalog {
    pub categories: Vec<Category>,
    pub tags: Vec<Tag>,
    pub products: Vec<Product>,
}

/// The whole demo catalogue, the same on every call and every machine.
pub fn catalog() -> Catalog {
    let tags: Vec<Tag> = TAGS
        .iter()
        .map(|&name| Tag {
            id: format!("tag-{}", slug(name)),
            kind: "tag".into(),
            name: name.into(),
        })
        .collect();
    let mut categories = Vec::with_capacity(CATEGORIES.len());
    let mut products = Vec::with_capacity(PRODUCT_COUNT);
    for spec in CATEGORIES.iter() {
        let category = Category {
            id: format!("cat-{}", slug(spec.name)),
            kind: "category".into(),
            name: spec.name.into(),
        };
        for (family, variant) in spec.shelf() {
            let n = products.len();
            products.push(product(n, &category, family, variant, &tags));
        }
        categories.push(category);
    }
    Catalog {
        categories,
        tags,
        products,
    }
}

const PRODUCT_COUNT: usize = 300;
/// CosmicWorks products carry a handful of tags at most.
const MAX_TAGS: usize = 5;

// The category shares must add up to the advertised product count; checked when compiling.
const _: () = {
    let (mut total, mut i) = (0, 0);
    while i < CATEGORIES.len() {
        total += CATEGORIES[i].products;
        i += 1;
    }
    assert!(total == PRODUCT_COUNT, "category shares must add up to 300");
};

/// One product: the family's name, SKU and tags, specialised to one colour/size variant.
fn product(n: usize, category: &Category, family: &Family, v: Variant, tags: &[Tag]) -> Product {
    let mut name = family.name.to_owned();
    let mut wanted: Vec<String> = family.tags.iter().map(|&t| t.to_owned()).collect();
    if let Some(color) = v.color {
        name = name.replace("{color}", color.name);
        wanted.push(color.name.to_owned());
    }
    if let Some(size) = v.size {
        name = name.replace("{size}", size);
        wanted.push(size_tag(size));
    }
    // Shop-floor tags ("On Sale", "Staff Pick") on every third product, taken in turn so each
    // one is carried by some product.
    if n % 3 == 1 {
        wanted.push(MERCH[(n / 3) % MERCH.len()].to_owned());
    }
    let mut refs: Vec<TagRef> = Vec::with_capacity(MAX_TAGS);
    for tag_name in &wanted {
        let tag = tags
            .iter()
            .find(|t| &t.name == tag_name)
            .unwrap_or_else(|| panic!("tag {tag_name:?} of {name:?} is not in TAGS"));
        if refs.len() < MAX_TAGS && !refs.iter().any(|r| r.id == tag.id) {
            refs.push(TagRef {
                id: tag.id.clone(),
                name: tag.name.clone(),
            });
        }
    }
    Product {
        id: format!("prod-{:04}", n + 1),
        category_id: category.id.clone(),
        category_name: category.name.clone(),
        sku: v.sku(family.sku),
        name,
        description: family.about.to_owned(),
        // The tables hold cents already; rounding keeps any arithmetic slip out of the shop.
        price: (family.price * 100.0).round() / 100.0,
        tags: refs,
    }
}

/// Frame sizes are centimetres ("58"), clothing sizes letters ("XL"); each has its own tag.
fn size_tag(size: &str) -> String {
    if size.bytes().all(|b| b.is_ascii_digit()) {
        format!("Frame Size {size}")
    } else {
        format!("Size {size}")
    }
}

/// Lower-case ASCII letters and digits, anything else a single hyphen; apostrophes dropped so
/// "Men's" becomes `mens`, not `men-s`.
fn slug(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars().filter(|&c| c != '\'') {
        if c.is_ascii_alphanumeric() {
            out.push(c.to_ascii_lowercase());
        } else if !out.is_empty() && !out.ends_with('-') {
            out.push('-');
        }
    }
    out.trim_end_matches('-').to_owned()
}

/// A category and how many of the 300 products it holds (bikes and frames get the most, as in
/// AdventureWorks, where they come in many sizes).
struct CategorySpec {
    name: &'static str,
    products: usize,
    families: &'static [Family],
}

const fn spec(name: &'static str, products: usize, families: &'static [Family]) -> CategorySpec {
    CategorySpec {
        name,
        products,
        families,
    }
}

impl CategorySpec {
    /// The category's products: each family's first variant, then each one's second, and so on,
    /// until the category has its share; listed family by family.
    fn shelf(&self) -> Vec<(&Family, Variant)> {
        let variants: Vec<Vec<Variant>> = self.families.iter().map(Family::variants).collect();
        let longest = variants.iter().map(Vec::len).max().unwrap_or(0);
        let mut picked: Vec<(usize, usize)> = (0..longest)
            .flat_map(|k| (0..variants.len()).map(move |f| (f, k)))
            .filter(|&(f, k)| k < variants[f].len())
            .take(self.products)
            .collect();
        picked.sort_unstable();
        picked
            .into_iter()
            .map(|(f, k)| (&self.families[f], variants[f][k]))
            .collect()
    }
}

/// A product line: every colour/size combination is one product.
struct Family {
    /// The product name, with `{color}` and `{size}` where the variant goes.
    name: &'static str,
    /// The AdventureWorks-style SKU stem ("BK-M68"); the variant adds its codes.
    sku: &'static str,
    price: f64,
    colors: &'static [Color],
    sizes: &'static [&'static str],
    /// Names from `TAGS`; the colour and size tags are added per variant.
    tags: &'static [&'static str],
    about: &'static str,
}

impl Family {
    /// Sizes outermost, so the first few variants taken already mix the colours.
    fn variants(&self) -> Vec<Variant> {
        let colors: Vec<Option<Color>> = if self.colors.is_empty() {
            vec![None]
        } else {
            self.colors.iter().copied().map(Some).collect()
        };
        let sizes: Vec<Option<&'static str>> = if self.sizes.is_empty() {
            vec![None]
        } else {
            self.sizes.iter().copied().map(Some).collect()
        };
        sizes
            .iter()
            .flat_map(|&size| colors.iter().map(move |&color| Variant { color, size }))
            .collect()
    }
}

#[derive(Debug, Clone, Copy)]
struct Variant {
    color: Option<Color>,
    size: Option<&'static str>,
}

impl Variant {
    /// AdventureWorks spells a variant into the SKU: `FR-R92R-58` is a red, 58 cm HL Road Frame,
    /// `HL-U509-B` a blue Sport-100 Helmet, `SO-B909-M` a pair of size M socks.
    fn sku(self, stem: &str) -> String {
        match (self.color, self.size) {
            (Some(c), Some(s)) => format!("{stem}{}-{s}", c.code),
            (Some(c), None) => format!("{stem}-{}", c.code),
            (None, Some(s)) => format!("{stem}-{s}"),
            (None, None) => stem.to_owned(),
        }
    }
}

/// A colour as product names and tags spell it, and its one-letter SKU code.
#[derive(Debug, Clone, Copy)]
struct Color {
    name: &'static str,
    code: &'static str,
}

impl Color {
    const fn new(name: &'static str, code: &'static str) -> Color {
        Color { name, code }
    }
}

const BLACK: Color = Color::new("Black", "B");
const BLUE: Color = Color::new("Blue", "U");
const RED: Color = Color::new("Red", "R");
const SILVER: Color = Color::new("Silver", "S");
const YELLOW: Color = Color::new("Yellow", "Y");
const WHITE: Color = Color::new("White", "W");
const GREEN: Color = Color::new("Green", "G");
const ORANGE: Color = Color::new("Orange", "O");
const GREY: Color = Color::new("Grey", "A");
const MULTI: Color = Color::new("Multi", "M");

/// Every tag, each carried by at least one product. Colour and size tags are the ones variants
/// add (`Color::name`, `size_tag`); `MERCH` repeats the shop-floor ones at the end.
const TAGS: [&str; 200] = [
    // Colours.
    "Black",
    "Blue",
    "Red",
    "Silver",
    "Yellow",
    "White",
    "Green",
    "Orange",
    "Grey",
    "Multi",
    // Clothing sizes.
    "Size XS",
    "Size S",
    "Size M",
    "Size L",
    "Size XL",
    "Size XXL",
    // Frame sizes, in centimetres.
    "Frame Size 38",
    "Frame Size 40",
    "Frame Size 42",
    "Frame Size 44",
    "Frame Size 46",
    "Frame Size 48",
    "Frame Size 50",
    "Frame Size 52",
    "Frame Size 54",
    "Frame Size 56",
    "Frame Size 58",
    "Frame Size 60",
    "Frame Size 62",
    // Materials.
    "Carbon",
    "Aluminum",
    "Steel",
    "Chromoly",
    "Titanium",
    "Magnesium",
    "Stainless Steel",
    "Nylon",
    "Polyester",
    "Merino Wool",
    "Lycra",
    "Cotton",
    "Fleece",
    "Leather",
    "Gel",
    "Rubber",
    "Kevlar",
    "Silicone",
    // Riding.
    "Road",
    "Mountain",
    "Touring",
    "Gravel",
    "Cyclocross",
    "Commuting",
    "Racing",
    "Trail",
    "Downhill",
    "Cross-Country",
    "Enduro",
    "Triathlon",
    "Urban",
    "Bikepacking",
    "Kids",
    "E-Bike Compatible",
    // Seasons and weather.
    "Spring",
    "Summer",
    "Autumn",
    "Winter",
    "All-Season",
    "Rain Ready",
    "Cold Weather",
    "Hot Weather",
    // Features.
    "Waterproof",
    "Water-Resistant",
    "Windproof",
    "Breathable",
    "Reflective",
    "Lightweight",
    "Quick-Release",
    "Tubeless Ready",
    "Rechargeable",
    "USB Charging",
    "LED",
    "Padded",
    "Insulated",
    "Anti-Slip",
    "Adjustable",
    "Foldable",
    "Aerodynamic",
    "Ventilated",
    "UV Protection",
    "Moisture-Wicking",
    "Antibacterial",
    "Puncture Resistant",
    "Hydraulic",
    "Mechanical",
    "Disc Brake",
    "Rim Brake",
    "Boost Spacing",
    "Thru-Axle",
    "Tool-Free",
    "Compact",
    "Heavy Duty",
    "Keyed",
    "Combination Lock",
    "Biodegradable",
    "Low Maintenance",
    "Stiff",
    "Comfort Fit",
    "Race Fit",
    "Relaxed Fit",
    "Slim Fit",
    "Seamless",
    "Pockets",
    "Packable",
    "MIPS",
    "High Visibility",
    // Specifications.
    "26-inch",
    "27.5-inch",
    "29-inch",
    "700c",
    "650b",
    "9-Speed",
    "10-Speed",
    "11-Speed",
    "12-Speed",
    "1x Drivetrain",
    "2x Drivetrain",
    "3x Drivetrain",
    "Shimano Compatible",
    "SRAM Compatible",
    "Campagnolo Compatible",
    "Presta Valve",
    "Schrader Valve",
    "Clipless",
    "Flat Pedal",
    "Threaded BB",
    "Press-Fit BB",
    "Tapered Steerer",
    "Straight Steerer",
    "31.8 mm Clamp",
    "35 mm Clamp",
    "100 mm Travel",
    "120 mm Travel",
    "140 mm Travel",
    "160 mm Travel",
    "Rigid",
    "Hardtail",
    "Full Suspension",
    "Drop Bar",
    "Flat Bar",
    "Riser Bar",
    "Inner Tube",
    "Clincher",
    "2 L Capacity",
    "3 L Capacity",
    "1000 Lumens",
    // Series and editions.
    "Team Edition",
    "Pro Series",
    "Sport Series",
    "Classic Line",
    "Limited Edition",
    "AWC Logo",
    "Heritage Collection",
    "Signature Series",
    "Expedition Series",
    "Factory Racing",
    "Elite",
    "Comp",
    "Expert",
    "Club",
    "Endurance",
    "Podium",
    "HL Series",
    "ML Series",
    "LL Series",
    "Marathon",
    // Who it is for.
    "Men's",
    "Women's",
    "Unisex",
    "Youth",
    // Price range and warranty.
    "Eco Choice",
    "Budget Friendly",
    "Entry Level",
    "Mid Range",
    "Premium",
    "High End",
    "Lifetime Warranty",
    "2-Year Warranty",
    // Shop floor (`MERCH`).
    "New Arrival",
    "Best Seller",
    "On Sale",
    "Clearance",
    "Staff Pick",
    "Gift Idea",
    "Bundle Deal",
    "Online Exclusive",
    "Back in Stock",
    "Top Rated",
    "Free Shipping",
    "Award Winner",
];

/// Tags any product may carry, handed out in turn (see `product`).
const MERCH: [&str; 12] = [
    "New Arrival",
    "Best Seller",
    "On Sale",
    "Clearance",
    "Staff Pick",
    "Gift Idea",
    "Bundle Deal",
    "Online Exclusive",
    "Back in Stock",
    "Top Rated",
    "Free Shipping",
    "Award Winner",
];

/// The CosmicWorks categories, in its order; `products` adds up to `PRODUCT_COUNT`.
const CATEGORIES: [CategorySpec; 40] = [
    spec("Accessories, Bike Racks", 5, BIKE_RACKS),
    spec("Accessories, Bike Stands", 5, BIKE_STANDS),
    spec("Accessories, Bottles and Cages", 8, BOTTLES_AND_CAGES),
    spec("Accessories, Cleaners", 5, CLEANERS),
    spec("Accessories, Fenders", 5, FENDERS),
    spec("Accessories, Helmets", 9, HELMETS),
    spec("Accessories, Hydration Packs", 5, HYDRATION_PACKS),
    spec("Accessories, Lights", 8, LIGHTS),
    spec("Accessories, Locks", 6, LOCKS),
    spec("Accessories, Panniers", 6, PANNIERS),
    spec("Accessories, Pumps", 6, PUMPS),
    spec("Accessories, Tires and Tubes", 12, TIRES_AND_TUBES),
    spec("Accessories, Bags", 6, BAGS),
    spec("Bikes, Mountain Bikes", 21, MOUNTAIN_BIKES),
    spec("Bikes, Road Bikes", 22, ROAD_BIKES),
    spec("Bikes, Touring Bikes", 14, TOURING_BIKES),
    spec("Clothing, Bib-Shorts", 6, BIB_SHORTS),
    spec("Clothing, Caps", 5, CAPS),
    spec("Clothing, Gloves", 8, GLOVES),
    spec("Clothing, Jerseys", 10, JERSEYS),
    spec("Clothing, Shorts", 8, SHORTS),
    spec("Clothing, Socks", 6, SOCKS),
    spec("Clothing, Tights", 5, TIGHTS),
    spec("Clothing, Vests", 5, VESTS),
    spec("Clothing, Jackets", 7, JACKETS),
    spec("Components, Bottom Brackets", 5, BOTTOM_BRACKETS),
    spec("Components, Brakes", 6, BRAKES),
    spec("Components, Chains", 5, CHAINS),
    spec("Components, Cranksets", 6, CRANKSETS),
    spec("Components, Derailleurs", 6, DERAILLEURS),
    spec("Components, Forks", 5, FORKS),
    spec("Components, Handlebars", 6, HANDLEBARS),
    spec("Components, Headsets", 5, HEADSETS),
    spec("Components, Mountain Frames", 10, MOUNTAIN_FRAMES),
    spec("Components, Pedals", 6, PEDALS),
    spec("Components, Road Frames", 12, ROAD_FRAMES),
    spec("Components, Saddles", 6, SADDLES),
    spec("Components, Touring Frames", 6, TOURING_FRAMES),
    spec("Components, Wheels", 8, WHEELS),
    spec("Components, Cassettes", 5, CASSETTES),
];

// Accessories: $5 to $200.

const BIKE_RACKS: &[Family] = &[
    Family {
        name: "Hitch Rack - 4-Bike",
        sku: "RA-H123",
        price: 120.00,
        colors: &[],
        sizes: &[],
        tags: &["Heavy Duty", "Steel", "Foldable"],
        about: "Carries four bikes on a standard 2-inch receiver hitch. Folds flat against the car when not in use.",
    },
    Family {
        name: "Hitch Rack - 2-Bike",
        sku: "RA-H122",
        price: 89.99,
        colors: &[],
        sizes: &[],
        tags: &["Tool-Free", "Aluminum", "E-Bike Compatible"],
        about: "A platform rack for two bikes that clamps the wheels, not the frame. Rated for heavier e-bikes.",
    },
    Family {
        name: "Roof Rack - Fork Mount",
        sku: "RA-R310",
        price: 149.99,
        colors: &[],
        sizes: &[],
        tags: &["Aerodynamic", "Keyed", "Road"],
        about: "Holds one bike by its fork on your roof bars, front wheel off. The skewer locks with the included key.",
    },
    Family {
        name: "Trunk Rack - 3-Bike",
        sku: "RA-T205",
        price: 74.99,
        colors: &[],
        sizes: &[],
        tags: &["Adjustable", "Padded", "Budget Friendly"],
        about: "Straps to the trunk or hatch of most cars without tools. Padded feet protect the paint.",
    },
    Family {
        name: "Wall Rack - Vertical",
        sku: "RA-W050",
        price: 34.99,
        colors: &[],
        sizes: &[],
        tags: &["Compact", "Urban"],
        about: "Hangs a bike by its front wheel to free up floor space in a flat or garage.",
    },
];

const BIKE_STANDS: &[Family] = &[
    Family {
        name: "All-Purpose Bike Stand",
        sku: "ST-1401",
        price: 159.00,
        colors: &[],
        sizes: &[],
        tags: &["Adjustable", "Heavy Duty", "Aluminum"],
        about: "Perfect all-purpose bike stand for working on your bike at home. Quick-adjusting clamps and steel construction.",
    },
    Family {
        name: "Folding Repair Stand",
        sku: "ST-1405",
        price: 119.99,
        colors: &[],
        sizes: &[],
        tags: &["Foldable", "Lightweight", "Packable"],
        about: "Sets up in seconds at the trailhead or the race and folds into its own carry bag.",
    },
    Family {
        name: "Display Stand - Rear Wheel",
        sku: "ST-2101",
        price: 24.99,
        colors: &[],
        sizes: &[],
        tags: &["Steel", "Rubber"],
        about: "Keeps a bike upright by the rear wheel. Rubber-coated so it never scratches a rim.",
    },
    Family {
        name: "Pro Workshop Stand",
        sku: "ST-3300",
        price: 199.00,
        colors: &[],
        sizes: &[],
        tags: &["Pro Series", "Quick-Release", "Stiff"],
        about: "The stand our own mechanics use: a stiff tripod base and a quick-release clamp that rotates 360 degrees.",
    },
    Family {
        name: "Kickstand - Center Mount",
        sku: "ST-0810",
        price: 19.99,
        colors: &[],
        sizes: &[],
        tags: &["Aluminum", "Commuting", "Touring"],
        about: "A sturdy center-mount kickstand that holds a loaded touring or commuter bike.",
    },
];

const BOTTLES_AND_CAGES: &[Family] = &[
    Family {
        name: "Water Bottle - 30 oz., {color}",
        sku: "WB-H098",
        price: 5.99,
        colors: &[BLUE, WHITE, GREY],
        sizes: &[],
        tags: &["Eco Choice", "Silicone"],
        about: "AWC logo water bottle that holds 30 oz. of water, with a soft silicone valve.",
    },
    Family {
        name: "Insulated Bottle - 21 oz., {color}",
        sku: "WB-I210",
        price: 14.99,
        colors: &[BLACK, SILVER],
        sizes: &[],
        tags: &["Insulated", "Hot Weather"],
        about: "Double-walled to keep drinks cold for two hours on the hottest rides.",
    },
    Family {
        name: "Mountain Bottle Cage",
        sku: "BC-M005",
        price: 9.99,
        colors: &[],
        sizes: &[],
        tags: &["Aluminum", "Mountain"],
        about: "Tough aluminum cage that holds a bottle firmly over rough trails.",
    },
    Family {
        name: "Road Bottle Cage",
        sku: "BC-R205",
        price: 8.99,
        colors: &[],
        sizes: &[],
        tags: &["Carbon", "Road", "Lightweight"],
        about: "A featherweight carbon cage for the road. Weighs just 18 grams.",
    },
    Family {
        name: "Side-Entry Bottle Cage",
        sku: "BC-S110",
        price: 12.99,
        colors: &[],
        sizes: &[],
        tags: &["Compact", "Gravel"],
        about: "Loads from the side, so a bottle fits in small frames and under frame bags.",
    },
];

const CLEANERS: &[Family] = &[
    Family {
        name: "Bike Wash - Dissolver",
        sku: "CL-9009",
        price: 7.95,
        colors: &[],
        sizes: &[],
        tags: &["Biodegradable", "Eco Choice"],
        about: "Washes off the toughest road grime; dissolves grease, environmentally safe. 1-liter bottle.",
    },
    Family {
        name: "Chain Degreaser",
        sku: "CL-9110",
        price: 11.99,
        colors: &[],
        sizes: &[],
        tags: &["Low Maintenance", "Biodegradable"],
        about: "Cuts through old lube and grit in minutes. Rinses off with water.",
    },
    Family {
        name: "Dry Chain Lube",
        sku: "CL-9201",
        price: 9.49,
        colors: &[],
        sizes: &[],
        tags: &["Summer", "Road"],
        about: "A wax-based lube that stays clean on dry, dusty rides.",
    },
    Family {
        name: "Wet Chain Lube",
        sku: "CL-9202",
        price: 9.49,
        colors: &[],
        sizes: &[],
        tags: &["Rain Ready", "Winter"],
        about: "Clings to the chain through rain, mud and salted winter roads.",
    },
    Family {
        name: "Cleaning Brush Kit",
        sku: "CL-9350",
        price: 19.99,
        colors: &[],
        sizes: &[],
        tags: &["Nylon", "Compact"],
        about: "Five nylon brushes shaped for cassettes, chainrings, rims and frames.",
    },
];

const FENDERS: &[Family] = &[
    Family {
        name: "Fender Set - Mountain",
        sku: "FE-6654",
        price: 21.98,
        colors: &[],
        sizes: &[],
        tags: &["Mountain", "Rain Ready", "Quick-Release"],
        about: "Clip-on fenders fit most mountain bikes.",
    },
    Family {
        name: "Fender Set - Road, {color}",
        sku: "FE-6655",
        price: 29.99,
        colors: &[BLACK, SILVER],
        sizes: &[],
        tags: &["Road", "Winter"],
        about: "Slim fenders that fit road frames with tight clearances. Keeps the spray off you and your group.",
    },
    Family {
        name: "Clip-On Rear Fender",
        sku: "FE-6710",
        price: 14.99,
        colors: &[],
        sizes: &[],
        tags: &["Tool-Free", "Commuting"],
        about: "Snaps onto the seat post in seconds for a dry ride to work.",
    },
    Family {
        name: "Touring Fender Set - Full Length",
        sku: "FE-6800",
        price: 44.99,
        colors: &[],
        sizes: &[],
        tags: &["Touring", "Stainless Steel", "All-Season"],
        about: "Full-length fenders with mud flaps and stainless steel stays, built for years of touring.",
    },
];

const HELMETS: &[Family] = &[
    Family {
        name: "Sport-100 Helmet, {color}",
        sku: "HL-U509",
        price: 34.99,
        colors: &[RED, BLACK, BLUE],
        sizes: &[],
        tags: &["Sport Series", "Ventilated"],
        about: "Universal fit, well-vented, lightweight, snap-on visor.",
    },
    Family {
        name: "Road Aero Helmet, {color}",
        sku: "HL-R720",
        price: 149.99,
        colors: &[WHITE, BLACK, YELLOW],
        sizes: &[],
        tags: &["Aerodynamic", "MIPS", "Signature Series"],
        about:
            "A wind-tunnel-shaped shell with MIPS protection, for riders who count every second.",
    },
    Family {
        name: "Mountain Trail Helmet, {color}",
        sku: "HL-M410",
        price: 89.99,
        colors: &[GREY, GREEN, ORANGE],
        sizes: &[],
        tags: &["Trail", "Adjustable", "MIPS"],
        about: "Extended rear coverage and an adjustable visor for long days on the trail.",
    },
    Family {
        name: "Kids' Helmet, {color}",
        sku: "HL-K120",
        price: 29.99,
        colors: &[BLUE, MULTI],
        sizes: &[],
        tags: &["Kids", "Reflective"],
        about: "A light, colorful helmet with a pinch-free buckle and reflective details.",
    },
];

const HYDRATION_PACKS: &[Family] = &[
    Family {
        name: "Hydration Pack - 70 oz., {color}",
        sku: "HY-1023",
        price: 54.99,
        colors: &[SILVER, BLACK],
        sizes: &[],
        tags: &["2 L Capacity", "Mountain"],
        about: "Versatile 70 oz hydration pack offers extra storage, easy-fill access, and a waist belt.",
    },
    Family {
        name: "Hydration Pack - 100 oz.",
        sku: "HY-1030",
        price: 69.99,
        colors: &[],
        sizes: &[],
        tags: &["3 L Capacity", "Enduro", "Pockets"],
        about: "A 3-liter reservoir and room for a jacket, tools and lunch: enough for a full day out.",
    },
    Family {
        name: "Race Hydration Vest",
        sku: "HY-1110",
        price: 84.99,
        colors: &[],
        sizes: &[],
        tags: &["Cross-Country", "Lightweight", "Race Fit"],
        about: "A close-fitting vest with soft flasks that never bounce, for marathon and cross-country racing.",
    },
    Family {
        name: "Hip Pack - 1.5 L",
        sku: "HY-1205",
        price: 44.99,
        colors: &[],
        sizes: &[],
        tags: &["Trail", "Compact"],
        about: "Carries water and the essentials on your hips, leaving your back cool.",
    },
];

const LIGHTS: &[Family] = &[
    Family {
        name: "Headlights - Dual-Beam",
        sku: "LT-H902",
        price: 34.99,
        colors: &[],
        sizes: &[],
        tags: &["LED", "Rechargeable"],
        about: "Rechargeable dual-beam headlight with a wide flood and a long spot.",
    },
    Family {
        name: "Headlights - Weatherproof",
        sku: "LT-H903",
        price: 44.99,
        colors: &[],
        sizes: &[],
        tags: &["Waterproof", "LED", "2-Year Warranty"],
        about: "Rugged weatherproof headlight that keeps shining in a downpour.",
    },
    Family {
        name: "Taillights - Battery-Powered",
        sku: "LT-T990",
        price: 13.99,
        colors: &[],
        sizes: &[],
        tags: &["LED", "High Visibility"],
        about: "Affordable light for safe night riding - uses 3 AAA batteries.",
    },
    Family {
        name: "Trail Light - 1000 Lumens",
        sku: "LT-H950",
        price: 129.99,
        colors: &[],
        sizes: &[],
        tags: &["1000 Lumens", "USB Charging", "Mountain"],
        about: "Turns night rides into day rides: 1000 lumens for two hours on a single charge.",
    },
    Family {
        name: "Commuter Light Set",
        sku: "LT-S400",
        price: 39.99,
        colors: &[],
        sizes: &[],
        tags: &["Commuting", "USB Charging", "Urban"],
        about: "A front and rear pair that charges from any USB port at your desk.",
    },
    Family {
        name: "Spoke Lights - 4 Pack",
        sku: "LT-S120",
        price: 12.99,
        colors: &[],
        sizes: &[],
        tags: &["Kids", "Limited Edition"],
        about: "Colorful lights that clip onto the spokes and light up the wheels as they turn.",
    },
    Family {
        name: "Helmet Light",
        sku: "LT-M220",
        price: 49.99,
        colors: &[],
        sizes: &[],
        tags: &["Lightweight", "Rechargeable", "Trail"],
        about: "Points wherever you look, so you can see round the next corner before you turn.",
    },
    Family {
        name: "Dynamo Headlight",
        sku: "LT-D300",
        price: 79.99,
        colors: &[],
        sizes: &[],
        tags: &["Touring", "Low Maintenance", "LED"],
        about: "Powered by a hub dynamo, so it never needs charging on a long tour.",
    },
];

const LOCKS: &[Family] = &[
    Family {
        name: "Cable Lock",
        sku: "LO-C100",
        price: 25.00,
        colors: &[],
        sizes: &[],
        tags: &["Keyed", "Commuting"],
        about: "Wraps to fit front and rear tires, carrier and 2 keys included.",
    },
    Family {
        name: "U-Lock - Standard",
        sku: "LO-U200",
        price: 44.99,
        colors: &[],
        sizes: &[],
        tags: &["Heavy Duty", "Steel", "Keyed"],
        about: "A hardened steel shackle that resists bolt cutters. Comes with a frame bracket.",
    },
    Family {
        name: "Folding Lock",
        sku: "LO-F300",
        price: 69.99,
        colors: &[],
        sizes: &[],
        tags: &["Foldable", "Compact", "Steel"],
        about: "Linked steel plates that fold into a holster the size of a bottle.",
    },
    Family {
        name: "Combination Cable Lock, {color}",
        sku: "LO-C150",
        price: 17.99,
        colors: &[BLACK, RED],
        sizes: &[],
        tags: &["Combination Lock", "Lightweight"],
        about: "A light coiled cable with a resettable four-digit combination. No keys to lose.",
    },
    Family {
        name: "Chain Lock - 110 cm",
        sku: "LO-H400",
        price: 89.99,
        colors: &[],
        sizes: &[],
        tags: &["Heavy Duty", "Urban"],
        about: "A long, heavy chain in a fabric sleeve, for bikes left in the city overnight.",
    },
];

const PANNIERS: &[Family] = &[
    Family {
        name: "Touring-Panniers, Large",
        sku: "PA-T100",
        price: 125.00,
        colors: &[],
        sizes: &[],
        tags: &["Touring", "Waterproof", "Quick-Release"],
        about: "Durable, water-proof, easy to install.",
    },
    Family {
        name: "Touring-Panniers, Small",
        sku: "PA-T050",
        price: 95.00,
        colors: &[],
        sizes: &[],
        tags: &["Touring", "Water-Resistant"],
        about: "Front-rack panniers that balance a loaded touring bike.",
    },
    Family {
        name: "Commuter Pannier, {color}",
        sku: "PA-C200",
        price: 69.99,
        colors: &[BLACK, GREY],
        sizes: &[],
        tags: &["Commuting", "Reflective", "Pockets"],
        about:
            "Fits a laptop and a change of clothes, and unclips into a shoulder bag at the office.",
    },
    Family {
        name: "Roll-Top Pannier, {color}",
        sku: "PA-R300",
        price: 89.99,
        colors: &[YELLOW, BLACK],
        sizes: &[],
        tags: &["Waterproof", "Bikepacking"],
        about: "A welded roll-top bag that keeps everything dry through days of rain.",
    },
];

const PUMPS: &[Family] = &[
    Family {
        name: "Minipump",
        sku: "PU-0452",
        price: 19.99,
        colors: &[],
        sizes: &[],
        tags: &["Compact", "Presta Valve", "Schrader Valve"],
        about: "Designed for convenience. Fits in your pocket. Aluminum barrel. 160psi rated.",
    },
    Family {
        name: "Mountain Pump",
        sku: "PU-M044",
        price: 24.99,
        colors: &[],
        sizes: &[],
        tags: &["Mountain", "Schrader Valve"],
        about: "Simple and light-weight. Emergency patches stored in handle.",
    },
    Family {
        name: "Floor Pump",
        sku: "PU-F100",
        price: 49.99,
        colors: &[],
        sizes: &[],
        tags: &["Heavy Duty", "Presta Valve", "Schrader Valve"],
        about: "A big gauge and a steel barrel for fast, accurate inflation at home.",
    },
    Family {
        name: "CO2 Inflator",
        sku: "PU-C020",
        price: 22.99,
        colors: &[],
        sizes: &[],
        tags: &["Racing", "Compact", "Lightweight"],
        about: "Reinflates a road tire in three seconds. Two cartridges included.",
    },
    Family {
        name: "Shock Pump",
        sku: "PU-S300",
        price: 39.99,
        colors: &[],
        sizes: &[],
        tags: &["Full Suspension", "Mountain"],
        about: "High-pressure pump with a precise gauge for air forks and shocks.",
    },
    Family {
        name: "Road Frame Pump",
        sku: "PU-R080",
        price: 27.99,
        colors: &[],
        sizes: &[],
        tags: &["Road", "Presta Valve"],
        about: "Mounts beside the bottle cage and reaches 120 psi.",
    },
];

const TIRES_AND_TUBES: &[Family] = &[
    Family {
        name: "Patch Kit/8 Patches",
        sku: "PK-7098",
        price: 5.49,
        colors: &[],
        sizes: &[],
        tags: &["Compact", "Inner Tube"],
        about: "Inexpensive kit that repairs eight punctures: patches, glue and a scuffer.",
    },
    Family {
        name: "Mountain Tire Tube",
        sku: "TT-M928",
        price: 5.99,
        colors: &[],
        sizes: &[],
        tags: &["Mountain", "Inner Tube", "Schrader Valve"],
        about: "Self-sealing tube for mountain tires.",
    },
    Family {
        name: "Road Tire Tube",
        sku: "TT-R982",
        price: 5.49,
        colors: &[],
        sizes: &[],
        tags: &["Road", "Inner Tube", "Presta Valve"],
        about: "Conventional replacement tube for road tires.",
    },
    Family {
        name: "Touring Tire Tube",
        sku: "TT-T092",
        price: 6.49,
        colors: &[],
        sizes: &[],
        tags: &["Touring", "Inner Tube"],
        about: "General purpose tube for touring tires.",
    },
    Family {
        name: "LL Mountain Tire",
        sku: "TI-M267",
        price: 24.99,
        colors: &[],
        sizes: &[],
        tags: &["LL Series", "26-inch", "Mountain"],
        about: "Comparable traction, less expensive wire bead casing.",
    },
    Family {
        name: "ML Mountain Tire",
        sku: "TI-M602",
        price: 29.99,
        colors: &[],
        sizes: &[],
        tags: &["ML Series", "27.5-inch", "Trail"],
        about: "Great traction, high-density rubber.",
    },
    Family {
        name: "HL Mountain Tire",
        sku: "TI-M823",
        price: 35.00,
        colors: &[],
        sizes: &[],
        tags: &["HL Series", "29-inch", "Tubeless Ready"],
        about: "Incredible traction, lightweight carbon reinforced casing.",
    },
    Family {
        name: "LL Road Tire",
        sku: "TI-R092",
        price: 21.49,
        colors: &[],
        sizes: &[],
        tags: &["LL Series", "700c", "Clincher"],
        about: "Same great treads as our more expensive tire, at an economical price.",
    },
    Family {
        name: "ML Road Tire",
        sku: "TI-R628",
        price: 24.99,
        colors: &[],
        sizes: &[],
        tags: &["ML Series", "700c", "Puncture Resistant"],
        about: "Higher density rubber and a puncture belt under the tread.",
    },
    Family {
        name: "HL Road Tire",
        sku: "TI-R982",
        price: 32.60,
        colors: &[],
        sizes: &[],
        tags: &["HL Series", "700c", "Kevlar"],
        about: "Lightweight Kevlar-bead tire with a supple casing for fast group rides.",
    },
    Family {
        name: "Touring Tire",
        sku: "TI-T723",
        price: 28.99,
        colors: &[],
        sizes: &[],
        tags: &["Touring", "Marathon", "650b"],
        about: "High durability for long-distance touring, with a thick puncture guard.",
    },
    Family {
        name: "Gravel Tire - 40 mm",
        sku: "TI-G440",
        price: 44.99,
        colors: &[],
        sizes: &[],
        tags: &["Gravel", "Tubeless Ready", "Puncture Resistant"],
        about: "A fast center ridge and knobbed shoulders for loose gravel and hardpack alike.",
    },
];

const BAGS: &[Family] = &[
    Family {
        name: "Saddle Bag - Small",
        sku: "BG-S100",
        price: 19.99,
        colors: &[],
        sizes: &[],
        tags: &["Compact", "Road"],
        about: "Holds a tube, levers and a mini tool under the saddle.",
    },
    Family {
        name: "Frame Bag",
        sku: "BG-F200",
        price: 49.99,
        colors: &[],
        sizes: &[],
        tags: &["Bikepacking", "Water-Resistant"],
        about: "Fills the front triangle with storage while keeping the weight low and centered.",
    },
    Family {
        name: "Handlebar Bag",
        sku: "BG-H300",
        price: 59.99,
        colors: &[],
        sizes: &[],
        tags: &["Touring", "Quick-Release"],
        about: "A map window on top and a quick-release mount, to take it along when you stop.",
    },
    Family {
        name: "Top Tube Bag",
        sku: "BG-T150",
        price: 29.99,
        colors: &[],
        sizes: &[],
        tags: &["Triathlon", "Pockets"],
        about: "Keeps gels and a phone within reach while you ride.",
    },
    Family {
        name: "Cycling Backpack - 20 L, {color}",
        sku: "BG-B400",
        price: 79.99,
        colors: &[BLACK, GREY],
        sizes: &[],
        tags: &["Commuting", "Reflective", "Padded"],
        about: "A ventilated back panel and a padded laptop sleeve for the daily ride to work.",
    },
];

// Bikes: $500 to $3,500. Bikes and frames come in centimetre frame sizes.

const MOUNTAIN_BIKES: &[Family] = &[
    Family {
        name: "Mountain-100 {color}, {size}",
        sku: "BK-M82",
        price: 3399.99,
        colors: &[SILVER, BLACK],
        sizes: &["38", "42", "44", "48"],
        tags: &["Full Suspension", "100 mm Travel", "Elite"],
        about: "Top-of-the-line competition mountain bike. Performance-enhancing options include the innovative HL Frame, super-smooth front suspension, and traction for all terrain.",
    },
    Family {
        name: "Mountain-200 {color}, {size}",
        sku: "BK-M68",
        price: 2294.99,
        colors: &[BLACK, SILVER],
        sizes: &["40", "42", "46"],
        tags: &["Full Suspension", "120 mm Travel", "Expert"],
        about: "Serious back-country riding. Perfect for all levels of competition. Uses the same HL Frame as the Mountain-100.",
    },
    Family {
        name: "Mountain-300 {color}, {size}",
        sku: "BK-M47",
        price: 1079.99,
        colors: &[BLACK],
        sizes: &["38", "40", "44", "48"],
        tags: &["Hardtail", "29-inch", "Comp"],
        about: "For true trail addicts. An extremely durable bike that will go anywhere and keep you in control on challenging terrain - without breaking your budget.",
    },
    Family {
        name: "Mountain-400-W {color}, {size}",
        sku: "BK-M38",
        price: 769.49,
        colors: &[SILVER],
        sizes: &["38", "40", "42", "46"],
        tags: &["Hardtail", "Women's", "27.5-inch"],
        about: "This bike delivers a high-level of performance on a budget. It is responsive and maneuverable, and offers peace-of-mind when you decide to go off-road.",
    },
    Family {
        name: "Mountain-500 {color}, {size}",
        sku: "BK-M18",
        price: 539.99,
        colors: &[SILVER, BLACK],
        sizes: &["40", "42", "44", "48", "52"],
        tags: &["Hardtail", "Entry Level", "26-inch"],
        about: "Suitable for any type of riding, on or off-road. Fits any budget. Smooth-shifting with a comfortable ride.",
    },
    Family {
        name: "Trail-600 {color}, {size}",
        sku: "BK-M60",
        price: 2649.00,
        colors: &[GREEN, BLACK],
        sizes: &["42", "44", "46"],
        tags: &["Trail", "140 mm Travel", "Thru-Axle"],
        about: "A playful trail bike that climbs willingly and descends with confidence.",
    },
    Family {
        name: "Enduro-900 {color}, {size}",
        sku: "BK-E90",
        price: 3299.00,
        colors: &[ORANGE, GREY],
        sizes: &["44", "46", "48"],
        tags: &["Enduro", "160 mm Travel", "Limited Edition"],
        about: "A long-travel carbon enduro race bike in a limited run. Built for timed descents and the climbs between them.",
    },
    Family {
        name: "Downhill-800 {color}, {size}",
        sku: "BK-D80",
        price: 3449.99,
        colors: &[BLACK, RED],
        sizes: &["42", "46", "48"],
        tags: &["Downhill", "Full Suspension", "High End"],
        about: "Big travel, a slack head angle and downhill-rated brakes for bike parks and race runs.",
    },
];

const ROAD_BIKES: &[Family] = &[
    Family {
        name: "Road-150 {color}, {size}",
        sku: "BK-R93",
        price: 3449.99,
        colors: &[RED],
        sizes: &["52", "56", "62"],
        tags: &["Carbon", "Factory Racing", "Premium"],
        about: "This bike is ridden by race winners. Developed with the Adventure Works Cycles professional race team, it has an extremely light carbon frame and aerodynamic handlebars.",
    },
    Family {
        name: "Road-250 {color}, {size}",
        sku: "BK-R89",
        price: 2443.35,
        colors: &[RED, BLACK],
        sizes: &["44", "48", "52", "58"],
        tags: &["Aluminum", "Endurance", "Disc Brake"],
        about: "Aluminum-alloy frame provides a light, stiff ride, whether you are racing in the velodrome or on a demanding club ride on country roads.",
    },
    Family {
        name: "Road-350-W {color}, {size}",
        sku: "BK-R79",
        price: 1700.99,
        colors: &[YELLOW],
        sizes: &["40", "42", "44", "48"],
        tags: &["Women's", "Aluminum", "11-Speed"],
        about: "Cross-train, race, or just socialize on a sleek, aerodynamic bike designed for a woman. Advanced seat technology provides comfort all day.",
    },
    Family {
        name: "Road-450 {color}, {size}",
        sku: "BK-R68",
        price: 1457.99,
        colors: &[RED],
        sizes: &["44", "52", "58", "60"],
        tags: &["Aluminum", "2x Drivetrain", "Rim Brake"],
        about: "A true multi-sport bike that offers streamlined riding and a revolutionary design. Aerodynamic design lets you ride with the pros.",
    },
    Family {
        name: "Road-550-W {color}, {size}",
        sku: "BK-R64",
        price: 1120.49,
        colors: &[YELLOW],
        sizes: &["38", "40", "42", "44", "48"],
        tags: &["Women's", "Mid Range", "10-Speed"],
        about: "Same technology as all of our Road series bikes, but the frame is sized for a woman. Perfect all-around bike for road or racing.",
    },
    Family {
        name: "Road-650 {color}, {size}",
        sku: "BK-R50",
        price: 782.99,
        colors: &[RED, BLACK],
        sizes: &["44", "48", "52", "58", "60", "62"],
        tags: &["Entry Level", "Rim Brake", "9-Speed"],
        about: "Value-priced bike with many features of our top-of-the-line models. Has the same light, stiff frame, and the quick acceleration we're famous for.",
    },
    Family {
        name: "Road-750 {color}, {size}",
        sku: "BK-R19",
        price: 539.99,
        colors: &[BLACK],
        sizes: &["44", "48", "52", "58"],
        tags: &["Budget Friendly", "Steel", "Club"],
        about: "Entry level adult bike; offers a comfortable ride cross-country or down the block. Quick-release hubs and rims.",
    },
    Family {
        name: "Gravel-500 {color}, {size}",
        sku: "BK-G50",
        price: 1649.00,
        colors: &[GREEN, GREY],
        sizes: &["50", "54", "56"],
        tags: &["Gravel", "1x Drivetrain", "Disc Brake"],
        about: "Wide tires, a relaxed position and a simple 1x drivetrain for roads that turn to dirt.",
    },
    Family {
        name: "Cyclocross-400 {color}, {size}",
        sku: "BK-C40",
        price: 1899.99,
        colors: &[ORANGE],
        sizes: &["50", "52", "54", "56"],
        tags: &["Cyclocross", "Thru-Axle", "Tubeless Ready"],
        about: "A light, agile race bike for mud, barriers and run-ups. Easy to shoulder, quick to remount.",
    },
    Family {
        name: "Tri-900 {color}, {size}",
        sku: "BK-A90",
        price: 3199.00,
        colors: &[WHITE],
        sizes: &["54", "56", "58"],
        tags: &["Triathlon", "Aerodynamic", "12-Speed"],
        about: "A time-trial frame with integrated aero bars, for triathletes chasing a personal best.",
    },
];

const TOURING_BIKES: &[Family] = &[
    Family {
        name: "Touring-1000 {color}, {size}",
        sku: "BK-T79",
        price: 2384.07,
        colors: &[BLUE, YELLOW],
        sizes: &["46", "50", "54", "60"],
        tags: &["Touring", "Aluminum", "3x Drivetrain"],
        about: "Travel in style and comfort. Designed for maximum comfort and safety. Wide gear range takes on all hills. High-tech aluminum alloy construction provides durability without added weight.",
    },
    Family {
        name: "Touring-2000 {color}, {size}",
        sku: "BK-T44",
        price: 1214.85,
        colors: &[BLUE],
        sizes: &["46", "50", "54", "60"],
        tags: &["Touring", "Mid Range", "Rim Brake"],
        about: "The plush custom saddle keeps you riding all day, and there's plenty of space to add panniers and bike bags to the newly-redesigned carrier. This bike has stability when fully-loaded.",
    },
    Family {
        name: "Touring-3000 {color}, {size}",
        sku: "BK-T18",
        price: 742.35,
        colors: &[YELLOW, BLUE],
        sizes: &["44", "50", "54", "58", "62"],
        tags: &["Touring", "Entry Level", "Steel"],
        about: "All-occasion value bike with our basic comfort and safety features. Offers wider, more stable tires for a ride around town or weekend trip.",
    },
    Family {
        name: "Expedition-5000 {color}, {size}",
        sku: "BK-T95",
        price: 2899.00,
        colors: &[GREY, GREEN],
        sizes: &["50", "54", "58"],
        tags: &["Expedition Series", "Chromoly", "Bikepacking"],
        about: "A chromoly expedition bike with racks front and rear, made to cross continents.",
    },
    Family {
        name: "City-300 {color}, {size}",
        sku: "BK-U30",
        price: 649.99,
        colors: &[WHITE, BLACK],
        sizes: &["44", "48", "52"],
        tags: &["Urban", "Rigid", "Flat Bar"],
        about: "An upright city bike with fenders, a rack and a chain guard, ready for the daily commute.",
    },
];

// Clothing: $8 to $90, in letter sizes.

const BIB_SHORTS: &[Family] = &[
    Family {
        name: "Men's Bib-Shorts, {size}",
        sku: "SB-M891",
        price: 89.99,
        colors: &[],
        sizes: &["S", "M", "L"],
        tags: &["Men's", "Lycra", "Padded"],
        about: "Designed for the AWC team with stay-put straps, moisture-control, chamois padding, and leg grippers.",
    },
    Family {
        name: "Women's Bib-Shorts, {size}",
        sku: "SB-W892",
        price: 89.99,
        colors: &[],
        sizes: &["S", "M", "L"],
        tags: &["Women's", "Lycra", "Padded"],
        about: "A women's-specific chamois and a drop-tail design for long days in the saddle.",
    },
    Family {
        name: "Thermal Bib-Shorts, {size}",
        sku: "SB-T895",
        price: 79.99,
        colors: &[],
        sizes: &["M", "L"],
        tags: &["Winter", "Fleece"],
        about: "Fleece-backed fabric that keeps your legs warm on cold winter rides.",
    },
    Family {
        name: "Cargo Bib-Shorts, {size}",
        sku: "SB-C897",
        price: 74.99,
        colors: &[],
        sizes: &["L", "XL"],
        tags: &["Gravel", "Pockets"],
        about: "Mesh leg pockets carry snacks and a jacket when there's no jersey to stuff.",
    },
];

const CAPS: &[Family] = &[
    Family {
        name: "AWC Logo Cap",
        sku: "CA-1098",
        price: 8.99,
        colors: &[],
        sizes: &[],
        tags: &["AWC Logo", "Cotton", "Unisex"],
        about: "Traditional style with a flip-up brim; one-size fits all.",
    },
    Family {
        name: "Cycling Cap - Classic, {color}",
        sku: "CA-2100",
        price: 14.99,
        colors: &[WHITE, RED, BLUE],
        sizes: &[],
        tags: &["Classic Line", "Cotton", "Heritage Collection"],
        about:
            "The short-brimmed cap of the classic racing era, worn under a helmet or on its own.",
    },
    Family {
        name: "Winter Skull Cap",
        sku: "CA-3050",
        price: 19.99,
        colors: &[],
        sizes: &[],
        tags: &["Merino Wool", "Winter", "Seamless"],
        about: "A thin merino cap that fits under any helmet and keeps your ears warm.",
    },
    Family {
        name: "Sun Cap",
        sku: "CA-2200",
        price: 16.99,
        colors: &[],
        sizes: &[],
        tags: &["UV Protection", "Summer", "Ventilated"],
        about: "A light, vented cap with a neck flap to keep the sun off on long summer rides.",
    },
];

const GLOVES: &[Family] = &[
    Family {
        name: "Half-Finger Gloves, {size}",
        sku: "GL-H102",
        price: 24.49,
        colors: &[],
        sizes: &["S", "M", "L"],
        tags: &["Gel", "Summer", "Padded"],
        about: "Full padding, improved finger flex, durable palm, adjustable closure.",
    },
    Family {
        name: "Full-Finger Gloves, {size}",
        sku: "GL-F110",
        price: 37.99,
        colors: &[],
        sizes: &["M", "L", "XL"],
        tags: &["Mountain", "Anti-Slip"],
        about:
            "Synthetic palm, flexible knuckles, breathable mesh upper. Worn by the AWC team riders.",
    },
    Family {
        name: "Winter Gloves, {size}",
        sku: "GL-W200",
        price: 54.99,
        colors: &[],
        sizes: &["L", "XL"],
        tags: &["Insulated", "Windproof", "Cold Weather"],
        about: "Insulated, windproof gloves that keep fingers nimble enough to shift and brake.",
    },
    Family {
        name: "Race Gloves - Aero, {size}",
        sku: "GL-R150",
        price: 44.99,
        colors: &[],
        sizes: &["S", "M"],
        tags: &["Silicone", "Podium", "Racing"],
        about:
            "Skin-tight gloves with a silicone grip print, for racers who want feel over padding.",
    },
];

const JERSEYS: &[Family] = &[
    Family {
        name: "Long-Sleeve Logo Jersey, {size}",
        sku: "LJ-0192",
        price: 49.99,
        colors: &[],
        sizes: &["S", "M", "L", "XL"],
        tags: &["AWC Logo", "Polyester", "Autumn"],
        about: "Unisex long-sleeve AWC logo microfiber cycling jersey.",
    },
    Family {
        name: "Short-Sleeve Classic Jersey, {size}",
        sku: "SJ-0194",
        price: 53.99,
        colors: &[],
        sizes: &["M", "L", "XL"],
        tags: &["Classic Line", "Moisture-Wicking", "Club"],
        about: "Short sleeve classic breathable jersey with superior moisture control, front zipper, and 3 back pockets.",
    },
    Family {
        name: "Team Jersey - Replica, {size}",
        sku: "SJ-0300",
        price: 79.99,
        colors: &[],
        sizes: &["XL", "XXL"],
        tags: &["Team Edition", "Race Fit", "Breathable"],
        about: "The jersey the AWC team races in, with the same race cut and breathable mesh panels.",
    },
    Family {
        name: "Women's Trail Jersey, {size}",
        sku: "SJ-W410",
        price: 44.99,
        colors: &[],
        sizes: &["XS", "S", "M"],
        tags: &["Women's", "Trail", "Relaxed Fit"],
        about: "A loose, quick-drying trail top with a relaxed fit that works over body armor.",
    },
    Family {
        name: "Merino Jersey, {size}",
        sku: "LJ-0560",
        price: 89.00,
        colors: &[],
        sizes: &["S", "M", "L"],
        tags: &["Merino Wool", "Antibacterial", "All-Season"],
        about: "Fine merino that stays warm when wet and fresh for days. Made for every season.",
    },
];

const SHORTS: &[Family] = &[
    Family {
        name: "Men's Sports Shorts, {size}",
        sku: "SH-M897",
        price: 59.99,
        colors: &[],
        sizes: &["S", "M", "L", "XL"],
        tags: &["Men's", "Race Fit", "Lycra"],
        about: "Men's 8-panel lycra shorts with a padded chamois and silicone leg grippers.",
    },
    Family {
        name: "Women's Mountain Shorts, {size}",
        sku: "SH-W890",
        price: 69.99,
        colors: &[],
        sizes: &["S", "M", "L"],
        tags: &["Women's", "Mountain", "Pockets"],
        about: "Heavy duty, abrasion-resistant shorts feature seamless, lycra inner shorts with anti-bacterial chamois for comfort.",
    },
    Family {
        name: "Baggy Trail Shorts, {size}",
        sku: "SH-B700",
        price: 64.99,
        colors: &[],
        sizes: &["M", "L", "XL"],
        tags: &["Trail", "Relaxed Fit", "Water-Resistant"],
        about: "Tough, water-resistant baggies with a removable padded liner.",
    },
    Family {
        name: "Commuter Shorts, {size}",
        sku: "SH-C500",
        price: 49.99,
        colors: &[],
        sizes: &["L", "XL"],
        tags: &["Commuting", "Slim Fit", "Cotton"],
        about: "Look like everyday chinos, ride like cycling shorts: stretch cotton and a gusseted seat.",
    },
];

const SOCKS: &[Family] = &[
    Family {
        name: "Mountain Bike Socks, {size}",
        sku: "SO-B909",
        price: 9.50,
        colors: &[],
        sizes: &["M", "L"],
        tags: &["Mountain", "Cotton", "Unisex"],
        about: "Combination of natural and synthetic fibers stays dry and provides just the right cushioning.",
    },
    Family {
        name: "Racing Socks, {size}",
        sku: "SO-R809",
        price: 8.99,
        colors: &[],
        sizes: &["M", "L"],
        tags: &["Racing", "Lightweight", "Seamless"],
        about: "Thin, lightweight and durable with cuffs that stay up.",
    },
    Family {
        name: "Wool Winter Socks, {size}",
        sku: "SO-W300",
        price: 16.99,
        colors: &[],
        sizes: &["M", "L"],
        tags: &["Merino Wool", "Winter"],
        about: "Thick merino socks for cold toes in winter shoes.",
    },
    Family {
        name: "Hi-Vis Socks, {size}",
        sku: "SO-H200",
        price: 11.99,
        colors: &[],
        sizes: &["M", "L"],
        tags: &["High Visibility", "Reflective"],
        about: "Fluorescent cuffs and reflective yarn make pedalling feet stand out to drivers.",
    },
];

const TIGHTS: &[Family] = &[
    Family {
        name: "Women's Tights, {size}",
        sku: "TG-W091",
        price: 74.99,
        colors: &[],
        sizes: &["S", "M", "L"],
        tags: &["Women's", "Lycra", "Cold Weather"],
        about: "Warm spandex tights for winter riding; seamless chamois construction eliminates pressure points.",
    },
    Family {
        name: "Men's Thermal Tights, {size}",
        sku: "TG-M095",
        price: 79.99,
        colors: &[],
        sizes: &["M", "L", "XL"],
        tags: &["Men's", "Fleece", "Winter"],
        about: "Brushed thermal fabric and a padded insert for long cold-weather rides.",
    },
    Family {
        name: "Knee Warmers, {size}",
        sku: "TG-K020",
        price: 29.99,
        colors: &[],
        sizes: &["M", "L"],
        tags: &["Spring", "Packable"],
        about: "Pull them on for a chilly start and stuff them in a pocket when the day warms up.",
    },
];

const VESTS: &[Family] = &[
    Family {
        name: "Classic Vest, {size}",
        sku: "VE-C304",
        price: 63.50,
        colors: &[],
        sizes: &["S", "M", "L"],
        tags: &["Classic Line", "Windproof"],
        about: "Light-weight, wind-resistant, packs to fit into a pocket.",
    },
    Family {
        name: "Hi-Vis Safety Vest, {size}",
        sku: "VE-H100",
        price: 24.99,
        colors: &[],
        sizes: &["M", "L", "XL"],
        tags: &["High Visibility", "Reflective", "Commuting"],
        about: "Fluorescent mesh with wide reflective bands, worn over anything on dark commutes.",
    },
    Family {
        name: "Packable Wind Vest, {size}",
        sku: "VE-P200",
        price: 54.99,
        colors: &[],
        sizes: &["S", "M", "L"],
        tags: &["Packable", "Lightweight", "Spring"],
        about: "Weighs 60 grams and rolls up to the size of a gel. The spring ride essential.",
    },
];

const JACKETS: &[Family] = &[
    Family {
        name: "Rain Jacket, {size}",
        sku: "JA-R300",
        price: 89.99,
        colors: &[],
        sizes: &["M", "L", "XL", "XXL"],
        tags: &["Waterproof", "Rain Ready", "Breathable"],
        about: "A fully taped, breathable shell with a long tail and a helmet-compatible hood.",
    },
    Family {
        name: "Lightweight Wind Jacket, {size}",
        sku: "JA-W215",
        price: 69.99,
        colors: &[],
        sizes: &["XS", "S", "M"],
        tags: &["Windproof", "Packable"],
        about: "Cuts the wind on descents and packs into its own chest pocket.",
    },
    Family {
        name: "Thermal Winter Jacket, {size}",
        sku: "JA-T400",
        price: 89.00,
        colors: &[],
        sizes: &["XL", "XXL"],
        tags: &["Insulated", "Winter", "Cold Weather"],
        about: "Insulated front panels and a fleece-lined collar for riding below freezing.",
    },
    Family {
        name: "Commuter Softshell, {size}",
        sku: "JA-C250",
        price: 84.99,
        colors: &[],
        sizes: &["S", "M", "L"],
        tags: &["Commuting", "Water-Resistant", "Reflective"],
        about: "A smart softshell that sheds showers and has reflective piping for the ride home.",
    },
];

// Components: $20 to $500, frames $250 to $1,500.

const BOTTOM_BRACKETS: &[Family] = &[
    Family {
        name: "LL Bottom Bracket",
        sku: "BB-7421",
        price: 53.99,
        colors: &[],
        sizes: &[],
        tags: &["LL Series", "Threaded BB", "Steel"],
        about: "Chromoly steel.",
    },
    Family {
        name: "ML Bottom Bracket",
        sku: "BB-8107",
        price: 101.24,
        colors: &[],
        sizes: &[],
        tags: &["ML Series", "Threaded BB", "Aluminum"],
        about: "Aluminum alloy cups; large diameter spindle.",
    },
    Family {
        name: "HL Bottom Bracket",
        sku: "BB-9108",
        price: 121.49,
        colors: &[],
        sizes: &[],
        tags: &["HL Series", "Press-Fit BB", "Lightweight"],
        about: "Aluminum alloy cups and a hollow axle.",
    },
    Family {
        name: "Press-Fit BB - Ceramic",
        sku: "BB-9300",
        price: 189.99,
        colors: &[],
        sizes: &[],
        tags: &["Press-Fit BB", "Racing", "Low Maintenance"],
        about: "Ceramic bearings that spin freely for thousands of kilometres without service.",
    },
    Family {
        name: "Threaded BB - Stainless",
        sku: "BB-7600",
        price: 39.99,
        colors: &[],
        sizes: &[],
        tags: &["Threaded BB", "Stainless Steel", "Touring"],
        about: "Sealed stainless bearings in threaded cups: easy to fit, hard to wear out.",
    },
];

const BRAKES: &[Family] = &[
    Family {
        name: "Front Brakes",
        sku: "FB-9873",
        price: 106.50,
        colors: &[],
        sizes: &[],
        tags: &["Rim Brake", "Road"],
        about: "All-weather brake pads; provides superior stopping by applying more surface to the rim.",
    },
    Family {
        name: "Rear Brakes",
        sku: "RB-9231",
        price: 106.50,
        colors: &[],
        sizes: &[],
        tags: &["Rim Brake", "Road", "Aluminum"],
        about: "Dual-pivot aluminum caliper with all-weather pads; matches our front brake.",
    },
    Family {
        name: "Hydraulic Disc Brake - Front",
        sku: "DB-H100",
        price: 159.99,
        colors: &[],
        sizes: &[],
        tags: &["Hydraulic", "Disc Brake", "Mountain"],
        about: "Four-piston power with one-finger modulation for steep descents.",
    },
    Family {
        name: "Hydraulic Disc Brake - Rear",
        sku: "DB-H200",
        price: 164.99,
        colors: &[],
        sizes: &[],
        tags: &["Hydraulic", "Disc Brake", "E-Bike Compatible"],
        about: "Self-adjusting hydraulic brake with a heat-resistant caliper, rated for e-bikes.",
    },
    Family {
        name: "Mechanical Disc Brake",
        sku: "DB-M050",
        price: 64.99,
        colors: &[],
        sizes: &[],
        tags: &["Mechanical", "Disc Brake", "Gravel"],
        about: "Cable-actuated disc brake that works with any road lever and fixes at the roadside.",
    },
    Family {
        name: "Brake Pads - Road",
        sku: "BP-0400",
        price: 21.99,
        colors: &[],
        sizes: &[],
        tags: &["Rim Brake", "Rubber", "Rain Ready"],
        about: "A grippy rubber compound that stops well in the wet. One pair.",
    },
];

const CHAINS: &[Family] = &[
    Family {
        name: "Chain",
        sku: "CH-0234",
        price: 20.24,
        colors: &[],
        sizes: &[],
        tags: &["9-Speed", "Shimano Compatible"],
        about: "Superior shifting performance.",
    },
    Family {
        name: "10-Speed Chain",
        sku: "CH-1010",
        price: 34.99,
        colors: &[],
        sizes: &[],
        tags: &["10-Speed", "SRAM Compatible"],
        about: "Hollow pins and a quick link for fast, tool-free fitting.",
    },
    Family {
        name: "11-Speed Chain",
        sku: "CH-1111",
        price: 44.99,
        colors: &[],
        sizes: &[],
        tags: &["11-Speed", "Campagnolo Compatible", "Road"],
        about: "Narrow, precise and quiet under load on 11-speed road drivetrains.",
    },
    Family {
        name: "12-Speed Chain",
        sku: "CH-1212",
        price: 59.99,
        colors: &[],
        sizes: &[],
        tags: &["12-Speed", "1x Drivetrain", "E-Bike Compatible"],
        about:
            "A hardened 12-speed chain strong enough for wide-range cassettes and e-bike torque.",
    },
    Family {
        name: "Chain - Stainless Touring",
        sku: "CH-0890",
        price: 29.99,
        colors: &[],
        sizes: &[],
        tags: &["Stainless Steel", "Touring", "Low Maintenance"],
        about: "Rust-proof stainless plates for touring through wet and salty weather.",
    },
];

const CRANKSETS: &[Family] = &[
    Family {
        name: "LL Crankset",
        sku: "CS-4759",
        price: 175.49,
        colors: &[],
        sizes: &[],
        tags: &["LL Series", "3x Drivetrain", "Aluminum"],
        about: "Super rigid spindle.",
    },
    Family {
        name: "ML Crankset",
        sku: "CS-6583",
        price: 256.49,
        colors: &[],
        sizes: &[],
        tags: &["ML Series", "2x Drivetrain", "Shimano Compatible"],
        about: "High-strength crank arm.",
    },
    Family {
        name: "HL Crankset",
        sku: "CS-9183",
        price: 404.99,
        colors: &[],
        sizes: &[],
        tags: &["HL Series", "Carbon", "Stiff"],
        about: "Hollow carbon crank arms on a stiff, light spindle; flawless shifting.",
    },
    Family {
        name: "Mountain Crankset - 1x",
        sku: "CS-M100",
        price: 289.99,
        colors: &[],
        sizes: &[],
        tags: &["1x Drivetrain", "Boost Spacing", "Mountain"],
        about: "A narrow-wide chainring that holds the chain without a guide on rough trails.",
    },
    Family {
        name: "Gravel Crankset - 1x",
        sku: "CS-G200",
        price: 249.99,
        colors: &[],
        sizes: &[],
        tags: &["Gravel", "1x Drivetrain", "SRAM Compatible"],
        about: "A 40-tooth ring and a wide tire clearance for mixed-surface riding.",
    },
    Family {
        name: "Kids' Crankset",
        sku: "CS-K010",
        price: 39.99,
        colors: &[],
        sizes: &[],
        tags: &["Kids", "Youth", "Steel"],
        about: "Short 140 mm arms sized for young riders' legs.",
    },
];

const DERAILLEURS: &[Family] = &[
    Family {
        name: "Front Derailleur",
        sku: "FD-2342",
        price: 91.49,
        colors: &[],
        sizes: &[],
        tags: &["2x Drivetrain", "Shimano Compatible"],
        about: "Aluminum alloy cage; steel outer plate; smooth chain shifting.",
    },
    Family {
        name: "Rear Derailleur",
        sku: "RD-2308",
        price: 121.46,
        colors: &[],
        sizes: &[],
        tags: &["10-Speed", "Shimano Compatible"],
        about: "Wide-link design.",
    },
    Family {
        name: "Rear Derailleur - 12-Speed",
        sku: "RD-2412",
        price: 249.99,
        colors: &[],
        sizes: &[],
        tags: &["12-Speed", "SRAM Compatible", "1x Drivetrain"],
        about: "A clutch derailleur that keeps the chain quiet and in place over rough ground.",
    },
    Family {
        name: "Road Rear Derailleur - 11-Speed",
        sku: "RD-2511",
        price: 189.99,
        colors: &[],
        sizes: &[],
        tags: &["11-Speed", "Road", "Campagnolo Compatible"],
        about: "Crisp, light shifting with a short cage for close-ratio road cassettes.",
    },
    Family {
        name: "Touring Rear Derailleur",
        sku: "RD-2209",
        price: 79.99,
        colors: &[],
        sizes: &[],
        tags: &["9-Speed", "Touring", "3x Drivetrain"],
        about: "A long cage that wraps the chain around a triple crank and a wide touring cassette.",
    },
    Family {
        name: "Derailleur Hanger",
        sku: "DH-0100",
        price: 21.99,
        colors: &[],
        sizes: &[],
        tags: &["Aluminum", "Compact"],
        about: "A replaceable hanger that bends so your frame does not. Keep a spare in the saddle bag.",
    },
];

const FORKS: &[Family] = &[
    Family {
        name: "LL Fork",
        sku: "FK-5136",
        price: 148.22,
        colors: &[],
        sizes: &[],
        tags: &["LL Series", "Straight Steerer", "Steel"],
        about: "Stout design absorbs shock and offers more precise steering.",
    },
    Family {
        name: "ML Fork",
        sku: "FK-1639",
        price: 175.49,
        colors: &[],
        sizes: &[],
        tags: &["ML Series", "Aluminum", "Tapered Steerer"],
        about: "Composite road fork with an aluminum steerer tube.",
    },
    Family {
        name: "HL Fork",
        sku: "FK-9939",
        price: 229.49,
        colors: &[],
        sizes: &[],
        tags: &["HL Series", "Carbon", "Tapered Steerer"],
        about: "High-performance carbon road fork with curved legs.",
    },
    Family {
        name: "Suspension Fork - 100 mm",
        sku: "FK-S100",
        price: 449.99,
        colors: &[],
        sizes: &[],
        tags: &["100 mm Travel", "Cross-Country", "Boost Spacing"],
        about: "A light air-sprung fork with a lockout for cross-country racing.",
    },
    Family {
        name: "Suspension Fork - 160 mm",
        sku: "FK-S160",
        price: 499.99,
        colors: &[],
        sizes: &[],
        tags: &["160 mm Travel", "Enduro", "Thru-Axle"],
        about: "Stiff 36 mm stanchions and adjustable damping for enduro and bike-park riding.",
    },
];

const HANDLEBARS: &[Family] = &[
    Family {
        name: "LL Mountain Handlebars",
        sku: "HB-M243",
        price: 44.54,
        colors: &[],
        sizes: &[],
        tags: &["Riser Bar", "31.8 mm Clamp", "Aluminum"],
        about: "All-purpose bar for on or off-road.",
    },
    Family {
        name: "HL Mountain Handlebars",
        sku: "HB-M918",
        price: 120.27,
        colors: &[],
        sizes: &[],
        tags: &["Riser Bar", "35 mm Clamp", "Carbon"],
        about: "Flat bar strong enough for the pro circuit.",
    },
    Family {
        name: "LL Road Handlebars",
        sku: "HB-R504",
        price: 44.54,
        colors: &[],
        sizes: &[],
        tags: &["Drop Bar", "31.8 mm Clamp"],
        about: "Unique shape provides easier reach to the levers.",
    },
    Family {
        name: "HL Road Handlebars",
        sku: "HB-R956",
        price: 120.27,
        colors: &[],
        sizes: &[],
        tags: &["Drop Bar", "Aerodynamic", "Carbon"],
        about: "Anatomically shaped carbon bar with a flattened aero top section.",
    },
    Family {
        name: "Touring Handlebars",
        sku: "HB-T721",
        price: 91.57,
        colors: &[],
        sizes: &[],
        tags: &["Touring", "Flat Bar", "Comfort Fit"],
        about: "Comfortable back-swept bar with many hand positions for long days.",
    },
    Family {
        name: "Aero Extension Bars",
        sku: "HB-A100",
        price: 139.99,
        colors: &[],
        sizes: &[],
        tags: &["Triathlon", "Aerodynamic", "Adjustable"],
        about: "Clip-on aero bars with adjustable pads, for time trials and triathlons.",
    },
];

const HEADSETS: &[Family] = &[
    Family {
        name: "LL Headset",
        sku: "HS-0296",
        price: 34.20,
        colors: &[],
        sizes: &[],
        tags: &["LL Series", "Straight Steerer"],
        about: "Threadless headset provides quality at an economical price.",
    },
    Family {
        name: "ML Headset",
        sku: "HS-2451",
        price: 102.29,
        colors: &[],
        sizes: &[],
        tags: &["ML Series", "Tapered Steerer"],
        about: "Sealed cartridge keeps dirt out.",
    },
    Family {
        name: "HL Headset",
        sku: "HS-3479",
        price: 124.73,
        colors: &[],
        sizes: &[],
        tags: &["HL Series", "Tapered Steerer", "Stainless Steel"],
        about: "High-quality threadless headset with a grease port for quick lubrication.",
    },
    Family {
        name: "Integrated Headset",
        sku: "HS-4100",
        price: 89.99,
        colors: &[],
        sizes: &[],
        tags: &["Road", "Lightweight"],
        about: "Drop-in bearings that sit inside the head tube for a clean, low front end.",
    },
    Family {
        name: "Headset Spacer Kit",
        sku: "HS-0050",
        price: 21.99,
        colors: &[],
        sizes: &[],
        tags: &["Aluminum", "Adjustable"],
        about: "Spacers from 2.5 to 20 mm to fine-tune your bar height.",
    },
];

const MOUNTAIN_FRAMES: &[Family] = &[
    Family {
        name: "HL Mountain Frame - {color}, {size}",
        sku: "FR-M94",
        price: 1364.50,
        colors: &[SILVER, BLACK],
        sizes: &["38", "42", "44", "46", "48"],
        tags: &["HL Series", "Aluminum", "Lifetime Warranty"],
        about: "Each frame is hand-crafted in our Bothell facility to the optimum diameter and wall-thickness required of a premium mountain frame. The heat-treated welded aluminum frame has a larger diameter tube that absorbs the bumps.",
    },
    Family {
        name: "ML Mountain Frame - {color}, {size}",
        sku: "FR-M63",
        price: 348.76,
        colors: &[BLACK],
        sizes: &["38", "40", "42", "44"],
        tags: &["ML Series", "Aluminum"],
        about: "The ML frame is a heat-treated aluminum frame made with the same detail and quality as our HL frame. It offers superior performance.",
    },
    Family {
        name: "LL Mountain Frame - {color}, {size}",
        sku: "FR-M21",
        price: 264.05,
        colors: &[SILVER, BLACK],
        sizes: &["40", "42", "44", "48", "52"],
        tags: &["LL Series", "Hardtail"],
        about: "Our best value utilizing the same, ground-breaking frame technology as the ML aluminum frame.",
    },
    Family {
        name: "Enduro Frame - {color}, {size}",
        sku: "FR-M99",
        price: 1499.00,
        colors: &[GREY, ORANGE],
        sizes: &["44", "46", "48"],
        tags: &["Enduro", "Carbon", "Boost Spacing"],
        about: "A full-carbon 160 mm enduro frame with a threaded bottom bracket and room for a bottle.",
    },
];

const PEDALS: &[Family] = &[
    Family {
        name: "LL Mountain Pedal",
        sku: "PD-M282",
        price: 40.49,
        colors: &[],
        sizes: &[],
        tags: &["LL Series", "Flat Pedal"],
        about: "Expanded platform so you can ride in any shoes; great for all-around riding.",
    },
    Family {
        name: "ML Mountain Pedal",
        sku: "PD-M340",
        price: 62.09,
        colors: &[],
        sizes: &[],
        tags: &["ML Series", "Clipless", "Mountain"],
        about: "Lightweight, durable, clipless pedal with adjustable tension.",
    },
    Family {
        name: "HL Mountain Pedal",
        sku: "PD-M562",
        price: 80.99,
        colors: &[],
        sizes: &[],
        tags: &["HL Series", "Clipless", "Magnesium"],
        about: "Magnesium body, stainless steel spindle; designed to shed mud easily.",
    },
    Family {
        name: "LL Road Pedal",
        sku: "PD-R347",
        price: 40.49,
        colors: &[],
        sizes: &[],
        tags: &["Clipless", "Road"],
        about: "Clipless pedals - aluminum.",
    },
    Family {
        name: "HL Road Pedal",
        sku: "PD-R853",
        price: 80.99,
        colors: &[],
        sizes: &[],
        tags: &["Clipless", "Titanium", "Racing"],
        about: "Top-of-the-line clipless pedals with adjustable tension and a titanium spindle.",
    },
    Family {
        name: "Touring Pedal",
        sku: "PD-T852",
        price: 80.99,
        colors: &[],
        sizes: &[],
        tags: &["Touring", "Flat Pedal", "Anti-Slip"],
        about: "A stable pedal for all-day rides; binding allows a quick release.",
    },
];

const ROAD_FRAMES: &[Family] = &[
    Family {
        name: "HL Road Frame - {color}, {size}",
        sku: "FR-R92",
        price: 1431.50,
        colors: &[RED, BLACK],
        sizes: &["44", "48", "52", "56", "58", "62"],
        tags: &["HL Series", "Aluminum", "Lifetime Warranty"],
        about: "Our lightest and best quality frame, with the latest alloy; it is welded and heat-treated for strength. Our innovative design results in maximum comfort and performance.",
    },
    Family {
        name: "ML Road Frame - {color}, {size}",
        sku: "FR-R72",
        price: 594.83,
        colors: &[RED],
        sizes: &["54", "58", "60"],
        tags: &["ML Series", "Aluminum"],
        about: "Made from the same aluminum alloy as our top-of-the-line HL frame, the ML features a lightweight down-tube milled to the perfect diameter for optimal strength.",
    },
    Family {
        name: "LL Road Frame - {color}, {size}",
        sku: "FR-R38",
        price: 337.22,
        colors: &[BLACK, RED],
        sizes: &["44", "48", "52", "58", "60", "62"],
        tags: &["LL Series", "Aluminum", "Rim Brake"],
        about: "The LL Frame provides a safe comfortable ride, while offering superior bump absorption in a value-priced aluminum frame.",
    },
    Family {
        name: "ML Road Frame-W - {color}, {size}",
        sku: "FR-R74",
        price: 594.83,
        colors: &[YELLOW],
        sizes: &["38", "40", "42", "44", "48"],
        tags: &["Women's", "ML Series", "Aluminum"],
        about: "The same technology as all of our Road series frames, but sized for a woman.",
    },
    Family {
        name: "Gravel Frame - {color}, {size}",
        sku: "FR-G45",
        price: 899.00,
        colors: &[GREEN, GREY],
        sizes: &["50", "52", "54", "56"],
        tags: &["Gravel", "Titanium", "Thru-Axle"],
        about: "A titanium gravel frame with clearance for 45 mm tires and mounts for three bottles.",
    },
];

const SADDLES: &[Family] = &[
    Family {
        name: "LL Road Seat/Saddle",
        sku: "SE-R581",
        price: 27.12,
        colors: &[],
        sizes: &[],
        tags: &["LL Series", "Road", "Padded"],
        about: "Lightweight foam-padded saddle.",
    },
    Family {
        name: "HL Road Seat/Saddle",
        sku: "SE-R995",
        price: 52.64,
        colors: &[],
        sizes: &[],
        tags: &["HL Series", "Road", "Carbon"],
        about: "Lightweight carbon-reinforced rails and a cut-out to relieve pressure.",
    },
    Family {
        name: "ML Mountain Seat/Saddle",
        sku: "SE-M798",
        price: 39.14,
        colors: &[],
        sizes: &[],
        tags: &["ML Series", "Mountain", "Gel"],
        about: "Designed to absorb shock, with a gel insert under the sit bones.",
    },
    Family {
        name: "HL Touring Seat/Saddle",
        sku: "SE-T924",
        price: 52.64,
        colors: &[],
        sizes: &[],
        tags: &["Touring", "Leather", "Heritage Collection"],
        about: "A classic leather saddle that shapes itself to you over the first few hundred kilometres.",
    },
    Family {
        name: "Women's Comfort Saddle",
        sku: "SE-W300",
        price: 44.99,
        colors: &[],
        sizes: &[],
        tags: &["Women's", "Gel", "Comfort Fit"],
        about: "A wider, shorter women's saddle with gel padding for comfortable everyday rides.",
    },
    Family {
        name: "Triathlon Saddle",
        sku: "SE-A400",
        price: 99.99,
        colors: &[],
        sizes: &[],
        tags: &["Triathlon", "Ventilated", "Race Fit"],
        about: "A split-nose saddle for the aero position, with a bottle mount behind.",
    },
];

const TOURING_FRAMES: &[Family] = &[
    Family {
        name: "HL Touring Frame - {color}, {size}",
        sku: "FR-T98",
        price: 1003.91,
        colors: &[YELLOW, BLUE],
        sizes: &["46", "50", "54", "60", "62"],
        tags: &["HL Series", "Chromoly"],
        about: "A chromoly steel touring frame with rack and fender mounts and a relaxed position for long days.",
    },
    Family {
        name: "LL Touring Frame - {color}, {size}",
        sku: "FR-T67",
        price: 333.42,
        colors: &[BLUE, YELLOW],
        sizes: &["44", "50", "54", "58", "62"],
        tags: &["LL Series", "Steel"],
        about: "Lightweight steel frame with clearance for wide tires; a value-priced start to touring.",
    },
    Family {
        name: "Expedition Frame - {color}, {size}",
        sku: "FR-T99",
        price: 1249.00,
        colors: &[GREY],
        sizes: &["50", "54", "58"],
        tags: &["Expedition Series", "Titanium", "Bikepacking"],
        about: "A titanium frame with mounts for everything, built to carry a full load across continents.",
    },
];

const WHEELS: &[Family] = &[
    Family {
        name: "LL Mountain Front Wheel",
        sku: "FW-M423",
        price: 60.75,
        colors: &[],
        sizes: &[],
        tags: &["LL Series", "26-inch", "Mountain"],
        about: "Replacement mountain wheel for entry-level rider.",
    },
    Family {
        name: "ML Mountain Front Wheel",
        sku: "FW-M762",
        price: 209.03,
        colors: &[],
        sizes: &[],
        tags: &["ML Series", "27.5-inch", "Thru-Axle"],
        about: "Replacement mountain wheel for the casual to serious rider.",
    },
    Family {
        name: "HL Mountain Rear Wheel",
        sku: "RW-M928",
        price: 327.22,
        colors: &[],
        sizes: &[],
        tags: &["HL Series", "29-inch", "Boost Spacing"],
        about: "High-performance mountain replacement wheel.",
    },
    Family {
        name: "LL Road Front Wheel",
        sku: "FW-R623",
        price: 85.57,
        colors: &[],
        sizes: &[],
        tags: &["LL Series", "700c", "Clincher"],
        about: "Replacement road front wheel for entry-level cyclist.",
    },
    Family {
        name: "ML Road Rear Wheel",
        sku: "RW-R762",
        price: 275.39,
        colors: &[],
        sizes: &[],
        tags: &["ML Series", "700c", "Aluminum"],
        about: "Aluminum alloy rim with stainless steel spokes; built for speed.",
    },
    Family {
        name: "HL Road Rear Wheel",
        sku: "RW-R820",
        price: 357.06,
        colors: &[],
        sizes: &[],
        tags: &["HL Series", "Carbon", "Tubeless Ready"],
        about: "Strong wheel with double-walled rim.",
    },
    Family {
        name: "Touring Front Wheel",
        sku: "FW-T905",
        price: 218.01,
        colors: &[],
        sizes: &[],
        tags: &["Touring", "Heavy Duty", "650b"],
        about:
            "Aluminum alloy rim with stainless steel spokes; built for the weight of a loaded tour.",
    },
    Family {
        name: "Gravel Wheelset",
        sku: "WS-G700",
        price: 479.99,
        colors: &[],
        sizes: &[],
        tags: &["Gravel", "650b", "Tubeless Ready"],
        about: "A pair of wide, tubeless-ready 650b wheels for big, supple gravel tires.",
    },
];

const CASSETTES: &[Family] = &[
    Family {
        name: "Cassette - 9-Speed",
        sku: "CT-0911",
        price: 29.99,
        colors: &[],
        sizes: &[],
        tags: &["9-Speed", "Shimano Compatible", "Steel"],
        about: "A durable steel 11-34 cassette for touring and everyday bikes.",
    },
    Family {
        name: "Cassette - 10-Speed",
        sku: "CT-1011",
        price: 49.99,
        colors: &[],
        sizes: &[],
        tags: &["10-Speed", "Shimano Compatible"],
        about: "Evenly spaced 11-32 gears for smooth shifting on road and trail.",
    },
    Family {
        name: "Cassette - 11-Speed",
        sku: "CT-1128",
        price: 89.99,
        colors: &[],
        sizes: &[],
        tags: &["11-Speed", "Campagnolo Compatible", "Road"],
        about: "Close-ratio 11-28 road cassette with aluminum carriers for the largest cogs.",
    },
    Family {
        name: "Cassette - 12-Speed, 10-51T",
        sku: "CT-1251",
        price: 249.99,
        colors: &[],
        sizes: &[],
        tags: &["12-Speed", "SRAM Compatible", "1x Drivetrain"],
        about: "A huge 10-51 range that makes a front derailleur unnecessary.",
    },
    Family {
        name: "Cassette - Ultralight",
        sku: "CT-1232",
        price: 399.99,
        colors: &[],
        sizes: &[],
        tags: &["12-Speed", "Lightweight", "Racing"],
        about:
            "Machined from a single block of steel with a titanium large cog. The lightest we sell.",
    },
];

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

    #[test]
    fn family_names_have_a_placeholder_for_each_variant_axis() {
        for spec in CATEGORIES.iter() {
            for f in spec.families {
                assert_eq!(
                    f.name.contains("{color}"),
                    !f.colors.is_empty(),
                    "{}",
                    f.name
                );
                assert_eq!(f.name.contains("{size}"), !f.sizes.is_empty(), "{}", f.name);
            }
            // Every family gets at least one product.
            assert!(spec.families.len() <= spec.products, "{}", spec.name);
        }
    }

    #[test]
    fn the_catalogue_is_the_same_on_every_call() {
        assert_eq!(catalog(), catalog());
    }
}
