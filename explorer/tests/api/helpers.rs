use engine::{
    ChangeFeedProcessor, ContainerClient, ContainerProperties, Engine, EngineOptions, JavaScript,
    TriggerOperation,
};
use explorer::{Explorer, ExplorerOptions};
use serde_json::{json, Value};
pub use sitekit::testing::eventually;
use sitekit::testing::{Reply, TestApp as Server, Visitor};

/// Bikes fill more than one page of the item browser (20 a page).
pub const BIKES: usize = 25;

pub struct TestApp {
    pub server: Server,
    /// The explorer's token (every request needs it: see explorer::guard).
    pub token: String,
    pub engine: Engine,
    pub products: ContainerClient,
    pub names: ContainerClient,
    pub processor: ChangeFeedProcessor,
    _dir: tempfile::TempDir,
}

impl TestApp {
    /// A visitor that sends the token (`Authorization: Bearer`), as a script would.
    pub fn visitor(&self) -> Visitor {
        let mut headers = reqwest::header::HeaderMap::new();
        let bearer = format!("Bearer {}", self.token);
        headers.insert("authorization", bearer.parse().unwrap());
        Visitor::with_headers(self.server.url(""), None, headers)
    }

    /// A visitor without the token: its own cookie jar, redirects not followed.
    pub fn stranger(&self) -> Visitor {
        self.server.visitor()
    }

    pub async fn get(&self, path: &str) -> Reply {
        self.visitor().get(path).await
    }
}

/// [`spawn_with`] a fresh token, loopback hosts only.
pub async fn spawn_app(writes: bool) -> TestApp {
    spawn_with(ExplorerOptions {
        writes,
        ..ExplorerOptions::default()
    })
    .await
}

/// `shop/products` (partition key `/categoryId`, two physical partitions, 400 RU/s) with 25
/// bikes and 3 helmets, a stored procedure and a trigger; a change-feed processor copying
/// product names into `shop/names` (a unique key on `/name`).
pub async fn spawn_with(options: ExplorerOptions) -> TestApp {
    let dir = tempfile::tempdir().expect("a temp dir");
    let engine = Engine::open(dir.path(), EngineOptions::default()).expect("the engine opens");
    let db = engine.create_database("shop").await.unwrap();
    let products = db
        .create_container(
            ContainerProperties::new("products", "/categoryId")
                .with_initial_partitions(2)
                .with_throughput(400),
        )
        .await
        .unwrap();
    let names = db
        .create_container(ContainerProperties::new("names", "/id").with_unique_key(&["/name"]))
        .await
        .unwrap();
    let leases = db
        .create_container(ContainerProperties::new("leases", "/processor"))
        .await
        .unwrap();
    for i in 0..BIKES {
        let p = json!({"id": format!("bike-{i:02}"), "categoryId": "bikes", "name": format!("Bike {i}"), "price": 100 + i});
        products.create_item(&p, None, None).await.unwrap();
    }
    for i in 0..3 {
        let p = json!({"id": format!("helmet-{i}"), "categoryId": "helmets", "name": format!("Helmet {i}"), "price": 20 + i});
        products.create_item(&p, None, None).await.unwrap();
    }
    let scripts = products.scripts();
    scripts
        .upsert_stored_procedure("countItems", JavaScript::new(COUNT_ITEMS).unwrap())
        .unwrap();
    scripts
        .upsert_trigger(
            "stampCreated",
            JavaScript::new(STAMP_CREATED)
                .unwrap()
                .pre_trigger(TriggerOperation::Create),
        )
        .unwrap();
    let target = names.clone();
    let processor = products
        .change_feed_processor("copyNames")
        .lease_container(leases)
        .handler(move |changes: Vec<Value>| {
            let target = target.clone();
            async move {
                for c in changes {
                    let doc = json!({"id": c["id"], "name": c["name"]});
                    target.upsert_item(&doc, None, None).await?;
                }
                Ok::<_, engine::Error>(())
            }
        })
        .build()
        .unwrap();
    processor.start().await.unwrap();
    let token = options.token.clone();
    let x = Explorer::new(&engine, options);
    let server = Server::serve(explorer::SITE, x.configure(), 1);
    TestApp {
        server,
        token,
        engine,
        products,
        names,
        processor,
        _dir: dir,
    }
}

/// `countItems(prefix)`: counts the partition's items whose id starts with `prefix` and writes
/// the count into a `counter` item of the partition (so running it is a write).
const COUNT_ITEMS: &str = r#"function countItems(prefix) {
  var collection = getContext().getCollection();
  collection.queryDocuments(collection.getSelfLink(), 'SELECT VALUE c.id FROM c', function (err, ids) {
    if (err) throw err;
    var n = ids.filter(function (id) { return id.indexOf(prefix) === 0; }).length;
    collection.upsertDocument(collection.getSelfLink(), { id: 'counter', categoryId: 'bikes', count: n }, function (err) {
      if (err) throw err;
      getContext().getResponse().setBody({ prefix: prefix, count: n });
    });
  });
}"#;

/// `stampCreated`: a pre-trigger marking each created item (with a `<` to show it is escaped).
const STAMP_CREATED: &str = r#"function stampCreated() {
  var item = getContext().getRequest().getBody();
  item.stamped = 1 < 2;
  getContext().getRequest().setBody(item);
}"#;
