//! Client encryption keys (issue 35), as the Always Encrypted SDKs call them: create (409 for
//! an id taken, 400 without the wrapped key), read (`If-None-Match` with the current etag: 304,
//! which the JavaScript SDK's encryption processor takes as "rewrap it"), replace with
//! `If-Match` (the SDKs' rewrap; 412 when stale), list and query; no delete (405); they outlive a
//! restart and go with their database.

mod common;

use common::signed::{request, send};
use common::TestGateway;
use reqwest::Method;
use serde_json::{json, Value};

const FEED: &str = "/dbs/d/clientencryptionkeys";

fn key(id: &str, wrapped: &str, vault_key: &str) -> Value {
    json!({
        "id": id,
        "encryptionAlgorithm": "AEAD_AES_256_CBC_HMAC_SHA256",
        "wrappedDataEncryptionKey": wrapped,
        "keyWrapMetadata": {
            "type": "AZURE_KEY_VAULT",
            "name": vault_key,
            "value": format!("https://vault.example/keys/{vault_key}/1"),
            "algorithm": "RSA-OAEP",
        },
    })
}

async fn create_database(gw: &TestGateway) {
    let r = send(
        gw,
        Method::POST,
        "/dbs",
        ("dbs", ""),
        json!({"id": "d"}),
        &[],
    )
    .await;
    assert_eq!(r.status, 201, "{}", r.body);
}

#[test]
fn client_encryption_keys_are_created_rewrapped_listed_and_kept() {
    let data = tempfile::tempdir().unwrap();
    let rt = tokio::runtime::Runtime::new().unwrap();
    let link = ("clientencryptionkeys", "dbs/d");
    let one = ("clientencryptionkeys", "dbs/d/clientencryptionkeys/cek1");
    {
        let gw = TestGateway::at(data.path(), gateway::Limits::default());
        rt.block_on(async {
            create_database(&gw).await;
            let c = send(
                &gw,
                Method::POST,
                FEED,
                link,
                key("cek1", "AAECAw==", "kek1"),
                &[],
            )
            .await;
            assert_eq!(c.status, 201, "{}", c.body);
            assert_eq!(c.body["wrappedDataEncryptionKey"], "AAECAw==");
            assert_eq!(c.body["keyWrapMetadata"]["name"], "kek1");
            assert!(
                c.body["_rid"].is_string() && c.body["_self"].is_string(),
                "{}",
                c.body
            );
            let etag1 = c.body["_etag"].as_str().unwrap().to_owned();

            let again = send(
                &gw,
                Method::POST,
                FEED,
                link,
                key("cek1", "BAUG", "kek1"),
                &[],
            )
            .await;
            assert_eq!(again.status, 409, "{}", again.body);
            let mut no_key = key("cek2", "", "kek1");
            no_key
                .as_object_mut()
                .unwrap()
                .remove("wrappedDataEncryptionKey");
            let bad = send(&gw, Method::POST, FEED, link, no_key, &[]).await;
            assert_eq!(bad.status, 400, "{}", bad.body);

            let path = format!("{FEED}/cek1");
            let r = request(&gw, Method::GET, &path, one, None, &[]).await;
            assert_eq!(
                (r.status, &r.body["_etag"]),
                (200, &json!(etag1)),
                "{}",
                r.body
            );
            let r = request(
                &gw,
                Method::GET,
                &path,
                one,
                None,
                &[("if-none-match", &etag1)],
            )
            .await;
            assert_eq!(r.status, 304);

            // Rewrapped with another vault key: If-Match the etag read.
            let rewrapped = key("cek1", "CQoLDA==", "kek2");
            let stale = send(
                &gw,
                Method::PUT,
                &path,
                one,
                rewrapped.clone(),
                &[("if-match", "\"0\"")],
            )
            .await;
            assert_eq!(stale.status, 412, "{}", stale.body);
            let r = send(
                &gw,
                Method::PUT,
                &path,
                one,
                rewrapped,
                &[("if-match", &etag1)],
            )
            .await;
            assert_eq!(r.status, 200, "{}", r.body);
            assert_eq!(r.body["keyWrapMetadata"]["name"], "kek2");
            assert_ne!(r.body["_etag"], json!(etag1));
            assert_eq!(
                r.body["_rid"], c.body["_rid"],
                "a rewrap keeps the key's _rid"
            );
            let r = request(
                &gw,
                Method::GET,
                &path,
                one,
                None,
                &[("if-none-match", &etag1)],
            )
            .await;
            assert_eq!(
                (r.status, &r.body["wrappedDataEncryptionKey"]),
                (200, &json!("CQoLDA=="))
            );

            let c2 = send(
                &gw,
                Method::POST,
                FEED,
                link,
                key("cek2", "DQ4P", "kek1"),
                &[],
            )
            .await;
            assert_eq!(c2.status, 201, "{}", c2.body);
            let query = json!({"query": "SELECT * FROM r WHERE r.keyWrapMetadata.name = @k",
                               "parameters": [{"name": "@k", "value": "kek2"}]});
            let q = send(
                &gw,
                Method::POST,
                FEED,
                link,
                query,
                &[
                    ("x-ms-documentdb-isquery", "true"),
                    ("content-type", "application/query+json"),
                ],
            )
            .await;
            assert_eq!(q.status, 200, "{}", q.body);
            let ids: Vec<&Value> = q.body["ClientEncryptionKeys"]
                .as_array()
                .unwrap()
                .iter()
                .map(|k| &k["id"])
                .collect();
            assert_eq!(ids, [&json!("cek1")], "{}", q.body);

            let d = request(&gw, Method::DELETE, &path, one, None, &[]).await;
            assert_eq!(d.status, 405, "{}", d.body);
            let missing = request(
                &gw,
                Method::GET,
                &format!("{FEED}/nope"),
                ("clientencryptionkeys", "dbs/d/clientencryptionkeys/nope"),
                None,
                &[],
            )
            .await;
            assert_eq!(missing.status, 404, "{}", missing.body);
        });
    }
    // Kept across a restart; gone with their database, and a database created again under the
    // same name starts with none.
    let gw = TestGateway::at(data.path(), gateway::Limits::default());
    rt.block_on(async {
        let l = request(&gw, Method::GET, FEED, link, None, &[]).await;
        assert_eq!(l.status, 200, "{}", l.body);
        assert_eq!(l.body["_count"], 2, "{}", l.body);
        let d = request(&gw, Method::DELETE, "/dbs/d", ("dbs", "dbs/d"), None, &[]).await;
        assert_eq!(d.status, 204);
        let file = std::fs::read_to_string(data.path().join("gateway-client-encryption-keys.json"))
            .unwrap();
        assert!(!file.contains("cek1"), "{file}");
        create_database(&gw).await;
        let l = request(&gw, Method::GET, FEED, link, None, &[]).await;
        assert_eq!(
            (l.status, &l.body["_count"]),
            (200, &json!(0)),
            "{}",
            l.body
        );
    });
}
